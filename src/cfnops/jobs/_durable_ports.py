"""Checkpointed versions of the ASL ports: the heart of durable job-net execution.

An execution is *replayed* after a crash (or a redrive): pure states are evaluated
again (cheap, no writes), every Task and every wait looks itself up by its position
first. A position (:class:`cfnops.durable.Position`) names the effect by where it
happens, not by when:

    Visit("StopInstances", 1), Branch(1, 0), Visit("StopHttpd", 2), Attempt(1)
        Map "StopInstances" (first visit), its first fan-out's iteration 0, the second
        visit of "StopHttpd", its first task attempt
    Visit("WaitForCluster", 3), Sleep(1)
        the third visit of a Wait state, its first sleep

Visit counters are kept per branch (a Map iteration or Parallel branch walks its states
on one thread), so positions do not depend on how concurrent branches interleave.
Checkpoints live in the durable engine's store (:class:`cfnops.durable.CheckpointStore`).
"""

from __future__ import annotations

import base64
import hashlib
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from cfnops import logcontext, tracing
from cfnops.asl import BranchJob, TaskContext, TaskInvoker
from cfnops.asl.errors import StatesFailure, TaskFailure
from cfnops.database import retry_while_unreachable
from cfnops.durable import Attempt, Branch, Mark, Position, Sleep, Visit
from cfnops.jobs._store import JobStore, dumps
from cfnops.jobs._threads import on_helper

__all__ = [
    "BatchRecorder",
    "DurableBranchExecutor",
    "DurableClock",
    "DurableInvoker",
    "EffectKeys",
    "Forced",
    "token_run_id",
]

TOKEN_PREFIX = "cfnops1"


def make_token(run_id: str, entry: Position) -> str:
    """The task token of a state entry (the same on every replay, and across the
    upgrade that typed positions: see :func:`cfnops.jobs._legacy_keys.digest_text`)."""
    from cfnops.jobs._legacy_keys import digest_text  # only a task token needs it

    digest = hashlib.sha256(f"{run_id}\n{digest_text(entry)}".encode()).hexdigest()[:24]
    raw = base64.urlsafe_b64encode(run_id.encode()).decode().rstrip("=")
    return f"{TOKEN_PREFIX}.{raw}.{digest}"


def token_run_id(token: str) -> str | None:
    """The run that issued a task token (None if the token is not one of ours)."""
    parts = token.split(".")
    if len(parts) != 3 or parts[0] != TOKEN_PREFIX:
        return None
    pad = "=" * (-len(parts[1]) % 4)
    try:
        return base64.urlsafe_b64decode(parts[1] + pad).decode()
    except ValueError:
        return None


@dataclass
class _Frame:
    path: Position
    visits: dict[str, int] = field(default_factory=dict)
    current: Position | None = None  # the state entry being run
    attempts: int = 0
    sleeps: int = 0
    submits: int = 0
    task_key: Position | None = None
    task_open: bool = False  # task_key is the current state's (its events follow it)


