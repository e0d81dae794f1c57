"""The public names of cfnops.asl, pinned (a change here is an API change)."""

from __future__ import annotations

import cfnops.asl


def test_asl_exports_are_pinned() -> None:
    assert sorted(cfnops.asl.__all__) == [
        "BranchExecutor",
        "BranchJob",
        "CancelToken",
        "CheckFinding",
        "CheckReport",
        "Clock",
        "DeclaredResults",
        "DefinitionLoadError",
        "Execution",
        "ExecutionInfo",
        "ExecutionResult",
        "FakeInvoker",
        "Finding",
        "HistoryEvent",
        "HistoryRecorder",
        "Interpreter",
        "InvalidDefinition",
        "LambdaError",
        "NotChecked",
        "RandomTaskTokens",
        "Recorder",
        "SkipState",
        "StartPoint",
        "StateGate",
        "StateShape",
        "StatesFailure",
        "SystemClock",
        "TaskContext",
        "TaskFailure",
        "TaskInvoker",
        "TaskTokens",
        "TestStateError",
        "ThreadBranchExecutor",
        "Unknown",
        "check_dataflow",
        "check_definition",
        "lambda_stand_in",
        "load_definition",
        "run_branch",
        "shape_text",
        "test_state",
        "transitions",
        "validate",
    ]
    assert len(set(cfnops.asl.__all__)) == len(cfnops.asl.__all__)


def test_asl_exports_resolve() -> None:
    for name in cfnops.asl.__all__:
        assert getattr(cfnops.asl, name) is not None, name
