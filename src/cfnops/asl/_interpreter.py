"""The public entry points: :class:`Interpreter` (one execution) and :func:`run_branch`.

:meth:`Interpreter.run` is the one way an execution is driven, in memory as on the
durable engine (:mod:`cfnops.jobs`): the engine hands in its checkpointing ports, the
run's recorded start time, its redrive count, a task-token source and a stop signal.
"""

from __future__ import annotations

import random
import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from cfnops.asl import _map, _states, _task  # noqa: F401 - registers the state handlers
from cfnops.asl._dataflow import Scope
from cfnops.asl._engine import Aborted, Branch, CancelToken, Execution, ExecutionInfo, dumps_event
from cfnops.asl._fake import FakeInvoker
from cfnops.asl._history import HistoryEvent, HistoryRecorder
from cfnops.asl._ports import (
    BranchExecutor,
    Clock,
    Recorder,
    StateGate,
    SystemClock,
    TaskInvoker,
    TaskTokens,
    ThreadBranchExecutor,
)
from cfnops.asl._timestamps import format_timestamp
from cfnops.asl.errors import StatesFailure

__all__ = ["ExecutionResult", "Interpreter", "StartPoint", "run_branch"]


@dataclass(frozen=True)
class StartPoint:
    """Begin an execution at ``state`` (a top-level state) with ``input`` as its input and
    ``variables`` in scope, instead of at ``StartAt`` with the execution input.

    A rerun from the middle of a job-net starts this way; ``$$.Execution.Input`` stays the
    execution input. ``context``, when given, is the whole context object ``$$`` (JSONata:
    ``$states.context``) that ``state`` sees, in place of the one the run builds (TestState's
    ``context`` parameter).
    """

    state: str
    input: Any
    variables: Mapping[str, Any] = field(default_factory=dict)
    context: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class ExecutionResult:
    """How an execution ended: ``status`` is SUCCEEDED, FAILED, TIMED_OUT or ABORTED."""

    status: str
    output: Any = None
    error: str | None = None
    cause: str | None = None
    events: tuple[HistoryEvent, ...] = field(default=(), repr=False)


