"""Errors of the durable engine."""

from __future__ import annotations

from cfnops.database.errors import DatabasePathError as DatabasePathError
from cfnops.errors import CfnopsError, OperationFailed, UsageError


class DurableError(CfnopsError):
    """Base class for durable-engine errors."""


class NotRunnableHere(DurableError, UsageError):
    """This process lacks what a run needs (its workflow, or a module of its code).

    ``needs`` names it: ``workflow NAME`` or ``module NAME``. A worker that dequeues or
    recovers such a run hands it over, untouched, to the processes that have it.
    """

    def __init__(self, needs: str, message: str, *, hint: str) -> None:
        super().__init__(message, hint=hint)
        self.needs = needs


class UnknownWorkflow(NotRunnableHere):
    """No workflow is registered under the name a run asks for."""

    def __init__(self, name: str, known: list[str]) -> None:
        listed = ", ".join(sorted(known)) or "none"
        super().__init__(
            f"workflow {name}",
            f"workflow {name!r} is not registered in this process (registered: {listed})",
            hint="import the module that defines it: add it to worker.workflow_modules "
            "(CFNOPS_WORKER__WORKFLOW_MODULES) and run 'cfnops runs resume RUN_ID'",
        )
        self.name = name


class MissingModule(NotRunnableHere):
    """A run's code needs a module this process cannot import (e.g. ``job run --import``)."""

    def __init__(self, module: str, reason: str) -> None:
        super().__init__(
            f"module {module}",
            f"module {module!r} cannot be imported in this process ({reason})",
            hint=f"run a worker that has it: 'cfnops worker --import {module}' "
            "(or add it to worker.workflow_modules)",
        )
        self.module = module


class RunStranded(DurableError, UsageError):
    """A run this command waits for cannot advance: the database under it failed.

    The run is not failed: it stays RUNNING and continues from its last checkpoint
    once the database works and a process with its workflow runs.
    """

    abandons_threads = True  # the stopped execution here only waits; nothing to finish

    def __init__(self, run_id: str, reason: str, *, database: str | None = None) -> None:
        super().__init__(
            f"run {run_id} cannot advance: {reason}",
            hint="it stays RUNNING and loses no finished step: fix the database, then "
            f"'cfnops runs resume {run_id}' (or start 'cfnops worker'); "
            f"'cfnops runs cancel {run_id}' ends it instead",
        )
        self.run_id = run_id
        self.database = database


class ExecutorIdInUse(DurableError, UsageError):
    """Another process that may still be alive holds the worker identity asked for.

    ``worker.executor_id`` (``cfnops worker --id``) names a worker across restarts, so a
    restarted worker reclaims its own runs at once. Two live processes under one name
    would both take its runs for their own: the second is refused.
    """

    def __init__(self, executor_id: str, holder: str, expires_in: float | None) -> None:
        if expires_in is None:
            later = "stop it first"
        else:
            later = (
                "if it is gone, start this one again once its lease expires "
                f"(in {expires_in:.0f} s)"
            )
        super().__init__(
            f"worker identity {executor_id!r} is held by {holder}",
            hint=f"give this worker another --id (worker.executor_id); {later}",
        )
        self.executor_id = executor_id


class ExecutorIdTaken(DurableError, UsageError):
    """This worker's identity was claimed by another process while this one was silent."""

    def __init__(self, executor_id: str, holder: str) -> None:
        super().__init__(
            f"worker identity {executor_id!r} was taken over by {holder} after this "
            "worker's lease expired; this worker stops so that no run executes twice",
            hint="give each worker its own --id (worker.executor_id); a worker silent for "
            "longer than worker.lease_seconds has its runs recovered by others",
        )
        self.executor_id = executor_id


class RunNeedsWorker(DurableError, UsageError):
    """A run this command waits for was handed over to workers with what it needs, and
    none has taken it within ``worker.stranded_after_seconds``.

    The run is not failed: it stays QUEUED and continues, from its last checkpoint, once
    a worker with what it needs runs.
    """

    abandons_threads = True  # the handed-over execution here only waits; nothing to finish

    def __init__(self, run_id: str, missing: NotRunnableHere, waited: float) -> None:
        super().__init__(
            f"run {run_id} needs {missing.needs}, which this process lacks, and no worker "
            f"with it has taken the run in {waited:.0f} s",
            hint=f"{missing.hint}; the run stays QUEUED and loses no finished step "
            f"('cfnops runs cancel {run_id}', or 'cfnops job stop {run_id}' for a job run, "
            "ends it instead)",
        )
        self.run_id = run_id
        self.needs = missing.needs


class WorkflowModuleNotImportable(DurableError, UsageError):
    """A configured workflow module (``--import``, ``worker.workflow_modules``) fails to import."""

    def __init__(self, module: str, detail: str) -> None:
        super().__init__(
            f"cannot import workflow module {module!r}: {detail}",
            hint="check the module name and that its folder is on PYTHONPATH (or installed); "
            "fix worker.workflow_modules / CFNOPS_WORKER__WORKFLOW_MODULES or --import",
        )
        self.module = module


class InputMismatch(DurableError, UsageError):
    """The input is not the kind of value the workflow declares (no run was created)."""

    def __init__(self, workflow: str, wanted: str, got: str) -> None:
        super().__init__(
            f"workflow {workflow!r} takes {wanted} as input, not {got}; no run was started",
            hint='pass --input with the right shape, e.g. --input \'{"key": "value"}\'',
        )
        self.workflow = workflow


class InvalidRunId(DurableError, UsageError):
    """A run id that is empty, too long or holds control characters."""

    def __init__(self, run_id: str) -> None:
        super().__init__(
            f"invalid run id {run_id!r}: a run id is 1-200 characters, none of them a "
            "control character",
            hint="pass the id 'cfnops runs list' shows, or omit it to get a new one",
        )
        self.run_id = run_id


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


class NoRuntime(DurableError):
    """A workflow ran under a context that carries no runtime and was given none."""

    def __init__(self, context_type: str) -> None:
        super().__init__(
            f"this workflow needs a cfnops Runtime and its {context_type} carries none",
            hint="pass one: build it once with Runtime.from_environment() (a Lambda handler) "
            "or Runtime.from_settings(settings, session=...) and hand it to the workflow body",
        )
        self.context_type = context_type
