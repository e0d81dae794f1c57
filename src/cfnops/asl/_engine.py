"""The execution core shared by every state: branches, events, context object, errors.

A :class:`Branch` walks the states of one state list (the top level, a Parallel branch or
a Map iteration). Every effect goes through the ports held by :class:`Execution`.
"""

from __future__ import annotations

import copy
import json
import random
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cfnops import logcontext, tracing
from cfnops.asl._dataflow import Scope, StateError
from cfnops.asl._ports import RandomTaskTokens
from cfnops.asl._timestamps import format_timestamp
from cfnops.asl._values import MAX_PAYLOAD_BYTES
from cfnops.asl.errors import StatesFailure
from cfnops.errors import is_host_fault

if TYPE_CHECKING:
    from cfnops.asl._ports import (
        BranchExecutor,
        Clock,
        Recorder,
        SkipState,
        StateGate,
        TaskInvoker,
        TaskTokens,
    )

__all__ = ["Aborted", "Branch", "CancelToken", "Execution", "ExecutionInfo", "StateOutcome"]


class Aborted(BaseException):
    """The branch was cancelled (a sibling failed, or the execution timed out/stopped)."""


class CancelToken:
    """A cancellation flag that propagates to child tokens."""

    def __init__(self, parent: CancelToken | None = None) -> None:
        self.event = threading.Event()
        self._children: list[CancelToken] = []
        self._lock = threading.Lock()
        self.reason: str | None = None
        if parent is not None:
            with parent._lock:
                parent._children.append(self)
                if parent.event.is_set():
                    self.reason = parent.reason
                    self.event.set()

    def cancel(self, reason: str = "aborted") -> None:
        with self._lock:
            if self.event.is_set():
                return
            self.reason = reason
            self.event.set()
            children = list(self._children)
        for child in children:
            child.cancel(reason)

    @property
    def cancelled(self) -> bool:
        return self.event.is_set()


@dataclass(frozen=True)
class ExecutionInfo:
    """Identity of one execution, as the context object ``$$`` shows it."""

    execution_arn: str
    name: str
    state_machine_arn: str
    state_machine_name: str
    role_arn: str
    start_time: str
    region: str = "us-east-1"
    redrive_count: int = 0


@dataclass(slots=True)
class StateOutcome:
    next_state: str | None
    output: Any
    assigned: dict[str, Any] | None = None


