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

    engine = Engine.start_process(load_settings())
    run = engine.start("hello", {"name": "ops"}, run_id="hello-1")
    engine.result(run.run_id)
"""

from typing import TYPE_CHECKING, Any

# First: DBOS, imported without its PostgreSQL driver (see _dbos_port), before the
# modules below import it.
from cfnops.durable import _dbos_port as _dbos_port  # isort: split

from cfnops.durable._audit import AuditEntry, AuditLog
from cfnops.durable._dbos_setup import create_tables, make_engine, schema_lock
from cfnops.durable._engine import DEFAULT_QUEUE, Engine, RunHandle
from cfnops.durable._records import STATUSES as RUN_STATUSES
from cfnops.durable._records import RunRecord, RunStore, StepRecord
from cfnops.durable._registry import register_lazily, register_workflow, registered, workflow
from cfnops.durable.errors import (
    BadAuditEntry,
    DurableError,
    IncompatibleRun,
    RunCancelled,
    RunFailed,
    StepResultNotJson,
    UnknownRun,
    UnknownWorkflow,
)

__all__ = [
    "DEFAULT_QUEUE",
    "RUN_STATUSES",
    "AuditEntry",
    "AuditLog",
    "BadAuditEntry",
    "DbosDurableContext",
    "DurableError",
    "Engine",
    "IncompatibleRun",
    "RunCancelled",
    "RunFailed",
    "RunHandle",
    "RunRecord",
    "RunStore",
    "StepRecord",
    "StepResultNotJson",
    "UnknownRun",
    "UnknownWorkflow",
    "create_tables",
    "make_engine",
    "register_lazily",
    "register_workflow",
    "registered",
    "schema_lock",
    "workflow",
]

if TYPE_CHECKING:
    from cfnops.durable._context import DbosDurableContext


def __getattr__(name: str) -> Any:
    # The SDK-compatible context loads the Durable Execution SDK (and boto3 with it):
    # only workflows written against it need it (job-nets do not).
    if name == "DbosDurableContext":
        from cfnops.durable._context import DbosDurableContext

        return DbosDurableContext
    raise AttributeError(f"module 'cfnops.durable' has no attribute {name!r}")
