"""The one mapping from database driver errors to :class:`StorageError` subclasses.

SQLite (``sqlite3``), PostgreSQL (``psycopg``) and SQLAlchemy's wrappers of both
reach cfnops from DBOS, the run store, job-net tables and the console (every engine
of the process: :class:`~cfnops.database.Database`'s and DBOS's own). Whatever
raised them, :func:`storage_error` turns them into one named error: which database
(its file, or its URL with the password hidden), why, and what to do. The SQL
statement and its parameters (which carry a run's definition and input) never
appear in the message.

Which database: SQLAlchemy calls every ``handle_error`` listener of the ``Engine``
class, whoever created the engine (cfnops or DBOS), with the engine at hand.
:func:`install` adds one that tags the exception with the engine's URL (password
redacted), so :func:`storage_error` can name it wherever the error is caught.

Classification uses SQLite's result codes (``sqlite_errorcode``, Python 3.11+) and
PostgreSQL's SQLSTATE classes, not message text, except for psycopg's connect
failures (which carry no SQLSTATE). ``tests/database/test_storage_errors.py``
drives each real fault through here.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import sqlalchemy as sa

from cfnops.database.errors import (
    DatabaseCorrupted,
    DatabaseFileGone,
    DatabaseFull,
    DatabaseIsDirectory,
    DatabaseReadOnly,
    DatabaseUnreachable,
    NotADatabase,
    SchemaTooOld,
    StorageError,
)
from cfnops.errors import HOST_FAULT_TAG

__all__ = ["install", "is_transient", "redact_url", "retry_while_unreachable", "storage_error"]

_TAG = HOST_FAULT_TAG

# SQLite primary result codes (https://www.sqlite.org/rescode.html).
_SQLITE = {
    3: DatabaseReadOnly,  # SQLITE_PERM
    # Another connection held the write lock for longer than the busy timeout (30 s):
    # the database did not answer in time, which clears as an unreachable server does.
    # A finished Task's checkpoint waits it out instead of being lost (and its effect
    # repeated on resume).
    5: DatabaseUnreachable,  # SQLITE_BUSY ("database is locked")
    6: DatabaseUnreachable,  # SQLITE_LOCKED
    8: DatabaseReadOnly,  # SQLITE_READONLY
    10: DatabaseUnreachable,  # SQLITE_IOERR
    11: DatabaseCorrupted,  # SQLITE_CORRUPT
    13: DatabaseFull,  # SQLITE_FULL
    14: DatabaseUnreachable,  # SQLITE_CANTOPEN
    26: NotADatabase,  # SQLITE_NOTADB
}
# the file was unlinked or renamed under the connection
_SQLITE_READONLY_DBMOVED = 1032
# less free than a few pages: an I/O error was a write failing for want of space
_NEARLY_FULL_BYTES = 64 * 1024

# PostgreSQL SQLSTATE (https://www.postgresql.org/docs/current/errcodes-appendix.html).
_PG_EXACT = {
    "25006": DatabaseReadOnly,  # read_only_sql_transaction (a standby, or read-only default)
    "53100": DatabaseFull,  # disk_full
    "XX001": DatabaseCorrupted,  # data_corrupted
    "XX002": DatabaseCorrupted,  # index_corrupted
    "3D000": DatabaseUnreachable,  # invalid_catalog_name: the database does not exist
    "28000": DatabaseUnreachable,  # invalid_authorization_specification
    "28P01": DatabaseUnreachable,  # invalid_password
    "42P01": SchemaTooOld,  # undefined_table
    "42703": SchemaTooOld,  # undefined_column
}
_PG_CLASS = {
    "08": DatabaseUnreachable,  # connection exception
    "57": DatabaseUnreachable,  # operator intervention (admin shutdown, crash shutdown)
}

_installed = threading.Lock()
_done: list[bool] = []


def redact_url(url: sa.URL | str) -> str:
    """``url`` with its password hidden; a SQLite URL as its file path."""
    parsed = sa.make_url(url) if isinstance(url, str) else url
    if parsed.get_backend_name() == "sqlite":
        return parsed.database or ":memory:"
    return parsed.set(drivername=parsed.get_backend_name()).render_as_string(hide_password=True)


def _tag(context: Any) -> None:
    engine = getattr(context, "engine", None)
    if engine is None:
        return
    name = redact_url(engine.url)
    for exc in (context.sqlalchemy_exception, context.original_exception):
        if exc is not None:
            with contextlib.suppress(AttributeError):  # an exception type with __slots__
                setattr(exc, _TAG, name)


class _QuietConnectCheck(logging.Filter):
    """Drops DBOS's log line for a failed connection check: the check raises, and the
    caller reports that error once, named (the line also repeats the driver's text)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Error connecting to the DBOS system database")


# What DBOS's background threads (queue pollers, notification listener, heartbeat-like
# loops) log when the database does not answer: one line per thread per poll, hundreds in
# a few seconds. cfnops's engine says it once when an outage starts and once when it ends
# (and once per run it stops), so these lines are dropped.
_OUTAGE_MARKERS = (
    "connection refused",
    "could not connect",
    "connection failed",
    "server closed the connection",
    "terminating connection",
    "the database system is",
    "connection is closed",
    "consuming input failed",
    "database is locked",
    "unable to open database file",
    "disk i/o error",
    "operationalerror",
    "no such table",
    "readonly database",
    "database or disk is full",
)


class _QuietOutage(logging.Filter):
    """Drops DBOS's repeated lines about a database that does not answer."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and storage_error(exc) is not None:
            return False
        try:
            text = record.getMessage().lower()
        except Exception:  # a record whose arguments do not format: let it through
            return True
        return not any(marker in text for marker in _OUTAGE_MARKERS)


def install() -> None:
    """Tag every SQLAlchemy engine's errors with its database (once per process)."""
    with _installed:
        if not _done:
            sa.event.listen(sa.Engine, "handle_error", _tag)
            dbos_log = logging.getLogger("dbos")
            dbos_log.addFilter(_QuietConnectCheck())
            dbos_log.addFilter(_QuietOutage())
            _done.append(True)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    stack: list[BaseException | None] = [exc]
    while stack:
        item = stack.pop(0)
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        yield item
        stack.extend([getattr(item, "orig", None), item.__cause__, item.__context__])


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0].strip() if text else type(exc).__name__


