"""Errors of the run database (:mod:`cfnops.database`)."""

from __future__ import annotations

from cfnops.errors import CfnopsError, UsageError

__all__ = ["DatabaseError", "DatabasePathError"]


class DatabaseError(CfnopsError):
    """Base class of the run database's errors."""


class DatabasePathError(DatabaseError, UsageError):
    """The SQLite database cannot be created where the URL points."""

    def __init__(self, path: str, reason: str, *, create: str | None = None) -> None:
        hint = (
            f"create it first ('mkdir -p -m 700 {create}') or fix CFNOPS_DATABASE_URL "
            "(the default lives in the state directory)"
            if create
            else "fix CFNOPS_DATABASE_URL or the database_url setting"
        )
        super().__init__(f"cannot use the SQLite database {path}: {reason}", hint=hint)
        self.path = path
