"""One durable execution of a job-net: the ASL interpreter on checkpointed ports.

This mirrors :meth:`cfnops.asl.Interpreter.run` (same events, same outcomes) with three
additions the core's public entry point does not offer yet: the context object carries
``$$.Task.Token`` for ``.waitForTaskToken`` tasks, the execution can be stopped from
another process, and a state-machine ``TimeoutSeconds`` counts from the run's recorded
start, so a recovered run does not get a fresh budget.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cfnops.asl import ExecutionInfo, TaskInvoker
from cfnops.asl._dataflow import Scope
from cfnops.asl._engine import Aborted, Branch, CancelToken, Execution, dumps_event
from cfnops.asl._timestamps import format_timestamp
from cfnops.asl.errors import StatesFailure
from cfnops.jobs._durable_ports import (
    BatchRecorder,
    DurableBranchExecutor,
    DurableClock,
    DurableInvoker,
    EffectKeys,
)
from cfnops.jobs._store import JobStore, RunRow

__all__ = [
    "JobResult",
    "execute_run",
    "execution_arn",
    "iter_states",
    "redrive_point",
    "top_level_path",
]

ACCOUNT = "111111111111"


@dataclass(frozen=True)
class JobResult:
    """How a run ended: SUCCEEDED, FAILED, TIMED_OUT or ABORTED (RUNNING while it runs)."""

    run_id: str
    status: str
    output: Any = None
    error: str | None = None
    cause: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "runId": self.run_id,
            "status": self.status,
            "output": self.output,
            "error": self.error,
            "cause": self.cause,
        }


def iter_states(definition: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every state of a definition, nested branches and item processors included."""
    for name, state in definition.get("States", {}).items():
        yield name, state
        for sub in state.get("Branches", []) or []:
            yield from iter_states(sub)
        for key in ("ItemProcessor", "Iterator"):
            if isinstance(state.get(key), Mapping):
                yield from iter_states(state[key])


def top_level_path(
    history: list[dict[str, Any]], top_level: frozenset[str]
) -> list[tuple[str, int]]:
    """The top-level states an execution entered, with which visit of each, in order.

    Visits count along the execution's path across earlier redrives (a redriven segment
    starts at its resume point, with the counts that path had there).
    """
    counts: dict[str, int] = {}
    snapshots: dict[tuple[str, int], dict[str, int]] = {}
    path: list[tuple[str, int]] = []
    resumed: tuple[str, int] | None = None
    for event in history:
        if event["type"] == "ExecutionRedriven" and path:
            counts = dict(snapshots[path[-1]])
            resumed = path[-1]
            continue
        if not str(event["type"]).endswith("StateEntered"):
            continue
        name = str(event["details"].get("name"))
        if name not in top_level:
            continue
        if resumed == (name, counts.get(name)):  # the resumed entry: counted already
            resumed = None
            continue
        resumed = None
        counts[name] = counts.get(name, 0) + 1
        path.append((name, counts[name]))
        snapshots[path[-1]] = dict(counts)
    return path


def redrive_point(
    history: list[dict[str, Any]], top_level: frozenset[str], failed_keys: list[str]
) -> tuple[str, int] | None:
    """Where a redrive's history starts: the first top-level state entry holding a failed
    effect (its key ``/Name#visit…``), else the last state the execution entered."""
    failed = set()
    for key in failed_keys:
        head = key.split("/")[1] if key.startswith("/") else ""
        name, _, rest = head.partition("#")
        visit = "".join(ch for ch in rest.split("@")[0].split("~")[0] if ch.isdigit())
        if name and visit:
            failed.add((name, int(visit)))
    path = top_level_path(history, top_level)
    for entry in path:
        if entry in failed:
            return entry
    return path[-1] if path else None


def execution_arn(row: RunRow, region: str) -> str:
    return f"arn:aws:states:{region}:{ACCOUNT}:execution:{row.machine_name}:{row.run_id}"


class _JobExecution(Execution):
    """Adds ``$$.Task.Token`` (deterministic per state entry) for callback tasks."""

    def __init__(self, *, keys: EffectKeys, token_states: frozenset[str], **kw: Any) -> None:
        super().__init__(**kw)
        self._keys = keys
        self._token_states = token_states

    def context(self, state_name: str, entered_time: str, **extra: Any) -> dict[str, Any]:
        ctx = super().context(state_name, entered_time, **extra)
        if state_name in self._token_states:
            token = self._keys.token()
            if token is not None:
                ctx["Task"] = {"Token": token}
        return ctx


InvokerFactory = Callable[[RunRow], TaskInvoker]


