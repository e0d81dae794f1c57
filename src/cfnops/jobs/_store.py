"""The job store: runs, history events, task tokens, schedules; effects through the engine.

Tables live in the durable database (SQLite file or PostgreSQL) next to DBOS's own.
A run's effects (finished Tasks, started waits, failed branches) are the durable
engine's checkpoints by position (:class:`cfnops.durable.CheckpointStore`): one
checkpoint store. Writes are few by design: one row per finished Task and per started
wait; history events are written in batches (pure states cost no write of their own).
A database written before positions were typed keeps its effects: their rows move from
the old ``cfnops_job_steps`` table into the engine's checkpoints when a store first
opens it (:func:`cfnops.jobs._store_migrate.move_legacy_steps`).
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from cfnops.database import Database, upsert
from cfnops.durable import Checkpoint, CheckpointStore, Fence, Position
from cfnops.jobs._store_control import _LIST_CONTROLS, ControlRow, ControlRows, LineageRow, _control
from cfnops.jobs._store_migrate import move_legacy_steps
from cfnops.jobs._store_rows import CallbackRow, TokenAndScheduleRows
from cfnops.jobs._tables import dumps as _dumps
from cfnops.jobs._tables import events, metadata, runs
from cfnops.jobs._tables import loads as _loads
from cfnops.jobs.errors import UnknownJobRun

__all__ = [
    "MODULES_OPTION",
    "CallbackRow",
    "ControlRow",
    "JobStore",
    "LineageRow",
    "RunRow",
]

MODULES_OPTION = "modules"
"""The run option holding the imported module names (never secrets: names only)."""


@dataclass(frozen=True)
class RunRow:
    run_id: str
    machine_name: str
    definition: dict[str, Any]
    input: Any
    status: str
    output: Any
    error: str | None
    cause: str | None
    started_at: float
    stopped_at: float | None
    redrive_count: int
    history_base: int
    stop_requested: bool
    dbos_id: str
    options: dict[str, Any]
    parent_run_id: str | None
    source: str

    @property
    def modules(self) -> tuple[str, ...]:
        """The modules the run was started with (``job run --import``; names only).

        Imported again wherever the run continues (redrive, rerun, recovery by a
        worker) so that its local functions are found: see
        :func:`cfnops.jobs._functions.import_modules`.
        """
        return tuple(str(m) for m in self.options.get(MODULES_OPTION) or ())

    def to_json(self) -> dict[str, Any]:
        return {
            "runId": self.run_id,
            "stateMachine": self.machine_name,
            "status": self.status,
            "input": self.input,
            "output": self.output,
            "error": self.error,
            "cause": self.cause,
            "startDate": self.started_at,
            "stopDate": self.stopped_at,
            "redriveCount": self.redrive_count,
            "source": self.source,
            "parentRunId": self.parent_run_id,
        }


# The statements every run issues, built once (building a statement, and its cache key,
# cost more CPU than SQLite took to run it): each execution binds its values.
_GET_RUN = sa.select(runs).where(runs.c.run_id == sa.bindparam("run_id"))
_STOP_REQUESTED = sa.select(runs.c.stop_requested).where(runs.c.run_id == sa.bindparam("run_id"))
_EVENT_TIMES = sa.select(events.c.event_id, events.c.type, events.c.ts).where(
    events.c.run_id == sa.bindparam("run_id"), events.c.event_id > sa.bindparam("after")
)
_FINISH_RUN = (
    runs.update()
    .where(runs.c.run_id == sa.bindparam("run"))
    .values(
        status=sa.bindparam("status"),
        output=sa.bindparam("output"),
        error=sa.bindparam("error"),
        cause=sa.bindparam("cause"),
        stopped_at=sa.bindparam("stopped_at"),
    )
)


class JobStore(TokenAndScheduleRows, ControlRows):
    """Reads and writes the job tables (thread-safe) on the runtime's database."""

    def __init__(self, database: Database) -> None:
        """On ``database`` (``runtime.database``), which its opener closes."""
        self.database = database
        self.checkpoints = CheckpointStore(self.database)
        self.engine = self.database.ensure(
            metadata, after=lambda engine: move_legacy_steps(engine, self.checkpoints)
        )
        self.fence: Fence | None = None

    def fenced(self, fence: Fence) -> JobStore:
        """This store for one execution: every effect it records, and the run's end, is
        written only while ``fence`` still holds the run (:mod:`cfnops.durable._fence`)."""
        found = copy.copy(self)
        found.fence = fence
        return found

    # -- runs ----------------------------------------------------------------------------
    def create_run(
        self,
        run_id: str,
        machine_name: str,
        definition: Mapping[str, Any],
        value: Any,
        *,
        options: Mapping[str, Any] | None = None,
        parent: str | None = None,
        source: str = "manual",
        rerun_of: LineageRow | None = None,
        copies: Sequence[tuple[Position, Position]] = (),
    ) -> bool:
        """Insert a new run; False when the id exists already (the same run).

        A rerun (``rerun_of``: its lineage) is inserted with its lineage and the effects
        it keeps from its origin (``copies``: origin position, rerun position), in the
        same transaction.
        """
        row = {
            "run_id": run_id,
            "machine_name": machine_name,
            "definition": _dumps(definition),
            "input": _dumps(value),
            "status": "RUNNING",
            "started_at": time.time(),
            "redrive_count": 0,
            "history_base": 0,
            "stop_requested": False,
            "dbos_id": run_id,
            "options": _dumps(dict(options or {})),
            "parent_run_id": parent,
            "source": source,
        }
        try:  # one statement: the insert itself finds an existing id
            with self.engine.begin() as conn:
                conn.execute(runs.insert().values(**row))
                if rerun_of is not None:
                    self._link_rerun(conn, rerun_of, copies)
        except sa.exc.IntegrityError:
            with self.engine.connect() as conn:
                found = conn.execute(sa.select(runs.c.run_id).where(runs.c.run_id == run_id))
                if found.first() is None:
                    raise  # another constraint than the id's
            return False
        return True

    def get_run(self, run_id: str) -> RunRow:
        with self.engine.connect() as conn:
            row = conn.execute(_GET_RUN, {"run_id": run_id}).mappings().first()
        if row is None:
            raise UnknownJobRun(run_id)
        return self._run(row)

    def opening(self, run_id: str) -> tuple[RunRow, dict[int, tuple[str, float]], list[ControlRow]]:
        """What an execution reads before it starts, on one connection: the run, the
        events already recorded after its history base (:meth:`event_times`: a replay's)
        and its operator actions (:meth:`list_controls`); neither for an ended run."""
        with self.engine.connect() as conn:
            found = conn.execute(_GET_RUN, {"run_id": run_id}).mappings().first()
            if found is None:
                raise UnknownJobRun(run_id)
            row = self._run(found)
            if row.status != "RUNNING":
                return row, {}, []
            times = conn.execute(_EVENT_TIMES, {"run_id": run_id, "after": row.history_base})
            known = {int(r[0]): (str(r[1]), float(r[2])) for r in times}
            actions = conn.execute(_LIST_CONTROLS, {"run_id": run_id, "after": 0})
            return row, known, [_control(r) for r in actions.mappings()]

    def find_run(self, run_id: str) -> RunRow | None:
        try:
            return self.get_run(run_id)
        except UnknownJobRun:
            return None

    @staticmethod
    def _run(row: Any) -> RunRow:
        return RunRow(
            run_id=row["run_id"],
            machine_name=row["machine_name"],
            definition=json.loads(row["definition"]),
            input=_loads(row["input"]),
            status=row["status"],
            output=_loads(row["output"]),
            error=row["error"],
            cause=row["cause"],
            started_at=row["started_at"],
            stopped_at=row["stopped_at"],
            redrive_count=row["redrive_count"],
            history_base=row["history_base"],
            stop_requested=bool(row["stop_requested"]),
            dbos_id=row["dbos_id"],
            options=json.loads(row["options"] or "{}"),
            parent_run_id=row["parent_run_id"],
            source=row["source"],
        )

    def list_runs(self, *, status: str | None = None, limit: int = 50) -> list[RunRow]:
        query = sa.select(runs).order_by(runs.c.started_at.desc()).limit(limit)
        if status:
            query = query.where(runs.c.status == status)
        with self.engine.connect() as conn:
            return [self._run(r) for r in conn.execute(query).mappings()]

    def finish_run(
        self,
        run_id: str,
        status: str,
        output: Any,
        error: str | None,
        cause: str | None,
        *,
        events: Sequence[tuple[int, int, str, float, str]] = (),
    ) -> None:
        """End the run; ``events``: its last history rows, written in the same transaction."""
        with self.engine.begin() as conn:
            if self.fence is not None:
                self.fence.guard(conn, "the run's end")
            if events:
                self._write_events(conn, run_id, events)
            conn.execute(
                _FINISH_RUN,
                {
                    "run": run_id,
                    "status": status,
                    "output": None if output is None else _dumps(output),
                    "error": error,
                    "cause": cause,
                    "stopped_at": time.time(),
                },
            )

    def request_stop(self, run_id: str) -> None:
        self.get_run(run_id)
        with self.engine.begin() as conn:
            conn.execute(runs.update().where(runs.c.run_id == run_id).values(stop_requested=True))

    def stop_requested(self, run_id: str) -> bool:
        with self.engine.connect() as conn:
            found = conn.execute(_STOP_REQUESTED, {"run_id": run_id}).first()
        return bool(found and found[0])

    def failed_keys(self, run_id: str) -> list[Position]:
        """Positions of failed tasks and failed branches: what a redrive re-runs."""
        return self.checkpoints.failed(run_id)

    def prepare_redrive(
        self,
        run_id: str,
        dbos_id: str,
        history_base: int,
        options: Mapping[str, Any],
        *,
        keep_under: Position | None = None,
    ) -> None:
        """Forget failed effects so they run again; keep every successful one.

        A failed branch is forgotten whole (it runs again from its start) unless it holds
        the position ``keep_under``.
        """
        with self.engine.begin() as conn:
            rows = self.checkpoints.of_run(run_id, conn)
            forget = {r.position for r in rows if not r.ok}
            for branch in (r.position for r in rows if r.kind == "branch"):
                if keep_under is not None and keep_under.startswith(branch):
                    continue  # its marker goes (failed), its effects stay
                forget.update(r.position for r in rows if r.position.startswith(branch))
            self.checkpoints.delete(run_id, forget, conn)
            conn.execute(
                runs.update()
                .where(runs.c.run_id == run_id)
                .values(
                    status="RUNNING",
                    output=None,
                    error=None,
                    cause=None,
                    stopped_at=None,
                    stop_requested=False,
                    dbos_id=dbos_id,
                    history_base=history_base,
                    redrive_count=runs.c.redrive_count + 1,
                    options=_dumps(dict(options)),
                )
            )

    # -- effects (the engine's checkpoints) ----------------------------------------------
    def get_step(self, run_id: str, key: Position) -> Checkpoint | None:
        return self.checkpoints.get(run_id, key)

    def put_step(
        self,
        run_id: str,
        key: Position,
        kind: str,
        *,
        ok: bool,
        result: Any = None,
        error: str | None = None,
        cause: str | None = None,
    ) -> None:
        if self.fence is None:
            self.checkpoints.put(run_id, key, kind, ok=ok, result=result, error=error, cause=cause)
            return
        with self.engine.begin() as conn:
            self.fence.guard(conn, f"the checkpoint of {kind} {key}")
            self.checkpoints.put(
                run_id, key, kind, ok=ok, result=result, error=error, cause=cause, conn=conn
            )

    def deadline(self, run_id: str, key: Position, deadline: float) -> float:
        """The recorded deadline of a wait, recording ``deadline`` on first use."""
        return self.checkpoints.deadline(run_id, key, deadline)

    def list_steps(self, run_id: str) -> list[Checkpoint]:
        return self.checkpoints.of_run(run_id)

    # -- history -------------------------------------------------------------------------
    def write_events(self, run_id: str, rows: Sequence[tuple[int, int, str, float, str]]) -> None:
        if not rows:
            return
        with self.engine.begin() as conn:
            self._write_events(conn, run_id, rows)

    @staticmethod
    def _write_events(
        conn: sa.Connection, run_id: str, rows: Sequence[tuple[int, int, str, float, str]]
    ) -> None:
        columns = ("event_id", "previous_event_id", "type", "ts", "details")
        # a replay writes the same ids again: they replace what the first execution wrote
        upsert(
            conn, events, [{"run_id": run_id, **dict(zip(columns, r, strict=True))} for r in rows]
        )

    def delete_events_after(self, run_id: str, event_id: int) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                events.delete().where(events.c.run_id == run_id, events.c.event_id > event_id)
            )

    def event_times(self, run_id: str, after: int) -> dict[int, tuple[str, float]]:
        with self.engine.connect() as conn:
            rows = conn.execute(_EVENT_TIMES, {"run_id": run_id, "after": after})
            return {int(r[0]): (str(r[1]), float(r[2])) for r in rows}

    def history_fingerprint(self, run_id: str) -> tuple[int, int, float]:
        """(count, last id, sum of timestamps) of the run's events: one indexed aggregate
        that changes whenever an event is added, or deleted and written again (a replay
        writes new timestamps), so a reader can keep what it derived from the history."""
        with self.engine.connect() as conn:
            found = conn.execute(
                sa.select(
                    sa.func.count(), sa.func.max(events.c.event_id), sa.func.sum(events.c.ts)
                ).where(events.c.run_id == run_id)
            ).one()
        count, last, total = found[0], found[1], found[2]
        return int(count or 0), int(last or 0), float(total or 0.0)

    def history(self, run_id: str, *, after: int = 0) -> list[dict[str, Any]]:
        """Events in id order as plain dicts (id, previousEventId, type, timestamp, details)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(events)
                .where(events.c.run_id == run_id, events.c.event_id > after)
                .order_by(events.c.event_id)
            ).mappings()
            return [
                {
                    "id": r["event_id"],
                    "previousEventId": r["previous_event_id"],
                    "type": r["type"],
                    "timestamp": r["ts"],
                    "details": json.loads(r["details"]),
                }
                for r in rows
            ]


def dumps(value: Any) -> str:
    return _dumps(value)