class EffectKeys:
    """Deterministic positions for the effects of one execution (see the module docstring)."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self._local = threading.local()
        self._stash: dict[tuple[str, str], list[Position]] = {}
        # Task attempt -> id of its latest event (a TaskForced event links to it)
        self._task_events: dict[Position, int] = {}
        self._lock = threading.Lock()

    def frame(self) -> _Frame | None:
        return getattr(self._local, "frame", None)

    def push(self, path: Position) -> _Frame | None:
        previous = self.frame()
        self._local.frame = _Frame(path)
        return previous

    def pop(self, previous: _Frame | None) -> None:
        self._local.frame = previous

    def on_event(self, event_type: str, details: dict[str, Any]) -> None:
        frame = self.frame()
        if frame is None:
            return
        if event_type.endswith("StateEntered"):
            if frame.task_open and frame.task_key is not None:  # the branch left its Task
                frame.task_open = False
                with self._lock:
                    self._task_events.pop(frame.task_key, None)
            name = str(details.get("name"))
            visit = frame.visits.get(name, 0) + 1
            frame.visits[name] = visit
            frame.current = frame.path.then(Visit(name, visit))
            frame.attempts = frame.sleeps = frame.submits = 0
        elif event_type in ("TaskScheduled", "LambdaFunctionScheduled"):
            if frame.current is None:  # pragma: no cover - a Task is always a state's
                return
            frame.attempts += 1
            frame.task_key = frame.current.then(Attempt(frame.attempts))
            frame.task_open = True
            text = str(details.get("parameters", details.get("input", "")))
            entered = frame.current.last_visit()
            state = entered.state if entered is not None else ""
            with self._lock:  # for an invoker called on the core's timeout helper thread
                self._stash.setdefault((state, text), []).append(frame.task_key)

    def placed(self, event_id: int) -> None:
        """``event_id`` was given to the event just recorded on this thread: the latest
        event of the Task attempt open on this branch, if any (Scheduled, Started, ...)."""
        frame = self.frame()
        if frame is not None and frame.task_open and frame.task_key is not None:
            with self._lock:
                self._task_events[frame.task_key] = event_id

    def task_event(self, key: Position) -> int | None:
        """The id of the latest event of Task attempt ``key`` (None: not recorded here)."""
        with self._lock:
            return self._task_events.get(key)

    def task_key(self, state_name: str, payload: Any) -> Position:
        frame = self.frame()
        text = dumps(payload)
        with self._lock:
            pending = self._stash.get((state_name, text))
            if frame is not None and frame.task_key is not None:
                if pending and frame.task_key in pending:
                    pending.remove(frame.task_key)
                return frame.task_key
            if pending:
                return pending.pop(0)
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        return Position.of(Mark(f"unplaced task {state_name} {digest}"))

    def sleep_key(self) -> Position:
        frame = self.frame()
        if frame is None or frame.current is None:
            return Position.of(Mark(f"unplaced sleep {threading.get_ident()}"))
        frame.sleeps += 1
        return frame.current.then(Sleep(frame.sleeps))

    def branch_base(self) -> tuple[Position, int]:
        """The state entry starting a fan-out, and which of its fan-outs this is."""
        frame = self.frame()
        if frame is None or frame.current is None:
            return Position.of(Mark("unplaced fan-out")), 1
        frame.submits += 1
        return frame.current, frame.submits

    def token(self) -> str | None:
        frame = self.frame()
        if frame is None or frame.current is None:
            return None
        return make_token(self.run_id, frame.current)


ForceSource = Callable[[str, Position], "Forced | None"]


@dataclass(frozen=True)
class Forced:
    """An operator's answer for a Task attempt (``cfnops job force``)."""

    ok: bool
    output: Any = None
    error: str | None = None
    cause: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)


