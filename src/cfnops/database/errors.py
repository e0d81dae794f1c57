"""Errors of the run database (:mod:`cfnops.database`)."""

from __future__ import annotations

from cfnops.errors import CfnopsError, UsageError


class DatabaseError(CfnopsError):
    """Base class of the run database's errors."""


class StorageError(DatabaseError, UsageError):
    """The run database cannot be used; names it (password hidden) and the fix.

    Subclasses say why. Raised by the one mapping of driver errors
    (:func:`cfnops.database.storage_error`), so each names the database, never the
    statement or its parameters (a run's definition and input).
    """

    reason = "cannot be used"
    fix = "check CFNOPS_DATABASE_URL (the database_url setting)"

    def __init__(self, database: str, detail: str = "", *, hint: str | None = None) -> None:
        text = f"the durable database {database} {self.reason}"
        super().__init__(f"{text}: {detail}" if detail else text, hint=hint or self.fix)
        self.database = database
        self.detail = detail


class DatabaseUnreachable(StorageError):
    """The database server does not answer, or the file cannot be opened."""

    reason = "cannot be reached"
    fix = (
        "start the database (or fix the host, port, credentials or path in "
        "CFNOPS_DATABASE_URL) and run the command again; runs in flight continue once it is back"
    )


class DatabaseReadOnly(StorageError):
    """The database (file, folder or server) refuses writes."""

    reason = "is read-only"
    fix = (
        "give this user write access to the database file and its folder (SQLite needs both), "
        "or point CFNOPS_DATABASE_URL at a writable primary"
    )


class DatabaseFull(StorageError):
    """The disk (or quota) under the database is full."""

    reason = "is full (no space left on its disk)"
    fix = (
        "free space on the database's disk, then run 'cfnops runs list --status RUNNING' and "
        "'cfnops runs resume RUN_ID' for any run it stopped"
    )


class DatabaseCorrupted(StorageError):
    """The database file or its pages are damaged."""

    reason = "is corrupted"
    fix = (
        "stop every cfnops process on it, restore it from a backup (or recover it with "
        "'sqlite3 FILE .recover'), then start them again"
    )


class NotADatabase(StorageError):
    """The path holds a file that is not a SQLite database (or is encrypted)."""

    reason = "is not a database"
    fix = "point CFNOPS_DATABASE_URL at a cfnops database file, or at a path that does not exist"


class DatabaseIsDirectory(StorageError):
    """The SQLite URL names a folder, not a file."""

    reason = "is a folder, not a database file"
    fix = "name a file inside it, e.g. sqlite:///FOLDER/cfnops.sqlite"


class DatabaseFileGone(StorageError):
    """The SQLite file a process had open was deleted or replaced under it."""

    reason = "was deleted or replaced while this process used it"
    fix = (
        "restore the file (or start again on a new one): every cfnops process on it must be "
        "restarted, since runs written after the change went to the deleted file"
    )


class SchemaTooNew(StorageError):
    """The database was written by a newer cfnops (or DBOS) than this one."""

    reason = "has a newer schema than this cfnops knows"
    fix = "upgrade cfnops to the version the other processes on this database run"


class SchemaTooOld(StorageError):
    """The database lacks tables or columns this cfnops needs."""

    reason = "has an older schema than this cfnops needs"
    fix = "start one 'cfnops worker' (or any command that runs workflows) on it to upgrade it"


class DatabasePathError(StorageError):
    """The SQLite database cannot be created where the URL points."""

    def __init__(self, path: str, reason: str, *, create: str | None = None) -> None:
        hint = (
            f"create it first ('mkdir -p -m 700 {create}') or fix CFNOPS_DATABASE_URL "
            "(the default lives in the state directory)"
            if create
            else "fix CFNOPS_DATABASE_URL or the database_url setting"
        )
        DatabaseError.__init__(self, f"cannot use the SQLite database {path}: {reason}", hint=hint)
        self.database = path
        self.detail = reason
        self.path = path