def _database(exc: BaseException, fallback: str | None) -> str:
    for item in _chain(exc):
        tagged = getattr(item, _TAG, None)
        if tagged:
            return str(tagged)
    return redact_url(fallback) if fallback else "(CFNOPS_DATABASE_URL)"


def _from_sqlite(driver: sqlite3.Error, database: str) -> StorageError | None:
    code = getattr(driver, "sqlite_errorcode", None)
    if code is None:
        return None
    detail = _first_line(driver)
    if code == _SQLITE_READONLY_DBMOVED:
        return DatabaseFileGone(database, detail)
    cls = _SQLITE.get(code & 0xFF)
    if cls is DatabaseUnreachable and os.path.isdir(database):
        return DatabaseIsDirectory(database)
    if cls is DatabaseUnreachable and os.path.exists(database) and _read_only(database):
        # a read-only mount: SQLite cannot open the file's -wal/-shm and says "unable to open"
        return DatabaseReadOnly(database, detail)
    if cls is DatabaseUnreachable and _disk_full(database):
        # SQLite says "disk I/O error" when it cannot grow its -wal or -shm file
        return DatabaseFull(database, detail)
    if cls is None:
        if "no such table" in detail or "no such column" in detail:
            return SchemaTooOld(database, detail)
        return None
    return cls(database, detail)


def _read_only(path: str) -> bool:
    try:
        found = os.statvfs(os.path.dirname(os.path.abspath(path)))
    except OSError:
        return False
    return bool(found.f_flag & os.ST_RDONLY)


def _disk_full(path: str) -> bool:
    try:
        found = os.statvfs(os.path.dirname(os.path.abspath(path)))
    except OSError:
        return False
    return found.f_bavail * found.f_frsize < _NEARLY_FULL_BYTES


def _from_postgres(driver: BaseException, database: str) -> StorageError | None:
    state = str(getattr(driver, "sqlstate", None) or "")
    detail = _first_line(driver)
    cls = _PG_EXACT.get(state) or _PG_CLASS.get(state[:2])
    if cls is None and not state and type(driver).__name__ == "OperationalError":
        cls = DatabaseUnreachable  # psycopg's connect failures carry no SQLSTATE
    return None if cls is None else cls(database, detail)


def storage_error(exc: BaseException, url: str | None = None) -> StorageError | None:
    """``exc`` (or an error in its chain) as a :class:`StorageError`; ``None`` if it
    is not a database fault. ``url`` names the database when the error is untagged."""
    for item in _chain(exc):
        if isinstance(item, StorageError):
            return item
    database = _database(exc, url)
    for item in _chain(exc):
        if isinstance(item, sqlite3.Error):
            found = _from_sqlite(item, database)
            if found is not None:
                return found
        elif type(item).__module__.startswith("psycopg"):
            found = _from_postgres(item, database)
            if found is not None:
                return found
        elif isinstance(item, OSError) and item.errno == errno.ENOSPC:
            return DatabaseFull(database, _first_line(item))
    return None


def is_transient(exc: BaseException) -> bool:
    """A connection-level fault that clears when the database is back (retry later)."""
    found = storage_error(exc)
    return isinstance(found, DatabaseUnreachable) and not isinstance(found, DatabaseIsDirectory)


T = TypeVar("T")
_log = logging.getLogger("cfnops.database")


def retry_while_unreachable(
    write: Callable[[], T],
    *,
    what: str,
    first_wait: float = 0.2,
    max_wait: float = 5.0,
    give_up_after: float | None = None,
) -> T:
    """``write()``, tried again (backing off to ``max_wait`` s) for as long as the database
    cannot be reached (at most ``give_up_after`` s: then the named error); any other
    error is raised at once.

    For the one write that must not be lost: the checkpoint of a side effect that has
    already happened (a Task's result). Failing it would run the effect again when the
    run resumes from its previous checkpoint; waiting for the database only delays it.
    And for a client's reads of a run it waits for: a blip must not turn a run that
    succeeds into a reported failure.
    """
    wait, warned = first_wait, False
    deadline = None if give_up_after is None else time.monotonic() + give_up_after
    while True:
        try:
            return write()
        except Exception as exc:
            if not is_transient(exc):
                raise
            if deadline is not None and time.monotonic() > deadline:
                found = storage_error(exc)
                if found is None:
                    raise
                raise found from exc
            if not warned:
                found = storage_error(exc)
                _log.warning("%s waits for the database: %s", what, found.message if found else exc)
                warned = True
        time.sleep(wait)
        wait = min(wait * 2, max_wait)
