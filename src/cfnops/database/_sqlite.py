"""SQLite: one file, WAL, created private to the user.

SQLite runs in WAL mode with ``synchronous=NORMAL``. Measured on this machine:
DBOS's default rollback journal costs ~6.6 ms per checkpointed step; WAL with
NORMAL costs ~2.4 ms. WAL with NORMAL loses no committed transaction when a
process is killed (only an OS crash or power loss can drop the last commits),
which is the failure model cfnops promises to survive.

Run records hold stack names, inputs and outputs of operations: private to the
user. The state directory is created ``0700`` and the database file ``0600``
(SQLite gives its ``-wal`` and ``-shm`` files the database file's permissions).
A database path whose folder does not exist is refused, naming the folder,
unless it lies under cfnops's own state directory: a typo in
``CFNOPS_DATABASE_URL`` must not scatter databases over the disk.
"""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, ClassVar

import sqlalchemy as sa

from cfnops.config import default_state_dir
from cfnops.database._base import Database
from cfnops.database.errors import DatabasePathError

__all__ = ["SqliteDatabase", "prepare_sqlite_file"]

_DIR_MODE = 0o700
_FILE_MODE = 0o600


class SqliteDatabase(Database):
    """``sqlite:///path``: the embedded default."""

    dialect: ClassVar[str] = "sqlite"

    def sqlalchemy_url(self) -> str:
        return self.url

    @property
    def path(self) -> str:
        return self.url[len("sqlite:///") :]

    def _prepare(self) -> None:
        prepare_sqlite_file(self.path)

    def file_identity(self) -> tuple[int, int] | None:
        """(device, inode) of the database file; ``None`` when it does not exist (or the
        database is in memory). A file deleted and created again, or replaced by a rename,
        gets another identity: a process that opened the old one writes where nobody reads.
        """
        path = self.path.split("?", 1)[0]
        if not path or path == ":memory:" or path.startswith("file:"):
            return None
        try:
            found = os.stat(Path(path).expanduser())
        except OSError:
            return None
        return found.st_dev, found.st_ino

    def _on_connect(self, dbapi_conn: Any) -> None:
        # As DBOS's own SQLite engine does (IMMEDIATE writers, busy timeout,
        # foreign keys), plus WAL and NORMAL sync: see the module docstring.
        dbapi_conn.isolation_level = "IMMEDIATE"
        dbapi_conn.execute("PRAGMA busy_timeout=30000")
        dbapi_conn.execute("PRAGMA foreign_keys=ON")
        _use_wal(dbapi_conn)
        dbapi_conn.execute("PRAGMA synchronous=NORMAL")

    @classmethod
    def _schema_lock(cls, engine: sa.Engine) -> AbstractContextManager[None]:
        # Nothing to do: a migration takes the database's write lock.
        return nullcontext()


# How long a new connection keeps asking for WAL while others hold the file (as the busy
# timeout above): SQLite answers a journal-mode change with "database is locked" at once,
# without calling the busy handler, when another connection is inside a transaction.
_WAL_PATIENCE_SECONDS = 30.0


def _use_wal(dbapi_conn: Any) -> None:
    """Put the file in WAL mode unless it already is (the mode is stored in the file, so
    only the first connection of a new database changes it)."""
    deadline = time.monotonic() + _WAL_PATIENCE_SECONDS
    pause = 0.005
    while True:
        (mode,) = dbapi_conn.execute("PRAGMA journal_mode").fetchone()
        if str(mode).lower() == "wal":
            return
        try:
            dbapi_conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            if time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


def prepare_sqlite_file(path: str, state_dir: Path | None = None) -> None:
    """Make sure ``path``'s folder exists (creating only under the state dir) and the
    file exists with mode 0600; raise :class:`DatabasePathError` otherwise."""
    if not path or path == ":memory:" or path.startswith("file:"):
        return
    file = Path(path).expanduser()
    folder = file.parent
    home = (state_dir or default_state_dir()).resolve()
    if not folder.is_dir():
        if folder.exists():
            raise DatabasePathError(path, f"{folder} is not a folder")
        resolved = folder.resolve()
        if resolved != home and home not in resolved.parents:
            raise DatabasePathError(path, f"the folder {folder} does not exist", create=str(folder))
        old = os.umask(0o077)
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=_DIR_MODE)
        finally:
            os.umask(old)
    if not file.exists():
        try:
            fd = os.open(file, os.O_CREAT | os.O_WRONLY, _FILE_MODE)
        except OSError as exc:
            raise DatabasePathError(path, exc.strerror or str(exc)) from exc
        os.close(fd)
