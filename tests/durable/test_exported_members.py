"""The public API of cfnops.durable, pinned: what other packages may use.

Other packages read run records through these names only (never ``durable._*``);
the import-direction test and this list keep it that way.
"""

import ast
from pathlib import Path

from tests._source import parse_file

import cfnops
import cfnops.durable

SRC = Path(__file__).resolve().parents[2] / "src" / "cfnops"


def test_durable_public_names_are_pinned() -> None:
    assert sorted(cfnops.durable.__all__) == [
        "Attempt",
        "AuditEntry",
        "AuditLog",
        "BadAuditEntry",
        "BadPosition",
        "Branch",
        "CallbackClosed",
        "Checkpoint",
        "CheckpointStore",
        "DEFAULT_QUEUE",
        "DbosDurableContext",
        "DbosTables",
        "DurableError",
        "Engine",
        "ExecutorIdInUse",
        "ExecutorIdTaken",
        "Fence",
        "IncompatibleRun",
        "InvalidRunId",
        "LAMBDA_WORKFLOW",
        "LambdaFunction",
        "LocalLambda",
        "Mark",
        "MissingModule",
        "NoRuntime",
        "NotRunnableHere",
        "PlainRun",
        "Position",
        "RUN_STATUSES",
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
    for name in cfnops.durable.__all__:
        assert getattr(cfnops.durable, name) is not None


def test_root_exports() -> None:
    assert cfnops.__all__ == ["CfnopsError", "__version__"]


def test_no_other_package_imports_private_durable_modules() -> None:
    found = []
    for path in SRC.rglob("*.py"):
        if path.is_relative_to(SRC / "durable"):
            continue
        for node in ast.walk(parse_file(path)):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            found += [
                f"{path.relative_to(SRC)}:{node.lineno} {n}"
                for n in names
                if n.startswith("cfnops.durable._")
            ]
    assert not found, "use the public names of cfnops.durable:\n" + "\n".join(found)