def execute_run(
    store: JobStore, run_id: str, invoker_factory: InvokerFactory, *, region: str = "us-east-1"
) -> JobResult:
    """Run (or replay to the end) the run ``run_id``; idempotent once it has ended."""
    row = store.get_run(run_id)
    if row.status != "RUNNING":
        return JobResult(run_id, row.status, row.output, row.error, row.cause)
    definition = row.definition
    keys = EffectKeys(run_id)
    known = store.event_times(run_id, row.history_base)
    found = row.options.get("redriveFrom") if row.history_base else None
    resume = (str(found[0]), int(found[1])) if found else None
    recorder = BatchRecorder(
        store, run_id, keys, base=row.history_base, known=known, resume_at=resume
    )
    if known:  # a replay (recovery): its events are written again
        store.delete_events_after(run_id, row.history_base)
    invoker = DurableInvoker(invoker_factory(row), store, run_id, keys, recorder.flush)
    clock = DurableClock(store, run_id, keys, recorder.flush)
    started = datetime.fromtimestamp(row.started_at, tz=UTC)
    info = ExecutionInfo(
        execution_arn=execution_arn(row, region),
        name=run_id,
        state_machine_arn=f"arn:aws:states:{region}:{ACCOUNT}:stateMachine:{row.machine_name}",
        state_machine_name=row.machine_name,
        role_arn=f"arn:aws:iam::{ACCOUNT}:role/cfnops-jobs",
        start_time=format_timestamp(started),
        region=region,
        redrive_count=row.redrive_count,
    )
    root = CancelToken()
    tokens = frozenset(
        name
        for name, st in iter_states(definition)
        if str(st.get("Resource", "")).endswith(".waitForTaskToken")
    )
    execution = _JobExecution(
        keys=keys,
        token_states=tokens,
        info=info,
        execution_input=row.input,
        invoker=invoker,
        clock=clock,
        recorder=recorder,
        branch_executor=DurableBranchExecutor(
            keys, lambda path: store.put_step(run_id, f"{path}!failed", "branch", ok=False)
        ),
        cancel=root,
        rng=random.Random(run_id),
        default_query_language=str(definition.get("QueryLanguage", "JSONPath")),
    )
    keys.push("")
    recorder.record(
        "ExecutionStarted",
        0,
        {
            "input": dumps_event(row.input),
            "inputDetails": {"truncated": False},
            "roleArn": info.role_arn,
        },
    )
    done = threading.Event()
    watcher = threading.Thread(
        target=_watch,
        args=(store, run_id, root, recorder, done),
        name=f"job-watch-{run_id}",
        daemon=True,
    )
    watcher.start()
    timer = _timeout_timer(definition, row.started_at, root)
    branch = Branch(execution, definition, scope=Scope(), cancel=root, previous_event=0)
    try:
        result = _walk(branch, row, root, recorder)
    finally:
        done.set()
        if timer is not None:
            timer.cancel()
        watcher.join(timeout=2)
    recorder.flush()
    store.finish_run(run_id, result.status, result.output, result.error, result.cause)
    return result


def _walk(branch: Branch, row: RunRow, root: CancelToken, rec: BatchRecorder) -> JobResult:
    run_id = row.run_id
    try:
        output = branch.run(row.input)
    except StatesFailure as failure:
        details: dict[str, Any] = {}
        if failure.error is not None:
            details["error"] = failure.error
        if failure.cause is not None:
            details["cause"] = failure.cause
        rec.record("ExecutionFailed", branch.last_event, details)
        return JobResult(run_id, "FAILED", None, failure.error, failure.cause)
    except Aborted:
        if root.reason == "timeout":
            rec.record("ExecutionTimedOut", branch.last_event, {})
            return JobResult(run_id, "TIMED_OUT", None, "States.Timeout", None)
        rec.record("ExecutionAborted", branch.last_event, {})
        return JobResult(run_id, "ABORTED", None, "States.Aborted", "stopped by request")
    if root.reason == "timeout":
        rec.record("ExecutionTimedOut", branch.last_event, {})
        return JobResult(run_id, "TIMED_OUT", None, "States.Timeout", None)
    rec.record(
        "ExecutionSucceeded",
        branch.last_event,
        {"output": dumps_event(output), "outputDetails": {"truncated": False}},
    )
    return JobResult(run_id, "SUCCEEDED", output)


def _timeout_timer(
    definition: Mapping[str, Any], started_at: float, root: CancelToken
) -> threading.Timer | None:
    if "TimeoutSeconds" not in definition:
        return None
    remaining = float(definition["TimeoutSeconds"]) - (time.time() - started_at)
    timer = threading.Timer(max(remaining, 0.0), root.cancel, args=("timeout",))
    timer.daemon = True
    timer.start()
    return timer


def _watch(
    store: JobStore, run_id: str, root: CancelToken, recorder: BatchRecorder, done: threading.Event
) -> None:
    """Stop requests from other processes; history made visible while the run goes on."""
    while not done.wait(0.5):
        try:
            if store.stop_requested(run_id):
                root.cancel("aborted")
            recorder.flush()
        except Exception:  # a busy database must not kill the run; the next tick retries
            continue
