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


class PostgresCluster:
    """A running throw-away server that a fault test may stop and start again."""

    def __init__(self, root: Path, port: int, prefix: list[str]) -> None:
        self.root, self.port, self._prefix = root, port, prefix
        self.data = root / "data"
        self.url = f"postgresql://cfnops@127.0.0.1:{port}/postgres"

    def _ctl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self._prefix, _binary("pg_ctl"), "-D", str(self.data), *args],
            check=check,
            capture_output=True,
            text=True,
        )

    def start(self) -> None:
        self._ctl(
            "-l",
            str(self.root / "log"),
            "-w",
            "-t",
            "60",
            "-o",
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c max_connections=200",
            "start",
        )

    def stop_immediate(self) -> None:
        """``pg_ctl stop -m immediate``: every connection cut, no clean shutdown."""
        self._ctl("-m", "immediate", "stop", check=False)


@contextmanager
def postgres_cluster() -> Iterator[PostgresCluster]:
    """Yield a started :class:`PostgresCluster`; the server and its files go away afterwards."""
    initdb = _binary("initdb")
    _binary("pg_ctl")
    prefix: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        try:
            pwd.getpwnam("postgres")
        except KeyError as exc:
            raise PostgresUnavailable("running as root and there is no 'postgres' user") from exc
        prefix = ["runuser", "-u", "postgres", "--"]
    root = Path(tempfile.mkdtemp(prefix="cfnops-pg-"))
    root.chmod(0o777)
    cluster = PostgresCluster(root, _free_port(), prefix)
    try:
        subprocess.run(
            [*prefix, initdb, "-D", str(cluster.data), "-A", "trust", "-U", "cfnops", "--no-sync"],
            check=True,
            capture_output=True,
            text=True,
        )
        cluster.start()
    except subprocess.CalledProcessError as exc:
        shutil.rmtree(root, ignore_errors=True)
        raise PostgresUnavailable(
            f"could not start PostgreSQL: {exc.stderr.strip()[:300]}"
        ) from exc
    try:
        yield cluster
    finally:
        cluster.stop_immediate()
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def postgres_server() -> Iterator[str]:
    """Yield a ``postgresql://`` URL; the server and its files go away afterwards."""
    with postgres_cluster() as cluster:
        yield cluster.url
