"""Errors the guard raises on purpose (bad input only).

Findings about handler code are data (:class:`cfnops.guard.Finding`), never exceptions.
"""

from __future__ import annotations

from pathlib import Path

from cfnops.errors import CfnopsError, UsageError


class GuardError(CfnopsError):
    """Root of the ``cfnops.guard`` errors."""


class GuardInputError(GuardError, UsageError):
    """The template (or a code folder) given to the guard cannot be read: exit 2."""

    def __init__(
        self, path: Path | str, reason: str, *, line: int | None = None, hint: str | None = None
    ) -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(
            f"cannot check {where}: {reason}",
            hint=hint or "pass a CloudFormation template (JSON or YAML) with a Resources section",
        )
        self.path = str(path)
        self.line = line
