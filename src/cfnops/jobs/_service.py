"""Job-net runs on the durable engine: start, wait, stop, redrive, answer task tokens.

Each run is the registered workflow ``cfnops.jobs.execution`` (a DBOS workflow through
:mod:`cfnops.durable`): DBOS owns the run's liveness (recovery after ``kill -9``, queues
for ``cfnops worker``), the job store owns its effects and history
(:mod:`cfnops.jobs._durable_ports`). A redrive is a new DBOS workflow id for the same run.
"""

from __future__ import annotations

import functools
import re
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from cfnops.asl import check_definition
from cfnops.aws import AwsClients
from cfnops.database import retry_while_unreachable
from cfnops.durable import (
    Engine,
    Fence,
    MissingModule,
    PlainRun,
    Position,
    RunStore,
    register_workflow,
    run_context,
    runtime_of,
)
from cfnops.jobs._durable_ports import token_run_id
from cfnops.jobs._functions import import_modules
from cfnops.jobs._integrations import JobInvoker
from cfnops.jobs._operations import RunOperations
from cfnops.jobs._pools import PoolStore
from cfnops.jobs._runner import JobResult, execute_run, redrive_point
from cfnops.jobs._store import MODULES_OPTION, JobStore, RunRow, dumps
from cfnops.jobs.errors import ModuleImportFailed, RunNotRedrivable, UnknownTaskToken
from cfnops.runtime import Runtime

__all__ = ["WORKFLOW", "JobService"]

WORKFLOW = "cfnops.jobs.execution"
# The account in ARNs when no AWS account can be asked (no credentials: a job-net that
# calls no AWS service). Never a real account: 12 zeros.
OFFLINE_ACCOUNT = "000000000000"
_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,80}$")