def dumps_event(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class Execution:
    """Shared by every branch of one execution: the ports, identity and input."""

    def __init__(
        self,
        *,
        info: ExecutionInfo,
        execution_input: Any,
        invoker: TaskInvoker,
        clock: Clock,
        recorder: Recorder,
        branch_executor: BranchExecutor,
        cancel: CancelToken,
        rng: random.Random | None = None,
        default_query_language: str = "JSONPath",
        task_tokens: TaskTokens | None = None,
        gate: StateGate | None = None,
        context_override: tuple[str, Mapping[str, Any]] | None = None,
    ) -> None:
        self.info = info
        self._override = context_override
        self.gate = gate
        self.task_tokens: TaskTokens = task_tokens or RandomTaskTokens()
        self.input = execution_input
        self.invoker = invoker
        self.clock = clock
        self.recorder = recorder
        self.branch_executor = branch_executor
        self.cancel = cancel
        self.rng = rng or random.Random()
        self.default_query_language = default_query_language
        self._execution_ctx = {
            "Id": info.execution_arn,
            "Input": execution_input,
            "StartTime": info.start_time,
            "Name": info.name,
            "RoleArn": info.role_arn,
            "RedriveCount": info.redrive_count,
        }
        self._machine_ctx = {"Id": info.state_machine_arn, "Name": info.state_machine_name}

    def context(self, state_name: str, entered_time: str, **extra: Any) -> dict[str, Any]:
        if self._override is not None and self._override[0] == state_name:
            return copy.deepcopy(dict(self._override[1]))
        state: dict[str, Any] = {"Name": state_name, "EnteredTime": entered_time}
        state.update(extra)
        return {
            "Execution": self._execution_ctx,
            "StateMachine": self._machine_ctx,
            "State": state,
        }


StateHandler = Callable[["Branch", str, Mapping[str, Any], Any, dict[str, Any]], StateOutcome]
HANDLERS: dict[str, StateHandler] = {}


def handler(state_type: str) -> Callable[[StateHandler], StateHandler]:
    def register(fn: StateHandler) -> StateHandler:
        HANDLERS[state_type] = fn
        return fn

    return register


class Branch:
    """Walks one list of states; the unit a durable engine may run on its own."""

    def __init__(
        self,
        execution: Execution,
        program: Mapping[str, Any],
        *,
        scope: Scope,
        cancel: CancelToken,
        previous_event: int,
        query_language: str | None = None,
    ) -> None:
        self.execution = execution
        self.program = program
        self.states: Mapping[str, Any] = program["States"]
        self.scope = scope
        self.cancel = cancel
        self.last_event = previous_event
        self.query_language = query_language or execution.default_query_language
        # Set while a state runs: its name and StateEntered event id (for error messages).
        self.state_name = ""
        self.entered_id = 0
        self.entered_prev = 0

    # --- events ------------------------------------------------------------------------
    def emit(self, event_type: str, details: dict[str, Any], previous: int | None = None) -> int:
        prev = self.last_event if previous is None else previous
        self.last_event = self.execution.recorder.record(event_type, prev, details)
        return self.last_event

    # --- running -----------------------------------------------------------------------
    def check_cancel(self) -> None:
        if self.cancel.cancelled:
            raise Aborted(self.cancel.reason)

    def run(self, value: Any, start_at: str | None = None) -> Any:
        name = start_at or self.program["StartAt"]
        gate = self.execution.gate
        while True:
            self.check_cancel()
            state = self.states[name]
            if gate is not None:
                gate.before_state(name, state, self.cancel.event)
                self.check_cancel()
            outcome = self.run_state(name, state, value)
            value = outcome.output
            if outcome.next_state is None:
                return value
            name = outcome.next_state

    def run_state(self, name: str, state: Mapping[str, Any], value: Any) -> StateOutcome:
        state_type = state["Type"]
        input_text = dumps_event(value)
        entered_time = format_timestamp(self.execution.clock.now())
        self.state_name = name
        self.entered_prev = self.last_event
        self.entered_id = self.emit(
            f"{state_type}StateEntered",
            {"name": name, "input": input_text, "inputDetails": {"truncated": False}},
        )
        ctx = self.execution.context(name, entered_time)
        gate = self.execution.gate
        if gate is not None and state_type != "Choice":
            decision = gate.skip(name, state)
            if decision is not None:
                return self._skipped(name, state, decision)
        bound = logcontext.bind(state=name)  # --log-format json names the state
        try:
            with tracing.span(f"state {name}", **{"cfnops.state_type": state_type}):
                outcome = HANDLERS[state_type](self, name, state, value, ctx)
        except StateError as exc:
            raise self.state_failure(exc) from None
        except StatesFailure:
            raise
        except Exception as exc:  # a bug or an unexpected value: fail the state, not the host
            if is_host_fault(exc):  # the database under the run: not the state's failure
                raise
            raise self.state_failure(
                StateError("States.Runtime", f"{type(exc).__name__}: {exc}")
            ) from exc
        finally:
            logcontext.reset(bound)
        if state_type in ("Fail",):
            return outcome
        output_text = dumps_event(outcome.output)
        # A UTF-8 character takes at most 4 bytes: only long texts need encoding to measure.
        if (
            len(output_text) * 4 > MAX_PAYLOAD_BYTES
            and len(output_text.encode()) > MAX_PAYLOAD_BYTES
        ):
            raise StatesFailure(
                "States.DataLimitExceeded",
                f"The state/task '{name}' returned a result with a size exceeding the maximum "
                "number of bytes service limit.",
            )
        details: dict[str, Any] = {
            "name": name,
            "output": output_text,
            "outputDetails": {"truncated": False},
        }
        if outcome.assigned:
            self.scope.values.update(outcome.assigned)
            details["assignedVariables"] = {k: dumps_event(v) for k, v in outcome.assigned.items()}
            details["assignedVariablesDetails"] = {"truncated": False}
        if state_type not in ("Fail",):
            self.emit(f"{state_type}StateExited", details)
        return outcome

    def _skipped(self, name: str, state: Mapping[str, Any], skip: SkipState) -> StateOutcome:
        output_text = dumps_event(skip.output)
        self.emit("StateSkipped", {**skip.detail, "name": name, "output": output_text})
        self.emit(
            f"{state['Type']}StateExited",
            {"name": name, "output": output_text, "outputDetails": {"truncated": False}},
        )
        terminal = state.get("End") or state["Type"] in ("Succeed", "Fail")
        return StateOutcome(None if terminal else state.get("Next"), skip.output)

    def state_failure(self, exc: StateError) -> StatesFailure:
        """Turn a field-evaluation error into the runtime error Step Functions reports."""
        cause = (
            f"An error occurred while executing the state '{self.state_name}' "
            f"(entered at the event id #{self.entered_id}). {exc.detail}"
        )
        if exc.error == "States.QueryEvaluationError":
            self.emit(
                "EvaluationFailed",
                {
                    "error": exc.error,
                    "cause": cause,
                    "location": exc.location or "",
                    "state": self.state_name,
                },
                previous=self.entered_prev,
            )
        return StatesFailure(exc.error, cause)

    def child(self, program: Mapping[str, Any], *, cancel: CancelToken, previous_event: int,
              scope: Scope | None = None) -> Branch:  # fmt: skip
        """A branch for a Map iteration or Parallel branch: reads outer variables only."""
        snapshot = Scope(None, self.scope.flatten()) if scope is None else scope
        return Branch(
            self.execution,
            program,
            scope=Scope(snapshot),
            cancel=cancel,
            previous_event=previous_event,
            query_language=program.get("QueryLanguage", self.query_language),
        )

    def sleep(self, seconds: float) -> None:
        if seconds > 0 and not self.execution.clock.sleep(seconds, self.cancel.event):
            raise Aborted(self.cancel.reason)
        self.check_cancel()

    def query_language_of(self, state: Mapping[str, Any]) -> str:
        ql = state.get("QueryLanguage", self.query_language)
        return str(ql)
