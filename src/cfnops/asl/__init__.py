"""Amazon States Language: validation and semantics as plain data in, plain data out.

>>> from cfnops.asl import Interpreter
>>> definition = {"StartAt": "A", "States": {"A": {"Type": "Pass", "Result": 1, "End": True}}}
>>> Interpreter(definition).run({}).output
1
"""

from typing import TYPE_CHECKING

from cfnops._lazy import lazy_exports
from cfnops.asl._engine import CancelToken, Execution, ExecutionInfo
from cfnops.asl._fake import FakeInvoker, LambdaError, lambda_stand_in
from cfnops.asl._history import HistoryEvent, HistoryRecorder
from cfnops.asl._interpreter import ExecutionResult, Interpreter, StartPoint, run_branch
from cfnops.asl._loader import load_definition
from cfnops.asl._ports import (
    BranchExecutor,
    BranchJob,
    Clock,
    RandomTaskTokens,
    Recorder,
    SkipState,
    StateGate,
    SystemClock,
    TaskContext,
    TaskInvoker,
    TaskTokens,
    ThreadBranchExecutor,
)
from cfnops.asl._transitions import transitions
from cfnops.asl._validate import check_definition, validate
from cfnops.asl.errors import (
    DefinitionLoadError,
    Finding,
    InvalidDefinition,
    StatesFailure,
    TaskFailure,
)

__all__ = [
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

if TYPE_CHECKING:
    from cfnops.asl._flowcheck import check_dataflow
    from cfnops.asl._flowcheck_model import (
        CheckFinding,
        CheckReport,
        NotChecked,
        StateShape,
        Unknown,
        shape_text,
    )
    from cfnops.asl._flowcheck_results import DeclaredResults
    from cfnops.asl._teststate import TestStateError, test_state

# The data-flow check (`cfnops job check`: its model, declared results and the check
# itself) is the largest part of the package: running a job-net loads none of it.
_FLOWCHECK = {
    "check_dataflow": "_flowcheck",
    "CheckFinding": "_flowcheck_model",
    "CheckReport": "_flowcheck_model",
    "NotChecked": "_flowcheck_model",
    "StateShape": "_flowcheck_model",
    "Unknown": "_flowcheck_model",
    "shape_text": "_flowcheck_model",
    "DeclaredResults": "_flowcheck_results",
    # the TestState API (the sandbox's Step Functions TestState): a job run uses none of it
    "TestStateError": "_teststate",
    "test_state": "_teststate",
}

__getattr__, __dir__ = lazy_exports(__name__, _FLOWCHECK, globals())