class JobService(RunOperations):
    """Everything a caller does with job runs (CLI, worker services, tests).

    ``JobService(runtime)``: its settings, clients and database. Given clients too, the
    service works with those instead of the runtime's.
    """

    def __init__(self, runtime: Runtime, clients: AwsClients | None = None) -> None:
        if clients is not None:
            runtime = replace(runtime, aws=clients)
        self.runtime = runtime
        self.settings = runtime.settings
        self.store = JobStore(runtime.database)
        self._region: str | None = None

    @property
    def clients(self) -> AwsClients:
        """The runtime's clients (built lazily: pure job-nets never pay for boto3)."""
        return self.runtime.aws

    @property
    def region(self) -> str:
        """The region in execution ARNs (settings, else the AWS configuration)."""
        if self.settings.aws.region:
            return self.settings.aws.region
        if self._region is None:
            try:
                self._region = self.clients.region
            except Exception:  # no region configured: ARNs still need one
                self._region = "us-east-1"
        return self._region

    @property
    def account(self) -> str:
        """The account in execution, state-machine and role ARNs.

        STS GetCallerIdentity of the configured credentials (against the sandbox: the
        sandbox's account), asked once per runtime, in one quick attempt;
        :data:`OFFLINE_ACCOUNT` when no credentials or no endpoint answer (a job-net
        that calls no AWS service still runs; asked again after a minute).
        """
        return self.clients.account_or(OFFLINE_ACCOUNT, retry_after=60.0)

    # -- executing (inside the workflow) ---------------------------------------------------
    def execute(self, run_id: str, fence: Fence | None = None) -> JobResult:
        """Run (or replay) ``run_id`` to its end; ``fence``: the execution's claim on it
        (each effect is checked against it and recorded only while it holds)."""
        notify = {"on": False}

        def invoker(row: RunRow) -> JobInvoker:
            notify["on"] = bool(row.options.get("notify"))
            # the local functions of the process that started the run (redrive, rerun,
            # recovery by a worker): import the modules it recorded. A process without one
            # leaves the run to a process that has it (durable's hand-over), untouched.
            try:
                import_modules(row.modules)
            except ModuleImportFailed as exc:
                raise MissingModule(exc.module, exc.reason) from exc
            return self._invoker(row)

        result = execute_run(
            self.store, run_id, invoker, region=self.region, account=self.account, fence=fence
        )
        if notify["on"]:
            from cfnops.jobs._notify import notify_run_end

            notify_run_end(self, run_id)
        return result

    def _invoker(self, row: RunRow) -> JobInvoker:
        return JobInvoker(
            self.settings,
            self.clients,
            self.store,
            functools.partial(self._run_child, row.run_id),
            row.run_id,
            account=self.account,
            http=self.runtime.http,
        )

    def _run_child(
        self,
        parent: str,
        child_id: str,
        machine: str,
        definition: Mapping[str, Any],
        value: Any,
        wait: bool,
    ) -> JobResult:
        self.store.create_run(
            child_id, machine, definition, value, parent=parent, source="startExecution"
        )
        if wait:
            return execute_run(
                self.store, child_id, self._invoker, region=self.region, account=self.account
            )
        # Started from a plain thread: a top-level run, not a DBOS child of this workflow.
        thread = threading.Thread(target=self._launch, args=(child_id, None))
        thread.start()
        thread.join()
        return JobResult(child_id, "RUNNING")

    # -- starting ------------------------------------------------------------------------
    def start(
        self,
        definition: Mapping[str, Any],
        value: Any,
        *,
        machine_name: str,
        name: str | None = None,
        source: str = "manual",
        queue: str | None = None,
        options: Mapping[str, Any] | None = None,
        modules: Sequence[str] = (),
    ) -> str:
        """Create the run and start it (here, or on ``queue`` for workers); its run id.

        ``modules`` (imported by the caller, e.g. ``job run --import``) are recorded
        with the run and imported again wherever it continues.
        """
        check_definition(definition)
        PoolStore(self.store.engine).check(definition, machine_name)
        if modules:
            options = {**(options or {}), MODULES_OPTION: list(modules)}
        run_id = name or f"{machine_name}-{uuid.uuid4().hex[:12]}"
        if not _NAME.match(run_id):
            from cfnops.jobs.errors import JobInputError

            raise JobInputError(
                "the execution name", repr(run_id), "use 1-80 letters, digits, '-', '_' or '.'"
            )
        dumps(value)
        if queue is not None:  # a fresh database: the durable tables before the job's row
            with RunStore(self.runtime.database) as runs:
                runs.ensure_schema()
        created = self.store.create_run(
            run_id, machine_name, definition, value, options=options, source=source
        )
        if created:
            self._launch(run_id, queue)
        return run_id

    def _launch(self, run_id: str, queue: str | None, dbos_id: str | None = None) -> None:
        event = {"runId": run_id}
        dbos_id = dbos_id or run_id
        if queue is not None:
            with RunStore(self.runtime.database) as runs:
                runs.enqueue(
                    WORKFLOW, event, run_id=dbos_id, queue=queue, context=run_context(self.runtime)
                )
            return
        engine = Engine.start_process(self.runtime)
        engine.start(WORKFLOW, event, run_id=dbos_id, runtime=self.runtime)

    def wait(self, run_id: str, timeout: float | None = None, poll: float = 0.1) -> JobResult:
        deadline = None if timeout is None else time.monotonic() + timeout
        engine = Engine.current()
        while True:
            ended_here = None
            if engine is not None:  # executed here: wake when it ends, or when it stalls
                engine.check_stranded(run_id)
                wait = 0.5 if timeout is None else min(timeout, 0.5)
                ended_here = engine.wait_local(run_id, wait)
            row = retry_while_unreachable(  # a blip must not report a success as a failure
                lambda: self.store.get_run(run_id),
                what=f"waiting for job run {run_id}",
                give_up_after=self.settings.worker.stranded_after_seconds,
            )
            if row.status != "RUNNING":
                return JobResult(run_id, row.status, row.output, row.error, row.cause)
            if ended_here and self.execution_state(row) == "CANCELLED":
                # `runs cancel` stopped its execution here at its next step
                cause = "its durable run was cancelled ('cfnops runs cancel')"
                self.store.finish_run(run_id, "ABORTED", None, "States.Aborted", cause)
                return JobResult(run_id, "ABORTED", None, "States.Aborted", cause)
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"job run {run_id} still RUNNING after {timeout} s")
            time.sleep(poll)

    # -- controlling ---------------------------------------------------------------------
    def stop(self, run_id: str) -> RunRow:
        """Ask the run to stop (it ends ABORTED at once, or within half a second).

        A run that no process executes now ends ABORTED here, and its durable execution
        is cancelled so that nothing picks it up later: one that waits on a queue (for
        any worker, or for a worker with a module no live one has), one whose executor
        is dead, one left RUNNING with no execution behind it at all (its workflow ended
        without recording the run's end, or never started: e.g. the database filled
        between the two).
        """
        self.store.request_stop(run_id)
        row = self.store.get_run(run_id)
        if row.status != "RUNNING":
            return row
        cause = self._not_executed(row)
        if cause is not None:
            self.store.finish_run(run_id, "ABORTED", None, "States.Aborted", cause)
            row = self.store.get_run(run_id)
        return row

    def _not_executed(self, row: RunRow) -> str | None:
        """Why no process executes ``row`` now, its durable run cancelled; ``None`` while
        a live process does (it reads the stop request at its next state)."""
        from cfnops.durable import UnknownRun

        with RunStore(self.runtime.database) as runs:
            try:
                record = runs.get(row.dbos_id)
            except UnknownRun:
                return _no_execution(None)
            if record.status not in ("RUNNING", "QUEUED"):
                return _no_execution(record.status)
            idle = runs.idle_reason(record, self.settings.worker.lease_seconds)
            if idle is None:
                return None
            runs.cancel(row.dbos_id)  # no worker may start or recover it from now on
        return f"stopped before any process continued it: {idle}"

    def execution_state(self, row: RunRow) -> str | None:
        """The status of the durable run executing ``row`` now (``None``: there is none)."""
        from cfnops.durable import UnknownRun

        with RunStore(self.runtime.database) as runs:
            try:
                return runs.get(row.dbos_id).status
            except UnknownRun:
                return None

    def redrive(
        self,
        run_id: str,
        *,
        queue: str | None = None,
        modules: Sequence[str] | None = None,
        keep_under: Position | None = None,
        after_prepare: Callable[[], None] | None = None,
    ) -> str:
        """Run a failed run again from where it failed; finished tasks keep their outputs.

        ``modules`` replaces the modules the run recorded (``job redrive --import``).
        Failed Map iterations and Parallel branches run again from their start, except the
        one holding ``keep_under`` (a position: a forced Task), which resumes;
        ``after_prepare`` runs once the failed effects are forgotten, before the launch.
        """
        row = self.store.get_run(run_id)
        if row.status == "RUNNING":  # stranded: nothing executes it any more
            behind = self.execution_state(row)
            if behind not in ("RUNNING", "QUEUED"):
                self.store.finish_run(
                    run_id, "FAILED", None, "States.Runtime", _no_execution(behind)
                )
                row = self.store.get_run(run_id)
        if row.status not in ("FAILED", "TIMED_OUT", "ABORTED"):
            raise RunNotRedrivable(run_id, row.status)
        history = self.store.history(run_id)
        last = history[-1]["id"] if history else 0
        base = last + 1
        self.store.write_events(
            run_id,
            [
                (
                    base,
                    last,
                    "ExecutionRedriven",
                    time.time(),
                    dumps({"redriveCount": row.redrive_count + 1}),
                )
            ],
        )
        dbos_id = f"{run_id}:redrive-{row.redrive_count + 1}"
        top = frozenset(row.definition.get("States", {}))
        resume = redrive_point(history, top, self.store.failed_keys(run_id))
        options = {**row.options, "redriveFrom": list(resume) if resume else None}
        if modules is not None:
            options[MODULES_OPTION] = list(modules)
        self.store.prepare_redrive(run_id, dbos_id, base, options, keep_under=keep_under)
        if after_prepare is not None:
            after_prepare()
        self._launch(run_id, queue, dbos_id)
        return dbos_id

    def send_task_success(self, token: str, output: Any) -> str:
        return self._answer(token, ok=True, output=output)

    def send_task_failure(self, token: str, error: str | None, cause: str | None) -> str:
        return self._answer(token, ok=False, error=error, cause=cause)

    def _answer(self, token: str, **kw: Any) -> str:
        if token_run_id(token) is None:
            raise UnknownTaskToken(token)
        return self.store.answer_callback(token, **kw)


def _no_execution(state: str | None) -> str:
    if state is None:
        return "the run had no durable execution behind it (it never started)"
    return f"its durable execution had ended {state} without recording the run's end"


def _workflow(event: Any, context: PlainRun) -> Any:
    """The DBOS workflow body: replay the run to its end on the runtime the engine hands
    it (registered with ``context=False``: a job-net checkpoints through its job store)."""
    fence = getattr(context, "fence", None)
    return JobService(runtime_of(context)).execute(str(event["runId"]), fence).to_json()


register_workflow(WORKFLOW, _workflow, context=False)