class DurableInvoker:
    """Runs each Task once: a finished result (or failure) is replayed from the store.

    With a ``forced`` source, the call runs on a helper thread so that an operator's
    force can end the attempt while the call is in flight (the call is told to stop
    through its context's cancel event, and its answer is ignored).
    """

    def __init__(
        self,
        inner: TaskInvoker,
        store: JobStore,
        run_id: str,
        keys: EffectKeys,
        before_effect: Callable[[], None],
        *,
        forced: ForceSource | None = None,
        record: Callable[[str, dict[str, Any], int | None], None] | None = None,
    ) -> None:
        self.inner = inner
        self.store = store
        self.run_id = run_id
        self.keys = keys
        self.before_effect = before_effect
        self.forced = forced
        self.record = record
        self.fresh = 0

    def invoke(
        self, resource: str, payload: Any, *, timeout: float | None, context: TaskContext
    ) -> Any:
        key = self.keys.task_key(context.state_name, payload)
        done = self.store.get_step(self.run_id, key)
        if done is not None:
            if done.kind == "forced":
                self._event(context.state_name, key, done.ok, done.result, done.error, done.cause)
            if done.ok:
                return done.result
            raise TaskFailure(done.error, done.cause)
        self.fresh += 1
        self.before_effect()
        token = make_token(self.run_id, key.entry())
        force = self.forced(context.state_name, key) if self.forced is not None else None
        if force is not None:
            return self._apply(force, key, context.state_name)
        if self.forced is None:
            ctx = replace(context, task_token=token)
            return self._settle(key, context, lambda: self.inner.invoke(
                resource, payload, timeout=timeout, context=ctx))  # fmt: skip
        stop = threading.Event()
        ctx = replace(context, task_token=token, cancel=stop)
        box: dict[str, Any] = {}
        finished = threading.Event()

        def call() -> None:
            try:
                box["result"] = self.inner.invoke(resource, payload, timeout=timeout, context=ctx)
            except BaseException as exc:
                box["error"] = exc
            finally:
                finished.set()

        # On a reused helper thread, with the caller's trace span and log fields (state,
        # run id).
        on_helper(tracing.carry(logcontext.carry(call)))
        while not finished.wait(0.1):
            if context.cancel.is_set():
                stop.set()
            force = self.forced(context.state_name, key)
            if force is not None:
                stop.set()
                return self._apply(force, key, context.state_name)
        return self._settle(key, context, lambda: _unbox(box))

    def _settle(self, key: Position, context: TaskContext, call: Callable[[], Any]) -> Any:
        try:
            result = call()
        except StatesFailure as failure:
            if context.cancel.is_set():
                raise  # abandoned (timeout, stop): not the task's own answer
            self._checkpoint(key, ok=False, error=failure.error, cause=failure.cause)
            raise TaskFailure(failure.error, failure.cause) from None
        if context.cancel.is_set():
            return result
        self._checkpoint(key, ok=True, result=result)
        return result

    def _checkpoint(self, key: Position, **outcome: Any) -> None:
        """Record a Task's answer: the effect has happened, so a database that cannot be
        reached is waited for (failing here would run the effect again on resume)."""
        retry_while_unreachable(
            lambda: self.store.put_step(self.run_id, key, "task", **outcome),
            what=f"the result of task {key} of run {self.run_id}",
        )

    def _apply(self, force: Forced, key: Position, state_name: str) -> Any:
        self.store.put_step(
            self.run_id, key, "forced", ok=force.ok, result=force.output,
            error=force.error, cause=force.cause,
        )  # fmt: skip
        self._event(state_name, key, force.ok, force.output, force.error, force.cause)
        if force.ok:
            return force.output
        raise TaskFailure(force.error, force.cause)

    def _event(
        self,
        state_name: str,
        key: Position,
        ok: bool,
        output: Any,
        error: str | None,
        cause: str | None,
    ) -> None:
        if self.record is None:
            return
        force = self.forced(state_name, key) if self.forced is not None else None
        details: dict[str, Any] = {"name": state_name, "status": "SUCCEEDED" if ok else "FAILED"}
        if ok:
            details["output"] = dumps(output)
        else:
            details.update({k: v for k, v in (("error", error), ("cause", cause)) if v is not None})
        # Linked to the forced Task's own latest event, not the run's latest (another
        # branch's while branches run side by side), as Step Functions links each event
        # to the one it follows on its branch (HistoryEvent.previousEventId).
        self.record(
            "TaskForced", {**(force.detail if force else {}), **details}, self.keys.task_event(key)
        )


def _unbox(box: dict[str, Any]) -> Any:
    if "error" in box:
        raise box["error"]
    return box["result"]


class DurableClock:
    """Waits and retry intervals end at a deadline recorded when they first began."""

    def __init__(
        self, store: JobStore, run_id: str, keys: EffectKeys, before_effect: Callable[[], None]
    ) -> None:
        self.store = store
        self.run_id = run_id
        self.keys = keys
        self.before_effect = before_effect

    def now(self) -> datetime:
        return datetime.now(UTC)

    def sleep(self, seconds: float, cancel: threading.Event | None = None) -> bool:
        if seconds <= 0:
            return not (cancel is not None and cancel.is_set())
        key = self.keys.sleep_key()
        self.before_effect()
        deadline = self.store.deadline(self.run_id, key, time.time() + seconds)
        remaining = deadline - time.time()
        if remaining <= 0:
            return not (cancel is not None and cancel.is_set())
        if cancel is None:
            time.sleep(remaining)
            return True
        return not cancel.wait(remaining)


