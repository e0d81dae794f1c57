"""Executor identity and liveness: a run is executed by one live process, never two.

Every process that executes runs has a unique executor id and a row in
``cfnops_executors``, written *before* it can own anything and refreshed every
``heartbeat_seconds``. A run belongs to the executor that started or dequeued it (DBOS
records that in ``workflow_status.executor_id``, and gives the execution an ownership
token, ``owner_xid``, that every checkpoint write is checked against). Only a worker
recovers another executor's runs, and only when that executor is dead:

- **it said so**: it shut down cleanly (state ``stopped``) with runs still pending;
- **same host** (same host identity: hostname, boot id and PID namespace, or
  ``worker.host_id``): its process is gone, or its pid now names another process (the
  start time recorded with the pid differs). A live process on this host is *never*
  judged dead, whatever its heartbeat's age: a database outage, a stalled disk or a
  wall-clock step cannot make it so;
- **another host**: the recovering process has itself been connected to the database
  for a whole lease and, over that time, watched the executor's heartbeat value stay
  the same (:class:`LeaseObserver`, on this process's monotonic clock: no two hosts'
  clocks are ever compared, and an outage restarts the watch, since nobody could renew
  while the database was down).

A row is deleted only when it is judged dead by those rules and still holds the
heartbeat that was judged (:meth:`LeaseTable.forget`): a process that registered or
renewed in the meantime keeps its row.

Recovery claims a dead executor's run with one conditional statement (``status =
PENDING AND executor_id = the dead one``, see :func:`cfnops.durable._dbos_port.claim`):
of two processes recovering the same run, one succeeds. The queue's atomic dequeue then
admits exactly one runner, whose new ownership token fences the old execution out if it
was not dead after all (its next checkpoint write is refused).

A worker may keep one identity across restarts (``worker.executor_id``, ``cfnops
worker --id``): the restarted worker then owns its previous incarnation's runs and
takes them back at once. It takes the identity only from a holder that is dead by the
rules above; a holder that may be alive refuses it (:class:`ExecutorIdInUse`). A
worker that finds its row gone registers again; one that finds its identity held by
another process stops (:class:`ExecutorIdTaken`).
"""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from cfnops.durable._dbos_setup import create_tables
from cfnops.durable.errors import ExecutorIdInUse, ExecutorIdTaken

_log = logging.getLogger("cfnops.durable")

_metadata = sa.MetaData()
executors = sa.Table(
    "cfnops_executors",
    _metadata,
    sa.Column("executor_id", sa.String(200), primary_key=True),
    sa.Column("hostname", sa.String(255), nullable=False),
    sa.Column("pid", sa.Integer, nullable=False),
    sa.Column("pid_started", sa.String(64), nullable=False),
    sa.Column("version", sa.String(64), nullable=False),
    sa.Column("state", sa.String(16), nullable=False),
    sa.Column("started_at", sa.Float, nullable=False),
    sa.Column("heartbeat_at", sa.Float, nullable=False),
)


def host_identity() -> str:
    """This machine and PID namespace: pids are comparable only within one.

    The hostname alone is not enough (containers on two machines may share one, and
    two containers on one machine see different processes under the same pid): Linux's
    boot id and the PID namespace's inode tell them apart.
    """
    parts = []
    for path in ("/proc/sys/kernel/random/boot_id", "/proc/self/ns/pid"):
        try:
            parts.append(
                Path(path).read_text().strip() if "boot_id" in path else str(os.stat(path).st_ino)
            )
        except OSError:
            parts.append("-")
    return ".".join(parts)


def _marker_parts(marker: str) -> tuple[str | None, str]:
    """(host identity, start ticks) of a recorded marker; old rows have no host part."""
    if "/" in marker:
        host, _, ticks = marker.rpartition("/")
        return host, ticks
    return None, marker


def process_start_marker(pid: int) -> str:
    """A value that changes when ``pid`` is reused (Linux: start time in ticks)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def pid_alive(pid: int, marker: str) -> bool:
    """Whether ``pid`` on this host is still the process that recorded ``marker``."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    _, ticks = _marker_parts(marker)
    current = process_start_marker(pid)
    if not current:  # not Linux, or zombie: trust kill(0)
        return not ticks
    return current == ticks


