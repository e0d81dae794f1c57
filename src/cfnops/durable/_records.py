"""Run records, read without executing anything (``cfnops runs``).

Uses a DBOS client on the durable database: listing, showing, cancelling and
resuming runs never dequeues or executes work in the calling process.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from dbos import DBOSClient

from cfnops._version import __version__
from cfnops.database import Database
from cfnops.durable._dbos_port import migrate, portable_serializer
from cfnops.durable._dbos_setup import check_schema
from cfnops.durable._engine import DEFAULT_QUEUE, NEEDS_QUEUE_PREFIX, RUN_WORKFLOW
from cfnops.durable._inputs import check_json, run_args
from cfnops.durable._leases import LeaseTable
from cfnops.durable.errors import UnknownRun

# DBOS status names → the names cfnops shows.
_STATUS = {
    "PENDING": "RUNNING",
    "ENQUEUED": "QUEUED",
    "SUCCESS": "SUCCEEDED",
    "ERROR": "FAILED",
    "CANCELLED": "CANCELLED",
    "MAX_RECOVERY_ATTEMPTS_EXCEEDED": "FAILED",
    "DELAYED": "QUEUED",
}
STATUSES = ("RUNNING", "QUEUED", "SUCCEEDED", "FAILED", "CANCELLED")


def _dt(epoch_ms: int | None) -> datetime | None:
    return None if epoch_ms is None else datetime.fromtimestamp(epoch_ms / 1000, tz=UTC)


@dataclass(frozen=True)
class StepRecord:
    """One checkpointed operation of a run."""

    index: int
    name: str
    kind: str  # step | wait | message | child
    started: datetime | None
    ended: datetime | None
    result: Any = None
    error: str | None = None
    next_poll: datetime | None = None  # a poll that asked for another: when it was due

    @property
    def duration_ms(self) -> float | None:
        if self.started is None or self.ended is None:
            return None
        return (self.ended - self.started).total_seconds() * 1000

    def summary(self, width: int = 80) -> str:
        if self.error:
            text = f"error: {self.error}"
        elif self.kind == "wait" and isinstance(self.result, int | float):
            until = datetime.fromtimestamp(float(self.result), tz=UTC)
            text = f"until {until.isoformat(timespec='seconds')}"
        else:
            text = (
                json.dumps(redacted(self.result), default=str)
                if not isinstance(self.result, str)
                else self.result
            )
        return text if len(text) <= width else text[: width - 1] + "…"


_JOB_OUTCOMES = frozenset({"SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED"})
_SECRET_KEY = re.compile(
    r"(?i)(secret|password|passwd|token|webhook|routing_?key|credential|private_?key|api_?key)"
)


def redacted(value: Any) -> Any:
    """``value`` with the values of secret-looking keys (tokens, passwords, webhook URLs)
    replaced by ``"***"``: what a run recorded may be shown, its secrets may not."""
    if isinstance(value, dict):
        return {
            k: "***" if _SECRET_KEY.search(str(k)) and v not in (None, "", [], {}) else redacted(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [redacted(v) for v in value]
    return value


@dataclass(frozen=True)
class RunRecord:
    """A run as recorded: what it was asked, what it did, how it ended."""

    run_id: str
    workflow: str
    status: str
    input: Any
    output: Any
    error: str | None
    created: datetime | None
    updated: datetime | None
    version: str | None
    executor: str | None
    queue: str | None

    @property
    def compatible(self) -> bool:
        return self.version in (None, __version__)

    @property
    def outcome(self) -> str:
        """How the run ended for its user: the engine's status, or what the workflow says.

        A workflow that ends normally may still report a domain outcome in its output:
        ``{"outcome": "REJECTED"}`` (heal) or ``{"status": "FAILED"}`` (a job-net whose
        execution failed, returned as data). Anything else: the engine's status.
        """
        if self.status == "SUCCEEDED" and isinstance(self.output, dict):
            said = self.output.get("outcome")
            if isinstance(said, str) and said:
                return said
            said = self.output.get("status")
            if isinstance(said, str) and said in _JOB_OUTCOMES:
                return said
        return self.status

    @property
    def needs(self) -> str | None:
        """What a process must have to run this run (``workflow X``, ``module M``), when a
        process without it handed it over; ``None`` when any process of this version can."""
        if self.queue and self.queue.startswith(NEEDS_QUEUE_PREFIX):
            return self.queue[len(NEEDS_QUEUE_PREFIX) :]
        return None

    @property
    def runs_on(self) -> str:
        """Which processes can advance it, in words (``runs list``/``runs show``)."""
        needs = self.needs
        if needs is not None:
            kind, _, name = needs.partition(" ")
            flag = f"--import {name}" if kind == "module" else f"the module that registers {name}"
            return f"a worker with {needs} ('cfnops worker' with {flag})"
        if self.status == "QUEUED":
            return "any 'cfnops worker'"
        if self.status == "RUNNING":
            return f"its executor {self.executor or '-'}, or any process once that one is gone"
        return "-"

    def to_json(self) -> dict[str, Any]:
        return {
            "runId": self.run_id,
            "workflow": self.workflow,
            "status": self.status,
            "outcome": self.outcome,
            "input": self.input,
            "output": self.output,
            "error": self.error,
            "created": self.created.isoformat() if self.created else None,
            "updated": self.updated.isoformat() if self.updated else None,
            "version": self.version,
            "executor": self.executor,
            "queue": self.queue,
            "needs": self.needs,
            "runsOn": self.runs_on,
        }


def _step_name(name: str, before: list[StepRecord]) -> str:
    """DBOS's ``DBOS.recv`` (the engine receiving a callback's answer) named after the
    callback whose ``NAME submit`` step precedes it: ``approval answer``."""
    if name != "DBOS.recv":
        return name
    submits = [s.name for s in before if s.name.endswith(" submit")]
    return f"{submits[-1].removesuffix(' submit')} answer" if submits else "callback answer"


def _next_poll(raw: Any) -> datetime | None:
    """When the next poll was due, from a poll's ``{"v": state, "at": epoch}`` checkpoint."""
    if isinstance(raw, dict) and set(raw) == {"v", "at"} and isinstance(raw["at"], int | float):
        return datetime.fromtimestamp(float(raw["at"]), tz=UTC)
    return None


