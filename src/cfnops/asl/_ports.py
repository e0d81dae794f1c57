"""Ports: the small interfaces through which the interpreter reaches the outside world.

The interpreter never does I/O itself. It calls a :class:`TaskInvoker` for every Task,
a :class:`Clock` for time and for every Wait / retry interval, a :class:`Recorder` for
every history event and a :class:`BranchExecutor` to run Map iterations and Parallel
branches. A durable engine swaps these for checkpointed versions.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from cfnops import logcontext, tracing

__all__ = [
    "BranchExecutor",
    "BranchJob",
    "Clock",
    "RandomTaskTokens",
    "Recorder",
    "SkipState",
    "StateGate",
    "SystemClock",
    "TaskContext",
    "TaskInvoker",
    "TaskTokens",
    "ThreadBranchExecutor",
]

T = TypeVar("T")


@dataclass(frozen=True)
class TaskContext:
    """What an invoker may need besides resource and payload."""

    state_name: str
    execution_arn: str
    attempt: int = 0
    heartbeat_seconds: float | None = None
    task_token: str | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    region: str = "us-east-1"


@dataclass(frozen=True)
class BranchJob:
    """One Map iteration or Parallel branch, as handed to a :class:`BranchExecutor`.

    Calling the job runs it in-process (with its history events and cancellation). A
    durable executor may instead run ``program`` on ``input`` with ``variables`` as its
    own unit (see :func:`cfnops.asl.run_branch`), keyed by the deterministic ``key``
    (``"MapState/3"``, ``"Fork/branch-0"``).
    """

    key: str
    kind: str  # "map-iteration" | "parallel-branch"
    index: int
    program: Mapping[str, Any]
    input: Any
    variables: Mapping[str, Any]
    run: Callable[[], Any] = field(repr=False, compare=False)

    def __call__(self) -> Any:
        return self.run()


class TaskInvoker(Protocol):
    """Runs one Task: returns its JSON result or raises :class:`cfnops.asl.TaskFailure`.

    ``timeout`` is the seconds left before ``States.Timeout`` (None: no limit). An
    invoker that cannot honour it may ignore it: the interpreter enforces it as well.
    """

    def invoke(
        self, resource: str, payload: Any, *, timeout: float | None, context: TaskContext
    ) -> Any: ...


class Clock(Protocol):
    """Time source and sleeper (a durable engine turns ``sleep`` into a durable timer)."""

    def now(self) -> datetime: ...

    def sleep(self, seconds: float, cancel: threading.Event | None = None) -> bool:
        """Sleep; return False if ``cancel`` was set before the time was up."""
        ...


class Recorder(Protocol):
    """Receives Step Functions history events; returns the new event's id."""

    def record(self, event_type: str, previous_event_id: int, details: dict[str, Any]) -> int: ...


class BranchExecutor(Protocol):
    """Runs independent branch jobs (Map iterations, Parallel branches).

    ``max_concurrency`` 0 means unbounded. Futures may complete in any order; one future
    per job, in the jobs' order. Cancellation travels through the jobs themselves.
    """

    def submit_all(self, jobs: Sequence[BranchJob], max_concurrency: int) -> list[Future[Any]]: ...


class TaskTokens(Protocol):
    """Issues ``$$.Task.Token`` for a ``.waitForTaskToken`` Task as its attempt starts.

    Called on the thread running the state, before each attempt evaluates its payload
    (which may read ``$$.Task.Token``); a durable engine returns a token derived from the
    state's position so that a replay hands the same token out again.
    """

    def token(self, state_name: str) -> str: ...


class RandomTaskTokens:
    """A fresh random token per call (an in-memory execution has nothing to replay)."""

    def token(self, state_name: str) -> str:
        return uuid.uuid4().hex


@dataclass(frozen=True)
class SkipState:
    """Pass an entered state without running it, with ``output`` as its output.

    ``detail`` goes into the ``StateSkipped`` history event (who asked, why).
    """

    output: Any
    detail: Mapping[str, Any] = field(default_factory=dict)


class StateGate(Protocol):
    """Lets an operator hold a run between states and skip states not yet started.

    Step Functions has no such thing; the events it causes are cfnops' own
    (``StateSkipped``). Both calls are made on the thread running the branch.
    """

    def before_state(
        self, state_name: str, state: Mapping[str, Any], cancel: threading.Event
    ) -> None:
        """Called before a state is entered; blocks while the run is held (until released
        or ``cancel`` is set)."""
        ...

    def skip(self, state_name: str, state: Mapping[str, Any]) -> SkipState | None:
        """Called once the state is entered, before it runs: a :class:`SkipState` passes
        it (ignored for a Choice state, which has no single next state)."""
        ...


class SystemClock:
    """Wall-clock time; sleeps are interruptible through the cancel event."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    def sleep(self, seconds: float, cancel: threading.Event | None = None) -> bool:
        if seconds <= 0:
            return not (cancel is not None and cancel.is_set())
        if cancel is None:
            time.sleep(seconds)
            return True
        return not cancel.wait(seconds)


class ThreadBranchExecutor:
    """Runs branch jobs on threads, at most ``max_concurrency`` at a time (0: all at once)."""

    def __init__(self, max_threads: int = 40) -> None:
        self.max_threads = max_threads

    def submit_all(self, jobs: Sequence[BranchJob], max_concurrency: int) -> list[Future[Any]]:
        if len(jobs) == 1 and max_concurrency in (0, 1):
            fut: Future[Any] = Future()
            try:
                fut.set_result(jobs[0]())
            except BaseException as exc:
                fut.set_exception(exc)
            return [fut]
        limit = min(max_concurrency or len(jobs), self.max_threads, max(len(jobs), 1))
        pool = ThreadPoolExecutor(max_workers=limit, thread_name_prefix="asl-branch")
        # each branch under the caller's trace span and log fields
        futures = [pool.submit(tracing.carry(logcontext.carry(job))) for job in jobs]
        pool.shutdown(wait=False)
        return futures
