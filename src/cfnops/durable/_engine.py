"""The durable engine: DBOS lifecycle, starting runs, recovery across processes.

One :class:`Engine` per process (DBOS is a process-wide singleton). Every run is
the DBOS workflow ``cfnops.run(workflow_name, event, context)``, which looks the
workflow up in the registry and calls it with a :class:`DbosDurableContext` (or a
:class:`PlainRun`, for a workflow registered with ``context=False``).

**Who executes what.** A foreground engine (``job run``, ``heal``, ``ami rotate``,
``runs start``) executes the runs it starts and what lands on its own queue
(:mod:`cfnops.durable._ownership`: adopted, handed back), nothing else. A worker
(``Engine(worker=True)``) also dequeues the shared queues and recovers dead executors'
runs (:mod:`cfnops.durable._executors`). The heartbeat and the recovery sweep run in
:mod:`cfnops.durable._liveness`.

**A runtime per run.** A run records the context it was started with (AWS region,
endpoint, profile; modules), as the third argument of ``cfnops.run``. The process that
started it executes it with the very :class:`Runtime` it was started with; any other
process executes it with its own runtime aimed at the recorded context
(:meth:`Engine.runtime_for`). Two services with different settings in one process
each run their runs with their own settings.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from concurrent.futures import Future
from concurrent.futures import wait as wait_futures
from contextlib import suppress
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

from dbos import DBOS, SetWorkflowID

from cfnops import logcontext, tracing
from cfnops._version import __version__
from cfnops.config import Settings
from cfnops.database import (
    SqliteDatabase,
    retry_while_unreachable,
    storage_error,
)
from cfnops.durable import _dbos_logs
from cfnops.durable._dbos_port import (
    active_workflows,
    created_ms,
    execution_token,
    park,
    take_back,
)
from cfnops.durable._dbos_setup import (
    COMMAND_LISTENER_POLL_SECONDS,
    LISTENER_POLL_SECONDS,
    check_schema,
    dbos_config,
)
from cfnops.durable._executors import Recovery
from cfnops.durable._fence import Fence
from cfnops.durable._handoff import PlainRun
from cfnops.durable._inputs import check_json, check_run_id
from cfnops.durable._leases import LeaseObserver, LeaseTable, new_executor_id
from cfnops.durable._liveness import Liveness
from cfnops.durable._ownership import RunOwnership
from cfnops.durable._registry import (
    check_input,
    get_workflow,
    import_modules,
    registered,
    takes_context,
)
from cfnops.durable._run_context import run_context, runtime_in_context
from cfnops.durable.errors import (
    NotRunnableHere,
    RunCancelled,
    RunFailed,
    UnknownRun,
)
from cfnops.errors import CfnopsError
from cfnops.runtime import Runtime

if TYPE_CHECKING:  # the backend loads the Durable Execution SDK: only when asked for
    from cfnops.durable._lambda_backend import LocalLambda

_log = logging.getLogger("cfnops.durable")

RUN_WORKFLOW = "cfnops.run"
DEFAULT_QUEUE = "cfnops"
NEEDS_QUEUE_PREFIX = "cfnops needs "
# A worker polls one queue per workflow and module it has, for runs that processes
# without them handed over: at 0.2 s, seven such queues were ~70 % of an idle worker's
# statements (3 per poll); a handed-over run may wait this long to start instead.
HANDED_OVER_POLL_SECONDS = 2.0


@DBOS.workflow(name=RUN_WORKFLOW)
def _run(workflow: str, event: Any, context: dict[str, Any] | None = None) -> Any:
    try:
        result = _call(workflow, event, context)
    except NotRunnableHere as exc:
        # Not this process's to run: hand it, untouched, to the processes that can
        engine, run_id = Engine.current(), DBOS.workflow_id or ""
        if engine is None or not engine.ownership.hand_over(run_id, exc):
            raise
        raise park(f"run {run_id} needs {exc.needs}") from exc
    except Exception as exc:
        # A fault of the database is not the run's: keep it RUNNING, continue it later
        engine, run_id = Engine.current(), DBOS.workflow_id or ""
        if engine is None or not engine.ownership.stall(run_id, exc):
            _trace_end(workflow, run_id, exc)
            raise
        raise park(f"run {run_id} stopped by a storage fault") from exc
    _trace_end(workflow, DBOS.workflow_id or "", None)
    return result


def _trace_end(workflow: str, run_id: str, exc: Exception | None) -> None:
    """The run ended in this execution: export its root span (tracing on only). A parked
    or cancelled execution (DBOS's cancellation error) has not ended the run."""
    if not tracing.enabled() or type(exc) is type(park("")):
        return
    created = None
    with suppress(Exception):  # without its start time the root span still parents
        created = created_ms(run_id)
    error = None if exc is None else f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    tracing.run_root(workflow, run_id, created, error)


def needs_queue(needs: str) -> str:
    """The queue of runs waiting for a process that has ``needs`` (``workflow X``,
    ``module M``): only processes that have it dequeue from it."""
    return NEEDS_QUEUE_PREFIX + needs


def _call(workflow: str, event: Any, context: dict[str, Any] | None) -> Any:
    stack = event.get("stack") if isinstance(event, dict) else None
    with (
        logcontext.bound(
            run_id=DBOS.workflow_id,
            workflow=workflow,
            stack=stack if isinstance(stack, str) else None,
        ),
        tracing.run_span(workflow, DBOS.workflow_id or ""),
    ):
        fn = get_workflow(workflow)
        engine = Engine.current()
        if engine is None:  # pragma: no cover - the engine is current before DBOS launches
            raise RuntimeError(f"{RUN_WORKFLOW} runs only in a launched cfnops.durable.Engine")
        run_id = DBOS.workflow_id or ""
        runtime = engine.runtime_for(run_id, context)
        if not takes_context(workflow):  # e.g. job-nets: no Durable Execution SDK to load
            fence = Fence(run_id, execution_token(), engine.executor_id)
            return fn(event, PlainRun(run_id, runtime, fence))
        from cfnops.durable._context import DbosDurableContext

        return fn(event, DbosDurableContext(run_id, runtime=runtime))


@dataclass(frozen=True)
class RunHandle:
    """A started (or already existing) run."""

    run_id: str
    workflow: str
    existed: bool = False


class Engine:
    """Starts, executes and (in a worker) recovers runs on the runtime's database.

    ``engine.runtime`` is the process's base :class:`~cfnops.runtime.Runtime`; each run
    is executed on the runtime it was started with (:meth:`runtime_for`).
    """

    # DBOS is a process-wide singleton, and so is the engine that launched it: the
    # one way a DBOS-recovered run reaches the runtime it is handed.
    _current: ClassVar[Engine | None] = None
    _class_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, runtime: Runtime, *, worker: bool = False) -> None:
        self.runtime = runtime
        self.worker = worker
        # A worker may keep a name across restarts (worker.executor_id): restarted, it
        # owns its previous runs and DBOS's start-up recovery hands them back at once.
        # Commands always take a new one (two at once must not share a name).
        named = runtime.settings.worker.executor_id if worker else None
        self.executor_id = named or new_executor_id()
        self._named = named is not None
        # what it adopts, hands back to itself and hands over to others
        self.ownership = RunOwnership(self.executor_id, DEFAULT_QUEUE, needs_queue)
        self._observer = LeaseObserver(runtime.settings.worker.lease_seconds)
        self._runtimes_lock = threading.Lock()
        self._run_runtimes: dict[str, Runtime] = {}  # runs started here: their runtime
        self._context_runtimes: dict[str, Runtime] = {}  # recorded context → runtime
        self._leases: LeaseTable | None = None
        self._recovery: Recovery | None = None  # both once launched
        self._queues: dict[str, Any] = {}
        # runs this process executes: their completion, waited on instead of polled
        self._running: dict[str, Future[Any]] = {}
        # Runs this process started or re-attached to (run id → workflow), newest last:
        # what an interrupted command reports on.
        self.started: dict[str, str] = {}
        # its heartbeat and sweep threads (the heartbeat checks the SQLite file it opened)
        database = self.runtime.database
        file = database if isinstance(database, SqliteDatabase) else None
        self._liveness = Liveness(self.executor_id, self._observer, file)
        self._local_lambda: LocalLambda | None = None  # built on first use
        self._lambda_lock = threading.Lock()

    @property
    def settings(self) -> Settings:
        return self.runtime.settings

    @property
    def fatal(self) -> CfnopsError | None:
        """Set when this process must stop using the database (its file deleted/replaced,
        its identity taken by another process)."""
        return self._liveness.fatal

    @property
    def parked(self) -> int:
        """Executions parked here (handed over, or stopped by a storage fault): each only
        waits for the outcome another execution records, so an exit need not wait for them."""
        return self.ownership.parked

    # -- lifecycle -------------------------------------------------------------

    @classmethod
    def start_process(cls, runtime: Runtime, *, worker: bool = False) -> Engine:
        """Launch the process-wide engine on ``runtime`` (or return the one already running).

        DBOS is a process-wide singleton: a second call gets the running engine, whose
        base runtime does not change (a different database is logged); pass your runtime
        to :meth:`start` so that your runs use it.
        """
        with cls._class_lock:
            if cls._current is None:
                engine = cls(runtime, worker=worker)
                # DBOS starts executing (recovered and queued runs) inside launch: those
                # runs must find their engine, or they fail for want of a runtime
                cls._current = engine
                try:
                    engine._launch()
                except BaseException:
                    cls._current = None
                    raise
            else:
                url = runtime.database.url if isinstance(runtime, Runtime) else runtime.database_url
                if cls._current.runtime.database.url != url:
                    cls._current._warn_other_database(url)
            return cls._current

    def use(self, runtime: Runtime) -> None:
        """Make ``runtime`` the engine's base runtime, explicitly: runs started from now on
        without a runtime of their own, and runs continued here without a recorded
        context, execute on it (the engine keeps its database: DBOS runs on it). Runs
        already started with a runtime keep theirs."""
        with self._runtimes_lock:
            self.runtime = self._adopt_runtime(runtime)
            self._context_runtimes.clear()

    def runtime_for(self, run_id: str, context: dict[str, Any] | None = None) -> Runtime:
        """The runtime ``run_id`` executes on: the one it was started with in this
        process, else this engine's runtime aimed at the run's recorded ``context``."""
        with self._runtimes_lock:
            started = self._run_runtimes.get(run_id)
            if started is not None:
                return started
            if not context:
                return self.runtime
            key = json.dumps(context, sort_keys=True)
            found = self._context_runtimes.get(key)
            if found is None:
                found = runtime_in_context(self.runtime, context)
                self._context_runtimes[key] = found
            return found

    def _adopt_runtime(self, runtime: Runtime) -> Runtime:
        """``runtime`` on this engine's database (its settings name that database too)."""
        if runtime is self.runtime:
            return runtime
        if runtime.database.url != self.runtime.database.url:
            self._warn_other_database(runtime.database.url)
        settings = runtime.settings
        if settings.database_url != self.runtime.database.url:
            settings = settings.replace(database_url=self.runtime.database.url)
        if settings is runtime.settings and runtime.database is self.runtime.database:
            return runtime
        return replace(runtime, settings=settings, database=self.runtime.database)

    def _warn_other_database(self, url: str) -> None:
        _log.warning(
            "a durable engine already runs on %s in this process; using it, not %s",
            self.runtime.database.url,
            url,
        )

    @classmethod
    def current(cls) -> Engine | None:
        return cls._current

    def local_lambda(self) -> LocalLambda:
        """The Lambda durable-functions backend this engine drives executions with
        (one per engine, on its runtime's database)."""
        with self._lambda_lock:
            if self._local_lambda is None:
                from cfnops.durable._lambda_backend import LocalLambda

                self._local_lambda = LocalLambda(self.runtime)
            return self._local_lambda

    def _launch(self) -> None:
        import_modules(self.settings.worker.workflow_modules)
        _dbos_logs.install()  # DBOS's error line for a failed run names the run
        database = self.runtime.database
        url = database.url
        # SQLite: DBOS shares the runtime's engine (one pool, one writer lock). PostgreSQL:
        # DBOS builds its own system-database pool from the URL.
        sys_engine = database.engine if database.is_sqlite else None
        lease_engine = database.engine
        worker = self.settings.worker
        with database.schema_lock():
            check_schema(lease_engine)
            self._leases = LeaseTable(lease_engine, worker.lease_seconds, host_id=worker.host_id)
            # registered before this process can own anything (see _leases)
            self._leases.register(self.executor_id, __version__)
            self._observer.connected_now()
            if self.worker:
                self._recovery = Recovery(
                    self._leases, self.executor_id, DEFAULT_QUEUE, self._observer
                )
            if self._named:  # a restarted worker takes its previous runs back, here only
                take_back(lease_engine, self.executor_id, self.ownership.own_queue)
            poll = LISTENER_POLL_SECONDS if self.worker else COMMAND_LISTENER_POLL_SECONDS
            DBOS(config=dbos_config(url, self.executor_id, sys_engine, listener_poll_seconds=poll))
            if self._named:
                self.listen_own_queue()
            # Plain commands execute their own runs only (and what lands on their own
            # queue); queued and recovered work is `cfnops worker`'s. A worker dequeues
            # from the default queue and from the queues of runs that need what it has
            # (never from those it lacks: DBOS would otherwise listen to every queue any
            # process registered).
            DBOS.listen_queues([DEFAULT_QUEUE, *self._needs_queues()] if self.worker else [])
            DBOS.launch()
        if self.worker:
            self.queue(
                DEFAULT_QUEUE,
                worker_concurrency=self.settings.worker.concurrency,
                global_concurrency=self.settings.worker.global_concurrency,
            )
            # runs handed over by processes that lacked what this one has
            for name in self._needs_queues():
                self.queue(name, worker_concurrency=self.settings.worker.concurrency)
        self._liveness.file_opened()
        self.recover()  # a worker only
        recover = self.recover if self._recovery is not None else None
        self._liveness.start(self._leases, worker, self.ownership.hand_back, recover)

    def _needs_queues(self) -> list[str]:
        has = [f"workflow {n}" for n in registered()]
        has += [f"module {m}" for m in self.settings.worker.workflow_modules]
        return [needs_queue(needs) for needs in has]

    def shutdown(self, grace_seconds: float = 5.0) -> None:
        """Stop executing; runs still in flight are recovered by the next process.

        Runs this process executes get up to ``grace_seconds`` to finish; with none in
        flight, shutdown does not wait at all (DBOS's own grace period sleeps whole
        seconds before it looks).
        """
        self._liveness.stop()
        deadline = time.monotonic() + grace_seconds
        in_flight = [f for f in list(self._running.values()) if not f.done()]
        if in_flight and grace_seconds > 0:
            wait_futures(in_flight, timeout=grace_seconds)
        active = active_workflows()
        while active and time.monotonic() < deadline:  # e.g. a worker's queued runs
            time.sleep(0.02)
            active = active_workflows()
        if self._leases is not None:
            try:
                self._leases.mark_stopped(self.executor_id)
            except Exception as exc:  # the database failed: the lease expires by itself
                found = storage_error(exc)
                if found is None:
                    raise
                _log.warning("could not mark this executor stopped: %s", found.message)
        DBOS.destroy(
            workflow_completion_timeout_sec=0 if active is not None else int(grace_seconds)
        )
        self.ownership.release()
        with Engine._class_lock:
            if Engine._current is self:
                Engine._current = None

    def awaits_worker(self, run_id: str, needs: str, hint: str) -> None:
        """Note that ``run_id``, which this process waits for, is already on the queue of
        the workers with ``needs``: :meth:`check_stranded` says so if none takes it."""
        self.ownership.handed_over.awaits_worker(run_id, needs, hint)

    # -- queues ----------------------------------------------------------------

    def queue(
        self,
        name: str,
        *,
        worker_concurrency: int | None = None,
        global_concurrency: int | None = None,
    ) -> Any:
        """Register (or fetch) a DBOS queue; limits apply per executor / globally.

        A worker dequeues at most ``worker_concurrency`` runs per poll: the default
        queue's poll interval (``worker.queue_poll_seconds``) bounds a worker's
        throughput at concurrency / interval runs a second. The queues of handed-over
        runs (one per workflow and module a worker has, rarely used) are polled every
        :data:`HANDED_OVER_POLL_SECONDS`. An interval is stored with its queue: the
        last worker started sets it for all.
        """
        found = self._queues.get(name)
        if found is None:
            poll = (
                self.settings.worker.queue_poll_seconds
                if name == DEFAULT_QUEUE
                else HANDED_OVER_POLL_SECONDS
            )
            found = DBOS.register_queue(
                name,
                worker_concurrency=worker_concurrency,
                global_concurrency=global_concurrency,
                polling_interval_sec=poll,
                on_conflict="always_update" if self.worker else "never_update",
            )
            self._queues[name] = found
        return found

    # -- runs ------------------------------------------------------------------

    def start(
        self,
        workflow: str,
        event: Any,
        *,
        run_id: str | None = None,
        queue: str | None = None,
        id_prefix: str | None = None,
        runtime: Runtime | None = None,
    ) -> RunHandle:
        """Start ``workflow`` on ``event``; the same ``run_id`` again returns the same run.

        Without ``run_id`` the id is ``<id_prefix or workflow>-<12 random hex digits>``
        and, being new, is not looked up first. With ``queue`` the run is enqueued
        for ``cfnops worker`` processes; without it, this process executes it in a
        background thread. ``runtime`` (default: the engine's) is what the run executes
        on here; its AWS region, endpoint and profile and its modules are recorded with
        the run, so that any other process that continues it works in the same place.
        """
        get_workflow(workflow)
        check_json("input", event)
        check_input(workflow, event)
        if run_id is None:
            run_id = f"{id_prefix or workflow}-{uuid.uuid4().hex[:12]}"
        else:
            check_run_id(run_id)
            if DBOS.get_workflow_status(run_id) is not None:
                self.started[run_id] = workflow
                if queue is None:  # the same command again: continue it if its process died
                    self.adopt(run_id)
                return RunHandle(run_id, workflow, existed=True)
        runtime = self._adopt_runtime(runtime) if runtime is not None else self.runtime
        context = run_context(runtime)
        self.started[run_id] = workflow
        if queue is None and runtime is not self.runtime:
            with self._runtimes_lock:
                self._run_runtimes[run_id] = runtime
        with SetWorkflowID(run_id):
            if queue is not None:
                self.queue(queue).enqueue(_run, workflow, event, context)
            else:
                self._track(run_id, DBOS.start_workflow(_run, workflow, event, context))
        return RunHandle(run_id, workflow)

    def listen_own_queue(self) -> str:
        """Start polling this process's own queue (on first use); its name."""
        return self.ownership.listen_own_queue()

    def adopt(self, run_id: str) -> bool:
        """Continue ``run_id`` here if nothing else can: its executor is dead (or it waits
        on the workers' queue for a worker). ``True`` if this process took it.

        For a command asked to continue one named run (``job run --name`` again,
        ``runs resume``, ``approve``): see :meth:`RunOwnership.adopt`.
        """
        assert self._leases is not None
        return self.ownership.adopt(run_id, self._leases)

    def _track(self, run_id: str, handle: Any) -> None:
        future = getattr(handle, "future", None)  # DBOS's WorkflowHandleFuture
        if not isinstance(future, Future):
            return
        if len(self._running) >= 256:  # forget runs that ended (a long-lived worker)
            self._running = {k: f for k, f in self._running.items() if not f.done()}
            with self._runtimes_lock:
                self._run_runtimes = {
                    k: r for k, r in self._run_runtimes.items() if k in self._running
                }
        self._running[run_id] = future

    def wait_local(self, run_id: str, timeout: float | None = None) -> bool | None:
        """Wait until this process's execution of ``run_id`` ends (at most ``timeout`` s).

        True when it has ended here (DBOS has recorded its outcome), False when it still
        runs; None at once when this process did not start it (poll its status instead).
        """
        future = self._running.get(run_id)
        if future is None:
            return None
        wait_futures([future], timeout=timeout)
        return future.done()

    def check_stranded(self, run_id: str) -> None:
        """:class:`RunStranded` when a storage fault has stopped ``run_id`` here for longer
        than ``worker.stranded_after_seconds``, :class:`RunNeedsWorker` when it was handed
        over that long ago and no worker with what it needs has taken it (a waiting
        command then says so and ends; the run is kept)."""
        if self.fatal is not None:
            raise self.fatal
        self.ownership.check_stranded(run_id, self.settings.worker.stranded_after_seconds)

    def result(self, run_id: str, timeout: float | None = None) -> Any:
        """Wait for the run to end; its output, or :class:`RunFailed`.

        A run executed elsewhere is polled every 50 ms. One executed here is woken the
        moment its execution ends, and its status is read meanwhile at a pace that
        slows from 50 ms to 1 s (a cancel from another process is seen within a
        second): a status read is a query, which a 50 ms poll made ~7 % of a
        checkpointed step's CPU on SQLite.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        pause = 0.05
        while True:
            self.check_stranded(run_id)
            future = self._running.get(run_id)
            if future is not None and not future.done():
                if deadline is not None:
                    pause = min(pause, max(0.0, deadline - time.monotonic()) + 0.001)
                wait_futures([future], timeout=pause)
                pause = min(pause * 2, 1.0)
            status = retry_while_unreachable(  # a blip must not report a success as a failure
                lambda: DBOS.get_workflow_status(run_id),
                what=f"waiting for run {run_id}",
                give_up_after=self.settings.worker.stranded_after_seconds,
            )
            if status is None:
                raise UnknownRun(run_id)
            if status.status == "SUCCESS":  # known to exist: no second status read
                return DBOS.retrieve_workflow(run_id, existing_workflow=False).get_result()
            if status.status in ("ERROR", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"):
                raise RunFailed(run_id, str(status.error))
            if status.status == "CANCELLED":
                raise RunCancelled(run_id)
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"run {run_id} still {status.status} after {timeout} s")
            if future is None or future.done():
                time.sleep(0.05)

    def status(self, run_id: str) -> str | None:
        """DBOS's status of ``run_id`` (``PENDING``, ``SUCCESS``, ``ERROR``, ``CANCELLED``…)."""
        found = DBOS.get_workflow_status(run_id)
        return None if found is None else str(found.status)

    def cancel(self, run_id: str) -> None:
        """Cancel ``run_id``: it stops at its next step and is not recovered."""
        DBOS.cancel_workflow(run_id)

    def send_callback(self, callback_id: str, result: Any = None, *, failed: bool = False) -> None:
        """Answer a ``wait_for_callback`` (callback ids are ``<run id>:<name>``)."""
        run_id = callback_id.split(":", 1)[0]
        message = {"status": "FAILED" if failed else "SUCCEEDED", "result": result}
        if failed:
            message["error"] = result
        DBOS.send(run_id, message, topic=callback_id)

    # -- recovery --------------------------------------------------------------

    def recover(self) -> list[str]:
        """A worker: claim every pending run whose executor is dead for the workers'
        queue; return their ids. A foreground engine recovers nothing."""
        if self._recovery is None:
            return []
        return self._recovery.recover()
