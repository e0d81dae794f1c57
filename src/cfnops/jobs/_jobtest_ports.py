"""The ports a mocked test run uses: mocked Task answers, instant time, one branch at a time.

- :class:`MockInvoker` answers each Task from the test case's mocked response for that
  state; each call of a state (a retry, another Map iteration) takes the next attempt,
  counted per state name from 0, as Step Functions Local's mock configuration numbers
  them (https://docs.aws.amazon.com/step-functions/latest/dg/sfn-local-mock-cfg-file.html).
- :class:`InstantClock` makes Wait states and retry intervals take no real time.
- :class:`SequentialBranchExecutor` runs Map iterations and Parallel branches one after
  the other, in order, so the visited states of a case are the same on every run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from cfnops.asl import BranchJob, CancelToken, TaskContext, TaskFailure
from cfnops.jobs._mockconfig import MockedResponse
from cfnops.jobs.errors import UnmockedTask

__all__ = ["InstantClock", "MockInvoker", "SequentialBranchExecutor", "TaskCall"]

# The error a Task ends with when its mock is missing: the run is cancelled at once, and
# the case reports UnmockedTask (a Catch on States.ALL never sees a successful path).
_UNMOCKED = "cfnops.UnmockedTask"


@dataclass(frozen=True)
class TaskCall:
    """One mocked Task call: the state, its attempt number and how it was answered."""

    state: str
    attempt: int
    response: str
    returned: bool
    error: str | None = None


class MockInvoker:
    """A :class:`cfnops.asl.TaskInvoker` answering from one test case's mocked responses."""

    def __init__(self, case: str, mocks: Mapping[str, MockedResponse]) -> None:
        self.case = case
        self.mocks = dict(mocks)
        self.calls: list[TaskCall] = []
        self.problem: UnmockedTask | None = None
        self.cancel: CancelToken | None = None
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def invoke(
        self, resource: str, payload: Any, *, timeout: float | None, context: TaskContext
    ) -> Any:
        name = context.state_name
        with self._lock:
            attempt = self._counts.get(name, 0)
            self._counts[name] = attempt + 1
        response = self.mocks.get(name)
        answer = response.answer(attempt) if response is not None else None
        if response is None or answer is None:
            self._unmocked(name, attempt, response)
        assert response is not None and answer is not None  # _unmocked raised
        with self._lock:
            self.calls.append(TaskCall(name, attempt, response.name, answer.returns, answer.error))
        if not answer.returns:
            raise TaskFailure(answer.error, answer.cause)
        return answer.value

    def _unmocked(self, name: str, attempt: int, response: MockedResponse | None) -> None:
        with self._lock:
            if self.problem is None:
                defined = response.defined if response is not None else None
                self.problem = UnmockedTask(self.case, name, attempt, defined)
        if self.cancel is not None:
            self.cancel.cancel("aborted")
        raise TaskFailure(_UNMOCKED, f"no mocked answer for {name!r} attempt {attempt}")


class InstantClock:
    """A clock whose sleeps return at once, moving its time forward by the time slept.

    With a ``deadline`` (the state machine's ``TimeoutSeconds``), a sleep that reaches it
    stops there and calls ``on_deadline`` (which times the run out), as real time would.
    """

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime.now(UTC)
        self._lock = threading.Lock()
        self.slept = 0.0
        self.deadline: datetime | None = None
        self.on_deadline: Callable[[], None] | None = None

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def sleep(self, seconds: float, cancel: threading.Event | None = None) -> bool:
        if cancel is not None and cancel.is_set():
            return False
        with self._lock:
            wake = self._now + timedelta(seconds=max(seconds, 0.0))
            timed_out = self.deadline is not None and wake >= self.deadline
            if timed_out and self.deadline is not None:
                wake = max(self.deadline, self._now)
            self.slept += (wake - self._now).total_seconds()
            self._now = wake
        if timed_out and self.on_deadline is not None:
            self.on_deadline()
            return False
        return True


class SequentialBranchExecutor:
    """Runs branch jobs one after the other on the calling thread, in their order."""

    def submit_all(self, jobs: Sequence[BranchJob], max_concurrency: int) -> list[Future[Any]]:
        futures: list[Future[Any]] = []
        for job in jobs:
            fut: Future[Any] = Future()
            try:
                fut.set_result(job())
            except BaseException as exc:
                fut.set_exception(exc)
            futures.append(fut)
        return futures
