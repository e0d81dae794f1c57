"""The interpreter through its ports: fake clock, fake invoker, recorder, branches."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import cfnops.asl as asl
from cfnops.asl import (
    CancelToken,
    Execution,
    ExecutionInfo,
    FakeInvoker,
    HistoryRecorder,
    Interpreter,
    LambdaError,
    SkipState,
    StartPoint,
    TaskContext,
    ThreadBranchExecutor,
    run_branch,
)


class FakeClock:
    """Virtual time: sleeps are recorded and advance ``now`` instantly."""

    def __init__(self) -> None:
        self.current = datetime(2024, 1, 1, tzinfo=UTC)
        self.sleeps: list[float] = []
        self._lock = threading.Lock()

    def now(self) -> datetime:
        return self.current

    def sleep(self, seconds: float, cancel: threading.Event | None = None) -> bool:
        with self._lock:
            self.sleeps.append(seconds)
            self.current += timedelta(seconds=seconds)
        return True


def test_exported_members() -> None:
    assert set(asl.__all__) == {
        "BranchExecutor", "BranchJob", "CancelToken", "Clock", "DefinitionLoadError", "Execution",
        "ExecutionInfo",
        "ExecutionResult", "FakeInvoker", "Finding", "HistoryEvent", "HistoryRecorder",
        "Interpreter", "InvalidDefinition", "LambdaError", "RandomTaskTokens", "Recorder",
        "SkipState", "StartPoint", "StateGate", "StatesFailure", "SystemClock", "TaskContext",
        "TaskFailure", "TaskInvoker", "TaskTokens", "ThreadBranchExecutor",
        "TestStateError", "test_state",
        "check_definition", "lambda_stand_in", "load_definition", "run_branch", "validate",
        "transitions",  # the arrows of a States map (job graph, the console)
        # the data-flow check (cfnops job check)
        "CheckFinding", "CheckReport", "DeclaredResults", "NotChecked", "StateShape", "Unknown",
        "check_dataflow", "shape_text",
    }  # fmt: skip


def test_pass_choice_loop_with_history() -> None:
    d = {
        "StartAt": "Init",
        "States": {
            "Init": {"Type": "Pass", "Result": {"n": 0}, "Next": "Inc"},
            "Inc": {"Type": "Pass", "Parameters": {"n.$": "States.MathAdd($.n, 1)"},
                    "Next": "Check"},
            "Check": {"Type": "Choice", "Default": "Done",
                      "Choices": [{"Variable": "$.n", "NumericLessThan": 3, "Next": "Inc"}]},
            "Done": {"Type": "Succeed"},
        },
    }  # fmt: skip
    recorder = HistoryRecorder()
    result = Interpreter(d).run({}, recorder=recorder)
    assert result.status == "SUCCEEDED" and result.output == {"n": 3}
    types = [e.type for e in result.events]
    assert types[0] == "ExecutionStarted" and types[-1] == "ExecutionSucceeded"
    assert types.count("ChoiceStateEntered") == 3
    assert [e.id for e in result.events] == list(range(1, len(types) + 1))
    assert result.events[1].to_api()["stateEnteredEventDetails"]["name"] == "Init"


def test_task_retry_sleeps_through_the_clock_then_catches() -> None:
    invoker = FakeInvoker()
    calls: list[int] = []

    def flaky(payload: Any, ctx: TaskContext) -> Any:
        calls.append(ctx.attempt)
        raise LambdaError("Boom", '{"errorMessage":"x"}')

    invoker.register("flaky", flaky)
    d = {
        "StartAt": "T",
        "States": {
            "T": {
                "Type": "Task", "Resource": "arn:aws:lambda:us-east-1:1:function:flaky",
                "Retry": [{"ErrorEquals": ["Boom"], "IntervalSeconds": 2, "MaxAttempts": 2}],
                "Catch": [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.err", "Next": "Done"}],
                "End": True,
            },
            "Done": {"Type": "Pass", "End": True},
        },
    }  # fmt: skip
    clock = FakeClock()
    result = Interpreter(d, invoker=invoker, clock=clock).run({"in": 1})
    assert result.status == "SUCCEEDED"
    assert result.output == {"in": 1, "err": {"Error": "Boom", "Cause": '{"errorMessage": "x"}'}}
    assert calls == [0, 1, 2]
    assert clock.sleeps == [2.0, 4.0]
    assert [e.type for e in result.events].count("LambdaFunctionFailed") == 3


def test_lambda_integration_wraps_payload_and_formats_cause_compactly() -> None:
    invoker = FakeInvoker({"echo": lambda payload, ctx: {"got": payload}})
    d = {"StartAt": "T", "States": {"T": {
        "Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
        "Parameters": {"FunctionName": "arn:aws:lambda:us-east-1:1:function:echo",
                       "Payload.$": "$"},
        "ResultSelector": {"p.$": "$.Payload"}, "End": True}}}  # fmt: skip
    result = Interpreter(d, invoker=invoker).run({"a": 1})
    assert result.output == {"p": {"got": {"a": 1}}}
    assert invoker.calls == {"echo": 1}


def test_wait_uses_the_clock_and_reports_bad_seconds_path() -> None:
    clock = FakeClock()
    d = {"StartAt": "W", "States": {"W": {"Type": "Wait", "SecondsPath": "$.s", "End": True}}}
    assert Interpreter(d, clock=clock).run({"s": 7}).status == "SUCCEEDED"
    assert clock.sleeps == [7.0]
    failed = Interpreter(d, clock=clock).run({"s": "x"})
    assert failed.status == "FAILED" and failed.error == "States.Runtime"
    assert failed.cause is not None and "(entered at the event id #2)" in failed.cause


def test_map_honours_max_concurrency_and_keeps_order() -> None:
    active = 0
    peak = 0
    lock = threading.Lock()
    gate = threading.Event()

    def work(payload: Any, ctx: TaskContext) -> Any:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        gate.wait(0.01)
        with lock:
            active -= 1
        return payload * 10

    invoker = FakeInvoker({"work": work})
    d = {"StartAt": "M", "States": {"M": {
        "Type": "Map", "MaxConcurrency": 2, "End": True,
        "ItemProcessor": {"StartAt": "T", "States": {"T": {
            "Type": "Task", "Resource": "arn:aws:lambda:us-east-1:1:function:work",
            "End": True}}}}}}  # fmt: skip
    result = Interpreter(d, invoker=invoker).run(list(range(8)))
    assert result.output == [i * 10 for i in range(8)]
    assert 1 <= peak <= 2


def test_map_tolerated_failures_and_threshold() -> None:
    d = {"StartAt": "M", "States": {"M": {
        "Type": "Map", "ToleratedFailureCount": 1, "End": True,
        "ItemProcessor": {"StartAt": "C", "States": {
            "C": {"Type": "Choice", "Default": "Ok",
                  "Choices": [{"Variable": "$", "NumericEquals": 1, "Next": "Bad"}]},
            "Bad": {"Type": "Fail", "Error": "E", "Cause": "c"},
            "Ok": {"Type": "Pass", "End": True}}}}}}  # fmt: skip
    result = Interpreter(d).run([0, 1, 2])
    assert result.output == [0, {"Error": "E", "Cause": "c"}, 2]
    too_many = Interpreter(d).run([1, 1, 2])
    assert too_many.error == "States.ExceedToleratedFailureThreshold"


def test_variables_are_scoped_to_branches() -> None:
    d = {"StartAt": "Set", "States": {
        "Set": {"Type": "Pass", "Assign": {"outer": 1}, "Next": "P"},
        "P": {"Type": "Parallel", "Next": "Read", "Branches": [{"StartAt": "B", "States": {
            "B": {"Type": "Pass", "Assign": {"inner": 2},
                  "Parameters": {"seen.$": "$outer"}, "End": True}}}]},
        "Read": {"Type": "Pass", "Parameters": {"outer.$": "$outer", "branch.$": "$[0]"},
                 "End": True}}}  # fmt: skip
    result = Interpreter(d).run({})
    assert result.output == {"outer": 1, "branch": {"seen": 1}}


def test_jsonata_state_with_states_variable_and_sfn_functions() -> None:
    d = {"QueryLanguage": "JSONata", "StartAt": "A", "States": {"A": {
        "Type": "Pass", "Assign": {"total": "{% $sum($states.input.xs) %}"},
        "Output": {"parts": "{% $partition($states.input.xs, 2) %}",
                   "h": "{% $hash('a', 'MD5') %}"}, "Next": "B"},
        "B": {"Type": "Pass", "Output": "{% $total %}", "End": True}}}  # fmt: skip
    result = Interpreter(d).run({"xs": [1, 2, 3]})
    assert result.output == 6
    assert result.events[2].details["assignedVariables"] == {"total": "6"}


def test_task_timeout_and_execution_timeout() -> None:
    invoker = FakeInvoker({"slow": lambda payload, ctx: ctx.cancel.wait(30) and None})
    task = {"StartAt": "T", "States": {"T": {
        "Type": "Task", "Resource": "arn:aws:lambda:us-east-1:1:function:slow",
        "TimeoutSeconds": 1, "End": True}}}  # fmt: skip
    result = Interpreter(task, invoker=invoker).run({})
    assert (result.status, result.error) == ("FAILED", "States.Timeout")


WAIT_60 = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 60, "End": True}}}


@pytest.mark.parametrize(
    ("how", "status", "last_event"),
    [
        ("state-machine timeout", "TIMED_OUT", "ExecutionTimedOut"),
        ("recorded start past the timeout", "TIMED_OUT", "ExecutionTimedOut"),
        ("stop signal", "ABORTED", "ExecutionAborted"),
    ],
)
def test_one_behaviour_on_timeout_and_abort(how: str, status: str, last_event: str) -> None:
    """The one place that pins how a stopped or timed-out execution ends (the durable job
    runner drives this same entry). DescribeExecution reports neither error nor cause for
    them (the conformance case timeouts/test_global_timeout@describe_execution)."""
    cancel = CancelToken()
    started_at = None
    definition: dict[str, Any] = dict(WAIT_60)
    if how != "stop signal":
        definition["TimeoutSeconds"] = 1
    if how == "recorded start past the timeout":  # a recovered run gets no fresh budget
        started_at = datetime.now(UTC) - timedelta(seconds=5)
    elif how == "stop signal":
        threading.Timer(0.2, cancel.cancel).start()
    began = time.monotonic()
    result = Interpreter(definition).run({}, cancel=cancel, started_at=started_at)
    assert (result.status, result.error, result.cause) == (status, None, None)
    assert result.events[-1].type == last_event
    if how == "recorded start past the timeout":
        assert time.monotonic() - began < 0.9


class _Tokens:
    def __init__(self) -> None:
        self.asked: list[str] = []

    def token(self, state_name: str) -> str:
        self.asked.append(state_name)
        return f"tok-{state_name}-{len(self.asked)}"


def test_engine_ports_token_redrive_count_and_start_point() -> None:
    seen: list[Any] = []

    def callback(payload: Any, ctx: TaskContext) -> Any:
        seen.append((payload, ctx.task_token))
        return {"ok": True}

    d = {"StartAt": "A", "States": {
        "A": {"Type": "Pass", "Assign": {"v": "from-a"}, "Result": "skipped", "Next": "B"},
        "B": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke.waitForTaskToken",
              "Parameters": {"FunctionName": "cb", "Payload": {
                  "token.$": "$$.Task.Token", "redrives.$": "$$.Execution.RedriveCount",
                  "in.$": "$", "v.$": "$v", "exec.$": "$$.Execution.Input"}},
              "ResultPath": None, "End": True}}}  # fmt: skip
    tokens = _Tokens()
    result = Interpreter(d, invoker=FakeInvoker({"cb": callback})).run(
        {"x": 1},
        redrive_count=2,
        task_tokens=tokens,
        start=StartPoint("B", {"y": 2}, {"v": "kept"}),
    )
    assert result.status == "SUCCEEDED", (result.error, result.cause)
    assert result.output == {"y": 2}
    payload, ctx_token = seen[0]
    assert payload == {"token": "tok-B-1", "redrives": 2, "in": {"y": 2}, "v": "kept",
                       "exec": {"x": 1}}  # fmt: skip
    assert ctx_token == "tok-B-1" and tokens.asked == ["B"]
    assert [e.details.get("name") for e in result.events if e.type.endswith("Entered")] == ["B"]


def test_data_limit_is_enforced() -> None:
    d = {"StartAt": "A", "States": {"A": {"Type": "Pass", "Result": "x" * 300_000, "End": True}}}
    result = Interpreter(d).run({})
    assert result.error == "States.DataLimitExceeded"


def test_run_branch_is_a_standalone_seam() -> None:
    recorder = HistoryRecorder()
    info = ExecutionInfo("arn:e", "e", "arn:sm", "sm", "arn:role", "2024-01-01T00:00:00.000Z")
    execution = Execution(
        info=info, execution_input={}, invoker=FakeInvoker(), clock=FakeClock(),
        recorder=recorder, branch_executor=ThreadBranchExecutor(), cancel=CancelToken(),
    )  # fmt: skip
    program = {"StartAt": "A", "States": {"A": {
        "Type": "Pass", "Parameters": {"v.$": "$v", "x.$": "$.x"}, "End": True}}}  # fmt: skip
    assert run_branch(execution, program, {"x": 2}, variables={"v": 1}) == {"v": 1, "x": 2}
    assert [e.type for e in recorder.events] == ["PassStateEntered", "PassStateExited"]


def test_invalid_definition_is_rejected_up_front() -> None:
    with pytest.raises(asl.InvalidDefinition):
        Interpreter({"StartAt": "A", "States": {"A": {"Type": "Pass", "Next": "B"}}})


class RecordingExecutor:
    """A BranchExecutor that runs jobs one by one and remembers their keys."""

    def __init__(self) -> None:
        self.keys: list[str] = []

    def submit_all(self, jobs: Any, max_concurrency: int) -> list[Any]:
        from concurrent.futures import Future

        futures = []
        for job in jobs:
            self.keys.append(f"{job.kind}:{job.key}:{job.input}:{dict(job.variables)}")
            fut: Future[Any] = Future()
            try:
                fut.set_result(job())
            except Exception as exc:
                fut.set_exception(exc)
            futures.append(fut)
        return futures


def test_branch_executor_gets_deterministic_keys_and_branch_data() -> None:
    d = {"StartAt": "V", "States": {
        "V": {"Type": "Pass", "Assign": {"k": 1}, "Next": "M"},
        "M": {"Type": "Map", "Next": "P",
              "ItemProcessor": {"StartAt": "I", "States": {"I": {"Type": "Pass", "End": True}}}},
        "P": {"Type": "Parallel", "End": True, "Branches": [
            {"StartAt": "B", "States": {"B": {"Type": "Pass", "End": True}}}]}}}  # fmt: skip
    executor = RecordingExecutor()
    result = Interpreter(d, branch_executor=executor).run(["a", "b"])
    assert result.output == [["a", "b"]]
    assert executor.keys == [
        "map-iteration:M/0:a:{'k': 1}",
        "map-iteration:M/1:b:{'k': 1}",
        "parallel-branch:P/branch-0:['a', 'b']:{'k': 1}",
    ]


def test_caller_can_abort_a_run() -> None:
    token = CancelToken()
    wait = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 30, "End": True}}}
    threading.Timer(0.2, token.cancel).start()
    result = Interpreter(wait).run({}, cancel=token)
    assert result.status == "ABORTED"
    assert result.events[-1].type == "ExecutionAborted"


class _Gate:
    """Holds the run before ``hold_before`` until ``released``; skips ``skips``."""

    def __init__(self, hold_before: str, skips: dict[str, Any]) -> None:
        self.hold_before = hold_before
        self.skips = skips
        self.released = threading.Event()
        self.waited: list[str] = []

    def before_state(self, state_name: str, state: Any, cancel: threading.Event) -> None:
        if state_name == self.hold_before:
            self.waited.append(state_name)
            while not self.released.is_set() and not cancel.is_set():
                cancel.wait(0.01)

    def skip(self, state_name: str, state: Any) -> SkipState | None:
        if state_name in self.skips:
            return SkipState(self.skips[state_name], {"actor": "test"})
        return None


def test_state_gate_holds_between_states_and_skips_states() -> None:
    d = {"StartAt": "A", "States": {
        "A": {"Type": "Pass", "Result": {"x": 1}, "Next": "C"},
        "C": {"Type": "Choice", "Default": "M",
              "Choices": [{"Variable": "$.x", "NumericEquals": 2, "Next": "B"}]},
        "M": {"Type": "Map", "ItemsPath": "$.items", "Next": "B",
              "ItemProcessor": {"StartAt": "I", "States": {
                  "I": {"Type": "Pass", "Result": "ran", "End": True}}}},
        "B": {"Type": "Pass", "Result": "not skipped", "End": True}}}  # fmt: skip
    gate = _Gate("C", {"C": "ignored", "I": "skipped", "B": {"passed": True}})
    d["States"]["A"]["Result"] = {"x": 1, "items": [1, 2]}
    threading.Timer(0.2, gate.released.set).start()
    began = time.monotonic()
    result = Interpreter(d).run({}, gate=gate)
    assert time.monotonic() - began >= 0.15 and gate.waited == ["C"]  # held before C
    assert result.status == "SUCCEEDED" and result.output == {"passed": True}
    skipped = [e.details for e in result.events if e.type == "StateSkipped"]
    assert [s["name"] for s in skipped] == ["I", "I", "B"]  # not the Choice
    assert skipped[0]["actor"] == "test" and skipped[-1]["output"] == '{"passed":true}'
    exited = [e.details["name"] for e in result.events if e.type == "PassStateExited"]
    assert exited.count("I") == 2 and "B" in exited