def db_now(dialect: str) -> Any:
    """The database's clock in epoch seconds, as an SQL expression (one clock for every
    host that writes or reads heartbeats)."""
    if dialect == "sqlite":
        return sa.literal_column("((julianday('now') - 2440587.5) * 86400.0)")
    return sa.literal_column("extract(epoch from clock_timestamp())")


class LeaseObserver:
    """Watches other hosts' heartbeats on this process's monotonic clock.

    An executor on another host is expired only when this process has been connected
    for a whole lease and seen its heartbeat value unchanged for that long. Nothing
    compares clocks of two hosts, a wall-clock step changes nothing, and after an
    outage (:meth:`disconnected`) the watch starts again from zero: an owner that was
    merely cut off, like everyone else, renews before it could be judged.
    """

    def __init__(self, lease_seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.lease_seconds = lease_seconds
        self._clock = clock
        self._connected_since: float | None = None
        self._seen: dict[str, tuple[float, float]] = {}  # id -> (heartbeat value, since)

    @property
    def connected(self) -> bool:
        return self._connected_since is not None

    def connected_now(self) -> None:
        """A statement on the database just worked."""
        if self._connected_since is None:
            self._connected_since = self._clock()

    def disconnected(self) -> None:
        """A statement failed: nothing seen so far counts any more."""
        self._connected_since = None
        self._seen.clear()

    def expired(self, row: ExecutorRow) -> bool:
        """Whether ``row``'s heartbeat has stood still for a lease while we watched."""
        now = self._clock()
        seen = self._seen.get(row.executor_id)
        if seen is None or seen[0] != row.heartbeat_at:
            self._seen[row.executor_id] = (row.heartbeat_at, now)
            return False
        if self._connected_since is None:
            return False
        return now - max(seen[1], self._connected_since) >= self.lease_seconds

    def forget(self, executor_ids: list[str]) -> None:
        for executor_id in executor_ids:
            self._seen.pop(executor_id, None)


def new_executor_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass(frozen=True)
class ExecutorRow:
    executor_id: str
    hostname: str
    pid: int
    pid_started: str  # "<host identity>/<start ticks>" (older cfnops: ticks alone)
    version: str
    state: str
    heartbeat_at: float  # the database's clock when it last renewed (epoch seconds)


class LeaseTable:
    """Reads and writes ``cfnops_executors`` on the engine's database."""

    def __init__(
        self,
        engine: sa.Engine,
        lease_seconds: float,
        *,
        create: bool = True,
        host_id: str | None = None,
    ) -> None:
        self.engine = engine
        self.lease_seconds = lease_seconds
        self.hostname = socket.gethostname()
        self.host_id = host_id or host_identity()
        self._now = db_now(engine.dialect.name)
        if create:  # the engine holds the schema lock
            create_tables(engine, _metadata, lock=False)

    def _marker(self, pid: int) -> str:
        return f"{self.host_id}/{process_start_marker(pid)}"

    def same_host(self, row: ExecutorRow) -> bool:
        """Whether ``row``'s pid can be looked up here (same machine and PID namespace)."""
        host, _ = _marker_parts(row.pid_started)
        if host is None:  # a row written by an older cfnops: the hostname is all there is
            return row.hostname == self.hostname
        return host == self.host_id

    def register(self, executor_id: str, version: str) -> None:
        """Hold ``executor_id`` for this process: :class:`ExecutorIdInUse` if a process
        that may be alive holds it (a restart takes over a dead holder's row)."""
        pid = os.getpid()
        with self.engine.begin() as conn:
            held = conn.execute(
                sa.select(executors, self._now.label("db_now")).where(
                    executors.c.executor_id == executor_id
                )
            ).first()
            if held is not None:
                row, now = _row(held), float(held.db_now)
                if not self._mine(row) and not self.is_dead(row, now=now):
                    raise ExecutorIdInUse(
                        executor_id, _holder(row, now), self._expires_in(row, now)
                    )
            conn.execute(executors.delete().where(executors.c.executor_id == executor_id))
            conn.execute(
                executors.insert().values(
                    executor_id=executor_id,
                    hostname=self.hostname,
                    pid=pid,
                    pid_started=self._marker(pid),
                    version=version,
                    state="running",
                    started_at=time.time(),
                    heartbeat_at=self._now,
                )
            )

    def heartbeat(self, executor_id: str, version: str) -> None:
        """Renew this process's lease; register again if its row was forgotten, and
        :class:`ExecutorIdTaken` if another process holds its identity now."""
        pid = os.getpid()
        with self.engine.begin() as conn:
            updated = conn.execute(
                executors.update()
                .where(executors.c.executor_id == executor_id)
                .where(executors.c.pid == pid)
                .where(executors.c.pid_started == self._marker(pid))
                .values(heartbeat_at=self._now, state="running")
            ).rowcount
        if updated:
            return
        held = self._row(executor_id)
        if held is not None and not self._mine(held):
            raise ExecutorIdTaken(executor_id, _holder(held, self.db_time()))
        _log.warning(
            "executor %s had no row (it was judged dead by another process, which may have "
            "recovered its runs: their next checkpoint here is refused): registered again",
            executor_id,
        )
        self.register(executor_id, version)

    def alive(self, executor_id: str) -> bool:
        """Whether ``executor_id`` may still be executing runs (read only, one look: an
        executor on another host counts as alive until its lease ran out on the
        database's clock)."""
        if not sa.inspect(self.engine).has_table(executors.name):
            return False
        found = self._row(executor_id)
        return found is not None and not self.is_dead(found)

    def _row(self, executor_id: str) -> ExecutorRow | None:
        with self.engine.connect() as conn:
            found = conn.execute(
                sa.select(executors).where(executors.c.executor_id == executor_id)
            ).first()
        return None if found is None else _row(found)

    def _mine(self, row: ExecutorRow) -> bool:
        pid = os.getpid()
        return row.pid == pid and row.pid_started == self._marker(pid)

    def _expires_in(self, row: ExecutorRow, now: float) -> float | None:
        if self.same_host(row):  # its process is alive: no lease makes it dead
            return None
        return max(0.0, self.lease_seconds - (now - row.heartbeat_at))

    def mark_stopped(self, executor_id: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                executors.update()
                .where(executors.c.executor_id == executor_id)
                .values(state="stopped", heartbeat_at=self._now)
            )

    def forget(self, dead: list[ExecutorRow]) -> None:
        """Delete the rows of executors judged dead, each only while it still holds the
        heartbeat it was judged on (one that renewed since keeps its row)."""
        if not dead:
            return
        with self.engine.begin() as conn:
            for row in dead:
                conn.execute(
                    executors.delete()
                    .where(executors.c.executor_id == row.executor_id)
                    .where(executors.c.heartbeat_at == row.heartbeat_at)
                    .where(executors.c.pid == row.pid)
                    .where(executors.c.state == row.state)
                )

    def rows(self) -> list[ExecutorRow]:
        with self.engine.connect() as conn:
            return [_row(r) for r in conn.execute(sa.select(executors))]

    def db_time(self) -> float:
        """The database's clock (epoch seconds)."""
        with self.engine.connect() as conn:
            return float(conn.execute(sa.select(self._now)).scalar_one())

    def is_dead(
        self,
        row: ExecutorRow,
        *,
        now: float | None = None,
        observer: LeaseObserver | None = None,
    ) -> bool:
        """Whether ``row``'s executor can no longer be executing runs (see the module
        docstring). ``observer``: judge another host's lease by what this process
        watched; else by the heartbeat's age on the database's clock (``now``)."""
        if row.state == "stopped":
            return True
        if self.same_host(row):
            return not pid_alive(row.pid, row.pid_started)
        if observer is not None:
            return observer.expired(row)
        current = now if now is not None else self.db_time()
        return current - row.heartbeat_at > self.lease_seconds


def _row(r: Any) -> ExecutorRow:
    return ExecutorRow(
        r.executor_id, r.hostname, r.pid, r.pid_started, r.version, r.state, r.heartbeat_at
    )


def _holder(row: ExecutorRow, now: float) -> str:
    age = max(0.0, now - row.heartbeat_at)
    return f"pid {row.pid} on host {row.hostname} (heartbeat {age:.0f} s ago)"
