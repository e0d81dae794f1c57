"""Durable workflows: the AWS Durable Execution SDK's API, executed on DBOS.

Write a workflow once against ``aws_durable_execution_sdk_python``; register it
here; run it crash-safe on SQLite or PostgreSQL, or deploy the same module to
AWS Lambda durable functions::

    from aws_durable_execution_sdk_python import DurableContext, durable_execution
    from cfnops.durable import Engine, workflow

    @workflow("hello")
    @durable_execution
    def hello(event, context: DurableContext):
        name = context.step(lambda _: event["name"].title(), name="title")
        return {"greeting": f"Hello, {name}"}

    engine = Engine.start_process(Runtime.from_settings(load_settings()))
    run = engine.start("hello", {"name": "ops"}, run_id="hello-1")
    engine.result(run.run_id)

The engine hands its :class:`~cfnops.runtime.Runtime` to every workflow it runs:
``runtime_of(context)`` inside the workflow (``context.runtime`` here; under the
SDK's own runner or on Lambda, pass the runtime to the workflow's body).
"""

from typing import TYPE_CHECKING

# First: DBOS, imported without its PostgreSQL driver (see _dbos_port), before the
# modules below import it.
from cfnops.durable import _dbos_port as _dbos_port  # isort: split

from cfnops._lazy import lazy_exports
from cfnops.durable._checkpoints import Checkpoint, CheckpointStore
from cfnops.durable._dbos_setup import make_engine
from cfnops.durable._dbos_tables import DbosTables, dbos_tables
from cfnops.durable._engine import DEFAULT_QUEUE, Engine, RunHandle, needs_queue
from cfnops.durable._fence import Fence
from cfnops.durable._handoff import PlainRun, runtime_of
from cfnops.durable._positions import (
    Attempt,
    BadPosition,
    Branch,
    Mark,
    Position,
    Segment,
    Sleep,
    Visit,
)
from cfnops.durable._records import STATUSES as RUN_STATUSES
from cfnops.durable._records import RunRecord, RunStore, StepRecord, redacted
from cfnops.durable._registry import register_lazily, register_workflow, registered, workflow
from cfnops.durable._run_context import run_context
from cfnops.durable.errors import (
    BadAuditEntry,
    CallbackClosed,
    DurableError,
    ExecutorIdInUse,
    ExecutorIdTaken,
    IncompatibleRun,
    InvalidRunId,
    MissingModule,
    NoRuntime,
    NotRunnableHere,
    RunCancelled,
    RunFailed,
    RunNeedsWorker,
    RunStranded,
    StepResultNotJson,
    UnknownExecution,
    UnknownFunction,
    UnknownRun,
    UnknownWorkflow,
)

__all__ = [
    "DEFAULT_QUEUE",
    "LAMBDA_WORKFLOW",
    "RUN_STATUSES",
    "Attempt",
    "AuditEntry",
    "AuditLog",
    "BadAuditEntry",
    "BadPosition",
    "Branch",
    "CallbackClosed",
    "Checkpoint",
    "CheckpointStore",
    "DbosDurableContext",
    "DbosTables",
    "DurableError",
    "Engine",
    "ExecutorIdInUse",
    "ExecutorIdTaken",
    "Fence",
    "IncompatibleRun",
    "InvalidRunId",
    "LambdaFunction",
    "LocalLambda",
    "Mark",
    "MissingModule",
    "NoRuntime",
    "NotRunnableHere",
    "PlainRun",
    "Position",
    "RunCancelled",
    "RunFailed",
    "RunHandle",
    "RunNeedsWorker",
    "RunRecord",
    "RunStore",
    "RunStranded",
    "Segment",
    "Sleep",
    "StepRecord",
    "StepResultNotJson",
    "UnknownExecution",
    "UnknownFunction",
    "UnknownRun",
    "UnknownWorkflow",
    "Visit",
    "dbos_tables",
    "functions",
    "get_function",
    "lambda_function",
    "make_engine",
    "needs_queue",
    "redacted",
    "register_function",
    "register_function_lazily",
    "register_lazily",
    "register_workflow",
    "registered",
    "run_context",
    "run_history",
    "runtime_of",
    "workflow",
]

if TYPE_CHECKING:
    from cfnops.durable._audit import AuditEntry, AuditLog
    from cfnops.durable._context import DbosDurableContext
    from cfnops.durable._lambda_backend import LAMBDA_WORKFLOW, LocalLambda
    from cfnops.durable._lambda_functions import (
        LambdaFunction,
        functions,
        get_function,
        lambda_function,
        register_function,
        register_function_lazily,
    )
    from cfnops.durable._run_history import run_history

# Loaded when first used: a job-net's run writes no audit entry, registers no Lambda
# function and reads no Lambda execution history.
_WHERE = {
    "AuditEntry": "_audit",
    "AuditLog": "_audit",
    "LambdaFunction": "_lambda_functions",
    "functions": "_lambda_functions",
    "get_function": "_lambda_functions",
    "lambda_function": "_lambda_functions",
    "register_function": "_lambda_functions",
    "register_function_lazily": "_lambda_functions",
    "run_history": "_run_history",
    # The SDK-compatible context loads the Durable Execution SDK (and boto3 with it):
    # only workflows written against it need it (job-nets do not).
    "DbosDurableContext": "_context",
    # The Lambda durable-functions backend (loads the SDK too); importing it registers
    # its workflow, so builtin_workflows names it lazily by this attribute.
    "LocalLambda": "_lambda_backend",
    "LAMBDA_WORKFLOW": "_lambda_backend",
}


__getattr__, __dir__ = lazy_exports(__name__, _WHERE, globals())
