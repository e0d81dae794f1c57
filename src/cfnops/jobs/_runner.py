"""One durable execution of a job-net: :meth:`cfnops.asl.Interpreter.run` on checkpointed
ports (:mod:`cfnops.jobs._durable_ports`).

The run's recorded start time anchors ``$$.Execution.StartTime`` and the state-machine
``TimeoutSeconds`` (a recovered run gets no fresh budget); the watcher thread (one for
every run of the process) turns a stop request written by another process into the
interpreter's stop signal; task tokens derive from the state's position, so a replay
hands out the same ``$$.Task.Token``.
"""

from __future__ import annotations

import logging
import os
import random
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cfnops.asl import CancelToken, ExecutionResult, Interpreter, StartPoint, TaskInvoker
from cfnops.durable import Fence, Position, Visit
from cfnops.jobs._controls import RunControls
from cfnops.jobs._durable_ports import (
    BatchRecorder,
    DurableBranchExecutor,
    DurableClock,
    DurableInvoker,
    EffectKeys,
)
from cfnops.jobs._pools import with_pools
from cfnops.jobs._store import JobStore, RunRow

__all__ = [
    "JobResult",
    "execute_run",
    "execution_arn",
    "iter_states",
    "only_program",
    "redrive_point",
    "top_level_path",
]

_log = logging.getLogger("cfnops.jobs")
WATCH_SECONDS = 0.5
PERSISTENT_TICKS = 20  # 10 s of failed ticks in a row


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


def only_program(definition: Mapping[str, Any], state: str) -> dict[str, Any]:
    """The definition with ``state`` made the last one (a rerun ``--only``): End, no Next,
    no Catch."""
    states = dict(definition["States"])
    target = {k: v for k, v in states[state].items() if k not in ("Next", "Catch")}
    if target.get("Type") not in ("Succeed", "Fail"):
        target["End"] = True
    states[state] = target
    return {**definition, "States": states}


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
    history: list[dict[str, Any]], top_level: frozenset[str], failed: list[Position]
) -> tuple[str, int] | None:
    """Where a redrive's history starts: the first top-level state entry holding a failed
    effect (its position's first visit), else the last state the execution entered."""
    entries = set()
    for position in failed:
        head = position.segments[0] if position.segments else None
        if isinstance(head, Visit):
            entries.add((head.state, head.visit))
    path = top_level_path(history, top_level)
    for entry in path:
        if entry in entries:
            return entry
    return path[-1] if path else None


def execution_arn(row: RunRow, region: str, account: str) -> str:
    return f"arn:aws:states:{region}:{account}:execution:{row.machine_name}:{row.run_id}"


class _PositionTokens:
    """``$$.Task.Token`` from the state entry's position (the same on every replay)."""

    def __init__(self, keys: EffectKeys) -> None:
        self.keys = keys

    def token(self, state_name: str) -> str:
        token = self.keys.token()
        if token is None:  # pragma: no cover - a Task always runs inside a keyed frame
            raise RuntimeError(f"no position for the task token of state {state_name!r}")
        return token


InvokerFactory = Callable[[RunRow], TaskInvoker]


def execute_run(
    store: JobStore,
    run_id: str,
    invoker_factory: InvokerFactory,
    *,
    region: str = "us-east-1",
    account: str,
    fence: Fence | None = None,
) -> JobResult:
    """Run (or replay to the end) the run ``run_id``; idempotent once it has ended.

    ``account`` and ``region`` go into the execution, state-machine and role ARNs.
    ``fence`` (the durable execution's claim on the run): checked before every effect,
    and in the transaction of every effect's checkpoint and of the run's end, so an
    execution that lost the run to another stops instead of repeating its effects.
    """
    if fence is not None:
        store = store.fenced(fence)
    row, known, actions = store.opening(run_id)
    if row.status != "RUNNING":
        return JobResult(run_id, row.status, row.output, row.error, row.cause)
    keys = EffectKeys(run_id)
    found = row.options.get("redriveFrom") if row.history_base else None
    resume = (str(found[0]), int(found[1])) if found else None
    recorder = BatchRecorder(
        store, run_id, keys, base=row.history_base, known=known, resume_at=resume
    )
    if known:  # a replay (recovery): its events are written again
        store.delete_events_after(run_id, row.history_base)
    controls = RunControls(
        store, run_id, keys, recorder,
        presets=row.options.get("skips") or None,
        catch_up=sum(1 for kind, _ in known.values() if kind.endswith("StateEntered")),
    )  # fmt: skip
    controls.refresh(actions)
    run = _Run(row, store, keys, recorder, controls)
    result = _run_watched(run, _interpreter(run, invoker_factory, fence, account, region))
    recorder.finish(result.status, result.output, result.error, result.cause)
    return JobResult(run_id, result.status, result.output, result.error, result.cause)


@dataclass(frozen=True)
class _Run:
    """One execution's run and the pieces that make it durable, built once per execution."""

    row: RunRow
    store: JobStore
    keys: EffectKeys
    recorder: BatchRecorder
    controls: RunControls


