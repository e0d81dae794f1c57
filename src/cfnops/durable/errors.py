"""Errors of the durable engine."""

from __future__ import annotations

from cfnops.database.errors import DatabasePathError as DatabasePathError
from cfnops.errors import CfnopsError, OperationFailed, UsageError


class DurableError(CfnopsError):
    """Base class for durable-engine errors."""


class UnknownWorkflow(DurableError, UsageError):
    """No workflow is registered under the name a run asks for."""

    def __init__(self, name: str, known: list[str]) -> None:
        listed = ", ".join(sorted(known)) or "none"
        super().__init__(
            f"workflow {name!r} is not registered in this process (registered: {listed})",
            hint="import the module that defines it: add it to worker.workflow_modules "
            "(CFNOPS_WORKER__WORKFLOW_MODULES) and run 'cfnops runs resume RUN_ID'",
        )
        self.name = name


class WorkflowModuleNotImportable(DurableError, UsageError):
    """A configured workflow module (``--import``, ``worker.workflow_modules``) fails to import."""

    def __init__(self, module: str, detail: str) -> None:
        super().__init__(
            f"cannot import workflow module {module!r}: {detail}",
            hint="check the module name and that its folder is on PYTHONPATH (or installed); "
            "fix worker.workflow_modules / CFNOPS_WORKER__WORKFLOW_MODULES or --import",
        )
        self.module = module


class UnknownRun(DurableError, UsageError):
    """No run has the given id."""

    def __init__(self, run_id: str) -> None:
        super().__init__(f"no run with id {run_id!r}", hint="list runs with 'cfnops runs list'")
        self.run_id = run_id


class StepResultNotJson(DurableError):
    """A step returned a value that cannot be stored as JSON."""

    def __init__(self, step: str, type_name: str, detail: str) -> None:
        super().__init__(
            f"step {step!r} returned a {type_name}, which is not JSON-serialisable ({detail})",
            hint="return plain data from steps: dict, list, str, int, float, bool or None",
        )
        self.step = step


class RunFailed(DurableError, OperationFailed):
    """A run ended in error; carries the recorded error text."""

    def __init__(self, run_id: str, error: str) -> None:
        super().__init__(f"run {run_id} failed: {error}", hint=f"see 'cfnops runs show {run_id}'")
        self.run_id = run_id
        self.error = error


class RunCancelled(DurableError, OperationFailed):
    """A run was cancelled before it finished."""

    def __init__(self, run_id: str) -> None:
        super().__init__(f"run {run_id} was cancelled")
        self.run_id = run_id


class IncompatibleRun(DurableError, UsageError):
    """A run was recorded by another cfnops version and cannot be resumed by this one."""

    def __init__(self, run_id: str, recorded: str, current: str) -> None:
        super().__init__(
            f"run {run_id} was recorded by cfnops {recorded}; this is cfnops {current}, "
            "which will not resume it (its steps may no longer line up)",
            hint=f"finish it with cfnops {recorded}, or 'cfnops runs cancel {run_id}' and "
            "start it again",
        )


class BadAuditEntry(DurableError, UsageError):
    """An audit entry or query is missing a field or has one out of range."""

    def __init__(self, name: str, reason: str, hint: str | None = None) -> None:
        super().__init__(f"audit {name} {reason}", hint=hint or f"give a valid {name}")
        self.name = name


class UnknownFunction(DurableError, UsageError):
    """No Lambda function is registered under the name a durable execution asks for."""

    def __init__(self, name: str, known: list[str]) -> None:
        listed = ", ".join(sorted(known)) or "none"
        super().__init__(
            f"Lambda function {name!r} is not registered in this process (registered: {listed})",
            hint="register it with cfnops.durable.register_function (or @lambda_function) in a "
            "module listed in worker.workflow_modules",
        )
        self.name = name


class UnknownExecution(DurableError, UsageError):
    """No durable execution has the given ARN (or callback id)."""

    def __init__(self, what: str) -> None:
        super().__init__(
            f"no durable execution {what}",
            hint="list executions with 'cfnops runs list' or ListDurableExecutionsByFunction",
        )
        self.what = what


class CallbackClosed(DurableError, UsageError):
    """A callback was answered after it had ended (answered, timed out, or its run ended)."""

    def __init__(self, callback_id: str) -> None:
        super().__init__(
            f"callback {callback_id} is no longer open",
            hint="a callback takes one success or failure, before its timeout",
        )
        self.callback_id = callback_id
