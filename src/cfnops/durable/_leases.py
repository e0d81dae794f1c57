"""Executor identity and liveness, so that shared databases never run a run twice.

Every process that executes runs has a unique executor id and a row in
``cfnops_executors`` that it refreshes every ``heartbeat_seconds``. A run
belongs to the executor that started or dequeued it (DBOS records that in
``workflow_status.executor_id``). Another process recovers a run only when its
executor is dead:

- same host and the recorded process is gone (or its pid was reused: the start
  time recorded with the pid differs) → dead at once, so a ``kill -9`` is
  noticed by the next command without waiting for a lease;
- otherwise its heartbeat is older than ``lease_seconds``;
- or it shut down cleanly (state ``stopped``) with runs still pending.

A worker may keep one identity across restarts (``worker.executor_id``, ``cfnops
worker --id``): the restarted worker then owns its previous incarnation's runs and
DBOS's start-up recovery hands them back at once, whatever the lease. It takes the
identity only from a holder that is dead by the rules above; a holder that may be
alive refuses it (:class:`ExecutorIdInUse`). A worker that finds its row gone (its
lease expired while it was silent, and another process forgot it) registers again;
one that finds its identity held by another process stops (:class:`ExecutorIdTaken`).

Recovery itself goes through DBOS's re-enqueue, whose conditional update
(``status = PENDING AND executor_id IN dead``) lets exactly one process claim
each run; the queue's atomic dequeue then admits exactly one runner.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
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


def process_start_marker(pid: int) -> str:
    """A value that changes when ``pid`` is reused (Linux: start time in ticks)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def pid_alive(pid: int, marker: str) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    current = process_start_marker(pid)
    if not current:  # not Linux, or zombie: trust kill(0)
        return not marker
    return current == marker


def new_executor_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass(frozen=True)
class ExecutorRow:
    executor_id: str
    hostname: str
    pid: int
    pid_started: str
    version: str
    state: str
    heartbeat_at: float


class LeaseTable:
    """Reads and writes ``cfnops_executors`` on the engine's database."""

    def __init__(self, engine: sa.Engine, lease_seconds: float, *, create: bool = True) -> None:
        self.engine = engine
        self.lease_seconds = lease_seconds
        self.hostname = socket.gethostname()
        if create:  # the engine holds the schema lock
            create_tables(engine, _metadata, lock=False)

    def register(self, executor_id: str, version: str) -> None:
        """Hold ``executor_id`` for this process: :class:`ExecutorIdInUse` if a process
        that may be alive holds it (a restart takes over a dead holder's row)."""
        now = time.time()
        pid = os.getpid()
        with self.engine.begin() as conn:
            held = conn.execute(
                sa.select(executors).where(executors.c.executor_id == executor_id)
            ).first()
            if held is not None:
                row = _row(held)
                if not self._mine(row) and not self.is_dead(row, now):
                    raise ExecutorIdInUse(
                        executor_id, _holder(row, now), self._expires_in(row, now)
                    )
            conn.execute(executors.delete().where(executors.c.executor_id == executor_id))
            conn.execute(
                executors.insert().values(
                    executor_id=executor_id,
                    hostname=self.hostname,
                    pid=pid,
                    pid_started=process_start_marker(pid),
                    version=version,
                    state="running",
                    started_at=now,
                    heartbeat_at=now,
                )
            )

    def heartbeat(self, executor_id: str, version: str) -> None:
        """Refresh this process's lease; register again if its row was forgotten, and
        :class:`ExecutorIdTaken` if another process holds its identity now."""
        pid = os.getpid()
        with self.engine.begin() as conn:
            updated = conn.execute(
                executors.update()
                .where(executors.c.executor_id == executor_id)
                .where(executors.c.hostname == self.hostname)
                .where(executors.c.pid == pid)
                .values(heartbeat_at=time.time(), state="running")
            ).rowcount
        if updated:
            return
        held = self._row(executor_id)
        if held is not None and not self._mine(held):
            raise ExecutorIdTaken(executor_id, _holder(held, time.time()))
        _log.warning(
            "executor %s had lost its lease (no heartbeat for over %g s; other processes may "
            "have recovered its runs): registered again",
            executor_id,
            self.lease_seconds,
        )
        self.register(executor_id, version)

    def alive(self, executor_id: str) -> bool:
        """Whether ``executor_id`` may still be executing runs (read only)."""
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
        return (
            row.hostname == self.hostname
            and row.pid == pid
            and row.pid_started == process_start_marker(pid)
        )

    def _expires_in(self, row: ExecutorRow, now: float) -> float | None:
        if row.hostname == self.hostname:  # its process is alive: no lease makes it dead
            return None
        return max(0.0, self.lease_seconds - (now - row.heartbeat_at))

    def mark_stopped(self, executor_id: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                executors.update()
                .where(executors.c.executor_id == executor_id)
                .values(state="stopped", heartbeat_at=time.time())
            )

    def forget(self, executor_ids: list[str]) -> None:
        if executor_ids:
            with self.engine.begin() as conn:
                conn.execute(executors.delete().where(executors.c.executor_id.in_(executor_ids)))

    def rows(self) -> list[ExecutorRow]:
        with self.engine.connect() as conn:
            return [_row(r) for r in conn.execute(sa.select(executors))]

    def is_dead(self, row: ExecutorRow, now: float | None = None) -> bool:
        if row.state == "stopped":
            return True
        if row.hostname == self.hostname and not pid_alive(row.pid, row.pid_started):
            return True
        return (now or time.time()) - row.heartbeat_at > self.lease_seconds

    def live_ids(self) -> set[str]:
        now = time.time()
        return {r.executor_id for r in self.rows() if not self.is_dead(r, now)}


def _row(r: Any) -> ExecutorRow:
    return ExecutorRow(
        r.executor_id, r.hostname, r.pid, r.pid_started, r.version, r.state, r.heartbeat_at
    )


def _holder(row: ExecutorRow, now: float) -> str:
    age = max(0.0, now - row.heartbeat_at)
    return f"pid {row.pid} on host {row.hostname} (heartbeat {age:.0f} s ago)"
