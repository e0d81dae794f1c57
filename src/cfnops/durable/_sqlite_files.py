"""Where the SQLite run database may live, and with which permissions.

Run records hold stack names, inputs and outputs of operations: private to the
user. The state directory is created ``0700`` and the database file ``0600``
(SQLite gives its ``-wal`` and ``-shm`` files the database file's permissions).
A database path whose folder does not exist is refused, naming the folder,
unless it lies under cfnops's own state directory: a typo in
``CFNOPS_DATABASE_URL`` must not scatter databases over the disk.
"""

from __future__ import annotations

import os
from pathlib import Path

from cfnops.config import default_state_dir
from cfnops.durable.errors import DatabasePathError

__all__ = ["prepare_sqlite_file"]

_DIR_MODE = 0o700
_FILE_MODE = 0o600


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