class BatchRecorder:
    """Keeps history events in memory and writes them in batches (no per-state write).

    ``base`` offsets ids after a redrive (the ``ExecutionRedriven`` event's id) and
    ``resume_at`` (a top-level state and its visit) is where a redrive's history starts:
    the replay of everything before it is not recorded again. A replay keeps the
    timestamps of events already stored with the same id and type.
    """

    def __init__(
        self,
        store: JobStore,
        run_id: str,
        keys: EffectKeys,
        *,
        base: int,
        known: dict[int, tuple[str, float]],
        resume_at: tuple[str, int] | None = None,
        batch: int = 5000,
    ) -> None:
        self.resume_at = resume_at
        self._entries = 0
        self.store = store
        self.run_id = run_id
        self.keys = keys
        self.base = base
        self.known = known
        self.batch = batch
        self._lock = threading.Lock()
        self._flush_lock = threading.Lock()
        self._pending: list[tuple[int, int, str, float, str]] = []
        self.count = 0
        self.last_id = base

    def record(self, event_type: str, previous_event_id: int, details: dict[str, Any]) -> int:
        self.keys.on_event(event_type, details)
        if self.base and event_type == "ExecutionStarted":
            return self.base
        if self.resume_at is not None:  # a redrive: the states before it are not re-recorded
            if event_type.startswith("Execution"):  # the end is always recorded
                self.resume_at = None
            elif event_type.endswith("StateEntered") and details.get("name") == self.resume_at[0]:
                self._entries += 1
                if self._entries == self.resume_at[1]:
                    self.resume_at = None
            if self.resume_at is not None:
                return self.last_id
        with self._lock:
            self.count += 1
            event_id = self.base + self.count
            prev = previous_event_id if previous_event_id else self.base
            seen = self.known.get(event_id)
            ts = seen[1] if seen is not None and seen[0] == event_type else time.time()
            self._pending.append((event_id, prev, event_type, ts, dumps(details)))
            self.last_id = event_id
            full = len(self._pending) >= self.batch
        self.keys.placed(event_id)
        if full:
            self.flush()
        return event_id

    def flush(self) -> None:
        self._write(lambda rows: self.store.write_events(self.run_id, rows))

    def finish(self, status: str, output: Any, error: str | None, cause: str | None) -> None:
        """The events not yet written and the run's end, in one transaction."""
        self._write(
            lambda rows: self.store.finish_run(
                self.run_id, status, output, error, cause, events=rows
            )
        )

    def _write(self, write: Callable[[list[tuple[int, int, str, float, str]]], None]) -> None:
        with self._flush_lock:
            with self._lock:
                rows, self._pending = self._pending, []
            try:
                write(rows)
            except BaseException:  # not written: kept for the next flush, in order
                with self._lock:
                    self._pending[:0] = rows
                raise


class DurableBranchExecutor:
    """Runs Map iterations and Parallel branches on threads, each with its own key path.

    A branch that fails is marked (a failed ``branch`` checkpoint at its position) so that
    a redrive runs it again from its start, as Step Functions re-runs unsuccessful
    iterations and branches.
    """

    def __init__(
        self,
        keys: EffectKeys,
        on_failure: Callable[[Position], None] | None = None,
        max_threads: int = 8,
    ) -> None:
        self.keys = keys
        self.on_failure = on_failure
        self.max_threads = max_threads

    def _wrap(self, job: BranchJob, path: Position) -> Callable[[], Any]:
        def run() -> Any:
            previous = self.keys.push(path)
            try:
                return job()
            except StatesFailure:
                if self.on_failure is not None:
                    self.on_failure(path)
                raise
            finally:
                self.keys.pop(previous)

        return run

    def submit_all(self, jobs: Sequence[BranchJob], max_concurrency: int) -> list[Future[Any]]:
        entry, launch = self.keys.branch_base()
        runs = [self._wrap(job, entry.then(Branch(launch, job.index))) for job in jobs]
        if len(runs) == 1 or max_concurrency == 1:
            return _inline(runs) if len(runs) == 1 else self._pool(runs, 1)
        return self._pool(runs, min(max_concurrency or len(runs), self.max_threads))

    @staticmethod
    def _pool(runs: list[Callable[[], Any]], limit: int) -> list[Future[Any]]:
        pool = ThreadPoolExecutor(max_workers=max(limit, 1), thread_name_prefix="job-branch")
        # each branch under the caller's trace span and log fields
        futures = [pool.submit(tracing.carry(logcontext.carry(run))) for run in runs]
        pool.shutdown(wait=False)
        return futures


def _inline(runs: list[Callable[[], Any]]) -> list[Future[Any]]:
    fut: Future[Any] = Future()
    try:
        fut.set_result(runs[0]())
    except BaseException as exc:
        fut.set_exception(exc)
    return [fut]
