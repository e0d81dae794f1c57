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

Recovery itself goes through DBOS's re-enqueue, whose conditional update
(``status = PENDING AND executor_id IN dead``) lets exactly one process claim
each run; the queue's atomic dequeue then admits exactly one runner.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa

from cfnops.durable._dbos_setup import create_tables

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

    def __init__(self, engine: sa.Engine, lease_seconds: float) -> None:
        self.engine = engine
        self.lease_seconds = lease_seconds
        self.hostname = socket.gethostname()
        create_tables(engine, _metadata, lock=False)  # the engine holds the schema lock

    def register(self, executor_id: str, version: str) -> None:
        now = time.time()
        pid = os.getpid()
        with self.engine.begin() as conn:
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

    def heartbeat(self, executor_id: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                executors.update()
                .where(executors.c.executor_id == executor_id)
                .values(heartbeat_at=time.time())
            )

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
            result = conn.execute(sa.select(executors))
            return [
                ExecutorRow(
                    r.executor_id,
                    r.hostname,
                    r.pid,
                    r.pid_started,
                    r.version,
                    r.state,
                    r.heartbeat_at,
                )
                for r in result
            ]

    def is_dead(self, row: ExecutorRow, now: float | None = None) -> bool:
        if row.state == "stopped":
            return True
        if row.hostname == self.hostname and not pid_alive(row.pid, row.pid_started):
            return True
        return (now or time.time()) - row.heartbeat_at > self.lease_seconds

    def live_ids(self) -> set[str]:
        now = time.time()
        return {r.executor_id for r in self.rows() if not self.is_dead(r, now)}