class Interpreter:
    """Runs a (validated) state machine definition through the given ports.

    >>> Interpreter({"StartAt": "A", "States": {"A": {"Type": "Pass", "End": True}}}).run({})
    ExecutionResult(status='SUCCEEDED', output={}, error=None, cause=None)
    """

    def __init__(
        self,
        definition: Mapping[str, Any],
        *,
        invoker: TaskInvoker | None = None,
        clock: Clock | None = None,
        branch_executor: BranchExecutor | None = None,
        state_machine_name: str = "StateMachine",
        account: str = "111111111111",
        region: str = "us-east-1",
        role_arn: str | None = None,
        validate: bool = True,
    ) -> None:
        if validate:
            from cfnops.asl._validate import check_definition

            check_definition(definition)
        self.definition = definition
        self.invoker: TaskInvoker = invoker or FakeInvoker()
        self.clock: Clock = clock or SystemClock()
        self.branch_executor: BranchExecutor = branch_executor or ThreadBranchExecutor()
        self.name = state_machine_name
        self.account = account
        self.region = region
        self.role_arn = role_arn or f"arn:aws:iam::{account}:role/cfnops-states"

    @property
    def state_machine_arn(self) -> str:
        return f"arn:aws:states:{self.region}:{self.account}:stateMachine:{self.name}"

    def run(
        self,
        execution_input: Any = None,
        *,
        name: str | None = None,
        recorder: Recorder | None = None,
        rng: random.Random | None = None,
        started_at: datetime | None = None,
        cancel: CancelToken | None = None,
        redrive_count: int = 0,
        task_tokens: TaskTokens | None = None,
        start: StartPoint | None = None,
        gate: StateGate | None = None,
    ) -> ExecutionResult:
        """Run one execution to its end and return how it ended (never raises for ASL errors).

        ``started_at`` (default: now) anchors ``$$.Execution.StartTime`` and the
        state-machine ``TimeoutSeconds`` deadline, so a resumed run keeps both.
        ``cancel`` lets the caller stop the run: it ends ``ABORTED``, or ``TIMED_OUT`` when
        cancelled with the reason ``"timeout"``. Both end with ``error`` and ``cause``
        None, as DescribeExecution reports them for an execution stopped without an error
        or timed out (https://docs.aws.amazon.com/step-functions/latest/apireference/API_DescribeExecution.html).
        ``redrive_count`` is ``$$.Execution.RedriveCount``; ``task_tokens`` issues
        ``$$.Task.Token`` (default: random tokens); ``start`` begins elsewhere than at
        ``StartAt`` (see :class:`StartPoint`); ``gate`` lets an operator hold the run
        between states and skip states (see :class:`cfnops.asl.StateGate`).
        """
        value = {} if execution_input is None else execution_input
        began = started_at or self.clock.now()
        rec = recorder or HistoryRecorder(self.clock.now)
        root = cancel or CancelToken()
        execution = Execution(
            info=self._info(name or str(uuid.uuid4()), began, redrive_count),
            execution_input=value,
            invoker=self.invoker,
            clock=self.clock,
            recorder=rec,
            branch_executor=self.branch_executor,
            cancel=root,
            rng=rng,
            default_query_language=str(self.definition.get("QueryLanguage", "JSONPath")),
            task_tokens=task_tokens,
            gate=gate,
            context_override=(start.state, start.context)
            if start is not None and start.context is not None
            else None,
        )
        rec.record(
            "ExecutionStarted",
            0,
            {"input": dumps_event(value), "inputDetails": {"truncated": False},
             "roleArn": self.role_arn},
        )  # fmt: skip
        timer = self._start_timeout(began, root)
        # Step Functions links the first state's event to 0, not to ExecutionStarted.
        scope = Scope(None, dict(start.variables)) if start is not None else Scope()
        branch = Branch(execution, self.definition, scope=scope, cancel=root, previous_event=0)
        try:
            if start is not None:
                output = branch.run(start.input, start_at=start.state)
            else:
                output = branch.run(value)
        except StatesFailure as failure:
            return self._failed(rec, branch.last_event, failure)
        except Aborted:
            return self._stopped(rec, branch.last_event, root)
        finally:
            if timer is not None:
                timer.cancel()
        if root.reason == "timeout":
            return self._stopped(rec, branch.last_event, root)
        rec.record(
            "ExecutionSucceeded",
            branch.last_event,
            {"output": dumps_event(output), "outputDetails": {"truncated": False}},
        )
        return self._result(rec, "SUCCEEDED", output, None, None)

    def _info(self, exec_name: str, began: datetime, redrive_count: int) -> ExecutionInfo:
        """``$$.Execution`` of the run named ``exec_name`` that began at ``began``."""
        return ExecutionInfo(
            execution_arn=f"arn:aws:states:{self.region}:{self.account}:execution:"
            f"{self.name}:{exec_name}",
            name=exec_name,
            state_machine_arn=self.state_machine_arn,
            state_machine_name=self.name,
            role_arn=self.role_arn,
            start_time=format_timestamp(began),
            region=self.region,
            redrive_count=redrive_count,
        )

    def _start_timeout(self, began: datetime, root: CancelToken) -> threading.Timer | None:
        """Arm the state-machine ``TimeoutSeconds`` (counted from ``began``): on expiry it
        cancels ``root`` with the reason ``"timeout"``. None when there is no timeout."""
        if "TimeoutSeconds" not in self.definition:
            return None
        deadline = began + timedelta(seconds=float(self.definition["TimeoutSeconds"]))
        remaining = max((deadline - self.clock.now()).total_seconds(), 0.0)
        timer = threading.Timer(remaining, root.cancel, args=("timeout",))
        timer.daemon = True
        timer.start()
        return timer

    def _failed(self, rec: Recorder, last_event: int, failure: StatesFailure) -> ExecutionResult:
        """Record ExecutionFailed with the error and cause the failure carries."""
        details: dict[str, Any] = {}
        if failure.error is not None:
            details["error"] = failure.error
        if failure.cause is not None:
            details["cause"] = failure.cause
        rec.record("ExecutionFailed", last_event, details)
        return self._result(rec, "FAILED", None, failure.error, failure.cause)

    def _stopped(self, rec: Recorder, last_event: int, root: CancelToken) -> ExecutionResult:
        """Record how a cancelled run ended: TIMED_OUT when cancelled for ``"timeout"``,
        else ABORTED."""
        if root.reason == "timeout":
            rec.record("ExecutionTimedOut", last_event, {})
            return self._result(rec, "TIMED_OUT", None, None, None)
        rec.record("ExecutionAborted", last_event, {})
        return self._result(rec, "ABORTED", None, None, None)

    @staticmethod
    def _result(
        rec: Recorder, status: str, output: Any, error: str | None, cause: str | None
    ) -> ExecutionResult:
        events = tuple(rec.events) if isinstance(rec, HistoryRecorder) else ()
        return ExecutionResult(status, output, error, cause, events)


def run_branch(
    execution: Execution,
    program: Mapping[str, Any],
    value: Any,
    *,
    variables: Mapping[str, Any] | None = None,
    cancel: CancelToken | None = None,
    previous_event: int = 0,
) -> Any:
    """Run one state list (a Map iteration's ItemProcessor or a Parallel branch) to its end.

    The seam for a durable engine: it can run each branch as its own unit with the same
    ports. Returns the branch output; raises :class:`StatesFailure` for an ASL error.
    """
    branch = Branch(
        execution,
        program,
        scope=Scope(Scope(None, dict(variables or {}))),
        cancel=cancel or CancelToken(execution.cancel),
        previous_event=previous_event,
        query_language=program.get("QueryLanguage"),
    )
    return branch.run(value)
