"""Errors of the update-behaviour table."""

from __future__ import annotations

from cfnops.errors import CfnopsError, UsageError


class SchemasError(CfnopsError):
    """Root of the ``cfnops.schemas`` errors."""


class UnknownRegionError(SchemasError, UsageError):
    """The table has no data for the region asked for."""

    def __init__(self, region: str, known: list[str]) -> None:
        self.region = region
        super().__init__(
            f"no update-behaviour data for region {region!r}",
            hint=f"use one of: {', '.join(sorted(known))}",
        )