def _unwrap_step(raw: Any) -> tuple[Any, str | None]:
    # {"v": result} or, for a poll that asked for another, {"v": state, "at": next poll}
    if isinstance(raw, dict) and "v" in raw and set(raw) <= {"v", "at"}:
        return raw["v"], None
    if isinstance(raw, dict) and "e" in raw:
        err = raw["e"]
        return None, f"{err.get('type')}: {err.get('message')}"
    return raw, None


_SCHEMA_CHECKED = "durable.schema-checked"


class RunStore:
    """Reads and controls runs through a DBOS client (no execution here)."""

    def __init__(self, database: Database) -> None:
        """On ``database`` (``runtime.database``), which its opener closes."""
        self.database = database
        # lazy: no connection check of its own (each store of a job start paid one)
        self._client = DBOSClient(
            system_database_engine=self.database.engine,
            serializer=portable_serializer(),
            lazy=True,
        )
        # Nothing has run yet on a fresh database: there is nothing to read either. Found
        # and checked once per database handle, not for every store opened on it.
        self._empty = False
        if not self.database.marked(_SCHEMA_CHECKED):
            self._empty = not self.database.has_table(
                "workflow_status", schema=self.database.dbos_schema
            )
            if not self._empty:
                check_schema(self.database.engine)
                self.database.mark(_SCHEMA_CHECKED)

    def ensure_schema(self) -> None:
        """Create DBOS's tables on a fresh database (under the schema lock), so that a
        run can be queued before any engine ever ran here."""
        if not self._empty:
            return
        with self.database.schema_lock():
            migrate(self._client)
        self._empty = False
        self.database.mark(_SCHEMA_CHECKED)

    def close(self) -> None:
        self._client.destroy()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _record(self, wf: Any) -> RunRecord:
        args: tuple[Any, ...] = tuple(run_args(wf.input))
        workflow = args[0] if wf.name == RUN_WORKFLOW and args else wf.name
        event = args[1] if len(args) > 1 else None
        return RunRecord(
            run_id=wf.workflow_id,
            workflow=str(workflow),
            status=_STATUS.get(wf.status, wf.status),
            input=event,
            output=wf.output,
            error=None if wf.error is None else str(wf.error),
            created=_dt(wf.created_at),
            updated=_dt(wf.updated_at),
            version=wf.app_version,
            executor=wf.executor_id,
            queue=wf.queue_name,
        )

    def list_runs(
        self,
        *,
        status: str | None = None,
        workflow: str | None = None,
        limit: int = 50,
        id_prefix: str | None = None,
        load_output: bool = True,
    ) -> list[RunRecord]:
        """Newest first. ``id_prefix`` filters in the database (run ids are often
        ``<kind>-<name>-<time>``); without ``load_output`` outputs read ``None``."""
        if self._empty:
            return []
        dbos_status = [k for k, v in _STATUS.items() if v == status] if status else None
        found = self._client.list_workflows(
            status=dbos_status,
            limit=None if workflow and not id_prefix else limit,
            sort_desc=True,
            workflow_id_prefix=id_prefix,
            load_output=load_output,
        )
        records = [self._record(wf) for wf in found]
        if workflow:
            records = [r for r in records if r.workflow == workflow][:limit]
        return records

    def get(self, run_id: str) -> RunRecord:
        if self._empty:
            raise UnknownRun(run_id)
        found = self._client.list_workflows(workflow_ids=[run_id])
        if not found:
            raise UnknownRun(run_id)
        return self._record(found[0])

    def steps(self, run_id: str) -> list[StepRecord]:
        out: list[StepRecord] = []
        for raw in self._client.list_workflow_steps(run_id) or []:
            name = _step_name(str(raw["function_name"]), out)
            kind = (
                "wait"
                if name == "DBOS.sleep"
                else "message"
                if name.startswith("DBOS.")
                else "step"
            )
            if raw.get("child_workflow_id"):
                kind = "child"
            result, error = _unwrap_step(raw.get("output"))
            if raw.get("error") is not None:
                error = str(raw["error"])
            out.append(
                StepRecord(
                    index=int(raw["function_id"]),
                    name="wait" if kind == "wait" else name,
                    kind=kind,
                    started=_dt(raw.get("started_at_epoch_ms")),
                    ended=_dt(raw.get("completed_at_epoch_ms")),
                    result=result,
                    error=error,
                    next_poll=_next_poll(raw.get("output")),
                )
            )
        return out

    def enqueue(
        self,
        workflow: str,
        event: Any,
        *,
        run_id: str,
        queue: str = DEFAULT_QUEUE,
        context: dict[str, Any] | None = None,
    ) -> str:
        """Queue a run for ``cfnops worker`` processes (an existing id is returned as is).

        ``context`` (:func:`cfnops.durable.run_context` of the caller's runtime): where
        the run works, so that the worker that runs it works there too.
        """
        check_json("input", event)
        self.ensure_schema()
        self._client.enqueue(
            {
                "workflow_name": RUN_WORKFLOW,
                "queue_name": queue,
                "workflow_id": run_id,
                "workflow_id_reuse_policy": "return-existing",
                "app_version": __version__,
            },
            workflow,
            event,
            context,
        )
        self._empty = False
        return run_id

    def cancel(self, run_id: str) -> RunRecord:
        self.get(run_id)
        self._client.cancel_workflow(run_id)
        return self.get(run_id)

    def idle_reason(self, record: RunRecord, lease_seconds: float) -> str | None:
        """Why no process executes ``record`` now (it waits on a queue, or its executor
        is dead: see :mod:`cfnops.durable._leases`); ``None`` while a live one holds it."""
        if record.status == "QUEUED":
            return f"it waited on its queue for {record.runs_on}"
        if record.status != "RUNNING":
            return f"it had ended {record.status}"
        owner = record.executor
        if owner and LeaseTable(self.database.engine, lease_seconds, create=False).alive(owner):
            return None
        return f"its executor {owner or '-'} is gone and no process had taken it over"

    def resume(self, run_id: str, *, queue: str) -> RunRecord:
        """Make a cancelled or failed run eligible again on ``queue`` (finished steps are
        kept): the workers' queue, or the own queue of the process that continues it
        (never DBOS's internal queue, which every process dequeues from)."""
        self.get(run_id)
        self._client.resume_workflow(run_id, queue_name=queue)
        return self.get(run_id)

    def send(self, run_id: str, message: Any, *, topic: str, idempotency_key: str) -> None:
        """Deliver ``message`` to the run's ``DBOS.recv(topic)`` (a callback answer).

        The same ``idempotency_key`` again delivers nothing: only the first answer counts.
        """
        check_json("message", message)
        self._client.send(run_id, message, topic=topic, idempotency_key=idempotency_key)
