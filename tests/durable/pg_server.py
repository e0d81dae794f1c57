"""Start a throw-away PostgreSQL server on a free loopback port for a test session."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class PostgresUnavailable(Exception):
    """Why no server could be started (the test is skipped with this reason)."""


def _binary(name: str) -> str:
    found = shutil.which(name) or next(
        iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))), None
    )
    if not found:
        raise PostgresUnavailable(f"{name} not found (install Debian's 'postgresql' package)")
    return found


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def postgres_server() -> Iterator[str]:
    """Yield a ``postgresql://`` URL; the server and its files go away afterwards."""
    initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
    prefix: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        try:
            pwd.getpwnam("postgres")
        except KeyError as exc:
            raise PostgresUnavailable("running as root and there is no 'postgres' user") from exc
        prefix = ["runuser", "-u", "postgres", "--"]
    root = Path(tempfile.mkdtemp(prefix="cfnops-pg-"))
    root.chmod(0o777)
    data, port = root / "data", _free_port()
    run = lambda *args: subprocess.run([*prefix, *args], check=True, capture_output=True, text=True)  # noqa: E731
    try:
        run(initdb, "-D", str(data), "-A", "trust", "-U", "cfnops", "--no-sync")
        run(
            pg_ctl,
            "-D",
            str(data),
            "-l",
            str(root / "log"),
            "-w",
            "-t",
            "60",
            "-o",
            f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c max_connections=200",
            "start",
        )
    except subprocess.CalledProcessError as exc:
        shutil.rmtree(root, ignore_errors=True)
        raise PostgresUnavailable(
            f"could not start PostgreSQL: {exc.stderr.strip()[:300]}"
        ) from exc
    try:
        yield f"postgresql://cfnops@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "stop"],
            capture_output=True,
            check=False,
        )
        shutil.rmtree(root, ignore_errors=True)