def _interpreter(
    run: _Run,
    invoker_factory: InvokerFactory,
    fence: Fence | None,
    account: str,
    region: str,
) -> Interpreter:
    """The run's interpreter, its effects, waits and branches made durable."""
    row, store, keys, recorder = run.row, run.store, run.keys, run.recorder
    run_id, definition = row.run_id, row.definition

    def record(event: str, details: dict[str, Any], previous: int | None) -> None:
        """An invoker's event after ``previous`` (unknown: after the run's latest)."""
        recorder.record(event, previous or recorder.last_id, details)

    only = row.options.get("only")
    return Interpreter(
        only_program(definition, str(only)) if only else definition,
        invoker=DurableInvoker(
            with_pools(invoker_factory(row), definition, store.engine, run_id, recorder),
            store,
            run_id,
            keys,
            _before_effect(recorder, fence),
            forced=run.controls.forced,
            record=record,
        ),
        clock=DurableClock(store, run_id, keys, recorder.flush),
        branch_executor=DurableBranchExecutor(
            keys, lambda path: store.put_step(run_id, path, "branch", ok=False)
        ),
        state_machine_name=row.machine_name,
        account=account,
        region=region,
        role_arn=f"arn:aws:iam::{account}:role/cfnops-jobs",
        validate=False,  # checked when the run was created
    )  # fmt: skip


def _run_watched(run: _Run, interpreter: Interpreter) -> ExecutionResult:
    """Interpret the run on this thread while the watcher thread follows its controls."""
    row, keys, recorder, controls = run.row, run.keys, run.recorder, run.controls
    run_id = row.run_id
    begin = row.options.get("start")
    start = (
        StartPoint(begin["state"], begin["input"], begin.get("variables") or {}) if begin else None
    )
    root = CancelToken()
    watch = _Watch(run.store, run_id, root, recorder, controls)
    _WATCHER.add(watch)
    keys.push(Position())  # the top-level frame, on this thread (the interpreter runs here)
    try:
        return interpreter.run(
            row.input,
            name=run_id,
            recorder=recorder,
            rng=random.Random(run_id),
            started_at=datetime.fromtimestamp(row.started_at, tz=UTC),
            cancel=root,
            redrive_count=row.redrive_count,
            task_tokens=_PositionTokens(keys),
            start=start,
            gate=controls,
        )
    finally:
        _WATCHER.remove(watch)


def _before_effect(recorder: BatchRecorder, fence: Fence | None) -> Callable[[], None]:
    """Before a Task's effect: the run is still this execution's, its history is out."""
    if fence is None:
        return recorder.flush

    def before() -> None:
        fence.check("a Task's effect")
        recorder.flush()

    return before


class _Watch:
    """One run's stop requests and operator actions from other processes, and its
    history made visible while it goes on: a tick every ``WATCH_SECONDS``.

    A failing tick (a busy database) must not kill the run: the next tick retries. The
    first failure is logged with its cause; a failure that persists (``PERSISTENT_TICKS``
    ticks in a row) is logged as an error every as many ticks, since ``job stop``, hold
    and skip cannot reach the run meanwhile; recovery is logged too.
    """

    def __init__(
        self,
        store: JobStore,
        run_id: str,
        root: CancelToken,
        recorder: BatchRecorder,
        controls: RunControls,
    ) -> None:
        self.store = store
        self.run_id = run_id
        self.root = root
        self.recorder = recorder
        self.controls = controls
        self.failing = 0
        self.ended = False
        self.lock = threading.Lock()  # held during a tick
        self.about = {"run_id": run_id}  # ticks are not on the run's thread: lines name it

    def tick(self) -> None:
        run_id, about = self.run_id, self.about
        try:
            if self.store.stop_requested(run_id):
                self.root.cancel("aborted")
            self.controls.refresh()
            self.recorder.flush()
        except Exception as exc:
            self.failing += 1
            if self.failing == 1:
                _log.warning("run %s: watcher tick failed, retrying: %s", run_id, exc, extra=about)
            elif self.failing % PERSISTENT_TICKS == 0:
                _log.error(
                    "run %s: watcher failing for %.0f s (%s): job stop, hold and skip do not "
                    "reach this run until the database answers again",
                    run_id,
                    self.failing * WATCH_SECONDS,
                    exc,
                    extra=about,
                )
            return
        if self.failing:
            _log.warning(
                "run %s: watcher recovered after %d failed tick(s)",
                run_id,
                self.failing,
                extra=about,
            )
            self.failing = 0


class _Watcher:
    """One thread ticking every run this process executes (a thread per run cost a worker
    draining short runs more CPU than the run's own states); it ends when no run is left
    and starts again with the next."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._watches: list[_Watch] = []
        self._thread: threading.Thread | None = None

    def add(self, watch: _Watch) -> None:
        with self._lock:
            self._watches.append(watch)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="job-watch", daemon=True)
                self._thread.start()

    def remove(self, watch: _Watch) -> None:
        """No tick of ``watch`` after this returns (one under way is waited for, up to 2 s)."""
        watch.ended = True
        with self._lock:
            self._watches.remove(watch)
        if watch.lock.acquire(timeout=2):
            watch.lock.release()

    def _loop(self) -> None:
        pause = threading.Event()
        while True:
            pause.wait(WATCH_SECONDS)
            with self._lock:
                if not self._watches:
                    self._thread = None
                    return
                watches = list(self._watches)
            for watch in watches:
                with watch.lock:
                    if not watch.ended:
                        watch.tick()

    def forget(self) -> None:
        """In a forked child: the parent's watcher thread and runs are not there."""
        self._lock = threading.Lock()
        self._watches = []
        self._thread = None


_WATCHER = _Watcher()
os.register_at_fork(after_in_child=_WATCHER.forget)


def _watch(
    store: JobStore,
    run_id: str,
    root: CancelToken,
    recorder: BatchRecorder,
    controls: RunControls,
    done: threading.Event,
) -> None:
    """One run's ticks on the calling thread until ``done`` (:class:`_Watch`)."""
    watch = _Watch(store, run_id, root, recorder, controls)
    while not done.wait(WATCH_SECONDS):
        watch.tick()
