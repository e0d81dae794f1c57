"""The engine's bookkeeping about executors: dead ones' runs recovered, runs handed over.

Every process that runs an engine is an executor with a lease (:mod:`cfnops.durable._leases`,
renewed by the engine's heartbeat). Two things follow from leases, kept here:

- :class:`Recovery`: a PENDING run whose executor's lease has lapsed is re-enqueued, one
  run at a time, for any live process with its workflow (DBOS itself recovers per
  executor only); runs recorded by another cfnops version, or of a workflow this process
  has not registered, are left alone with one warning each.
- :class:`HandedOver`: a run this process cannot execute (it lacks the run's workflow or
  module) is moved, untouched, to the queue of the workers that have it; a command that
  waits for it is told when no such worker takes it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from dbos import DBOS

from cfnops._version import __version__
from cfnops.durable._dbos_port import hand_over, reenqueue
from cfnops.durable._inputs import run_args
from cfnops.durable._leases import LeaseTable
from cfnops.durable._registry import registered
from cfnops.durable.errors import NotRunnableHere, RunNeedsWorker

__all__ = ["HandedOver", "Recovery"]

_log = logging.getLogger("cfnops.durable")


class Recovery:
    """Re-enqueues the pending runs of dead executors (see :meth:`recover`)."""

    def __init__(self, leases: LeaseTable, executor_id: str) -> None:
        self._leases = leases
        self._executor_id = executor_id
        self._warned: set[str] = set()

    def recover(self) -> list[str]:
        """Re-enqueue every pending run whose executor is dead; return their ids."""
        live = self._leases.live_ids() | {self._executor_id}
        pending = DBOS.list_workflows(status="PENDING", load_input=True, load_output=False)
        known = set(registered())
        recovered: list[str] = []
        dead: set[str] = set()
        for wf in pending:
            owner = wf.executor_id or "local"
            if owner in live:
                continue
            if wf.app_version != __version__:
                self._warn_incompatible(wf.workflow_id, str(wf.app_version))
                continue
            args = run_args(wf.input)
            name = args[0] if args else None
            if name not in known:
                self._warn_unregistered(wf.workflow_id, str(name))
                continue
            # DBOS recovers per executor only; one run at a time goes through the port.
            if reenqueue(wf.workflow_id, owner):
                recovered.append(wf.workflow_id)
                dead.add(owner)
        if recovered:
            _log.info("recovered %d run(s) from dead executors: %s", len(recovered), recovered)
        # A pending run whose executor has no row counts as dead too, so dead rows
        # can go once their runs are re-enqueued.
        self._leases.forget(
            [r.executor_id for r in self._leases.rows() if r.executor_id not in live]
        )
        return recovered

    def _warn_incompatible(self, run_id: str, version: str) -> None:
        if run_id not in self._warned:
            self._warned.add(run_id)
            _log.warning(
                "run %s was recorded by cfnops %s; this is cfnops %s and will not resume it "
                "(finish it with cfnops %s, or cancel it and start again)",
                run_id,
                version,
                __version__,
                version,
            )

    def _warn_unregistered(self, run_id: str, name: str) -> None:
        if run_id not in self._warned:
            self._warned.add(run_id)
            _log.warning(
                "run %s needs workflow %r, which this process has not registered; "
                "add its module to worker.workflow_modules",
                run_id,
                name,
            )


class HandedOver:
    """The runs this process handed over (or waits for on another worker's queue): when,
    and why."""

    def __init__(self, executor_id: str, needs_queue: Callable[[str], str]) -> None:
        self._executor_id = executor_id
        self._needs_queue = needs_queue
        self._runs: dict[str, tuple[float, NotRunnableHere]] = {}

    def hand_over(self, run_id: str, missing: NotRunnableHere) -> bool:
        """Move ``run_id`` (executed here) to the queue of the processes that have what it
        needs; ``False`` when it was not this process's to move."""
        if not hand_over(run_id, self._executor_id, self._needs_queue(missing.needs)):
            return False
        self._runs[run_id] = (time.monotonic(), missing)
        _log.warning(
            "run %s needs %s, which this process lacks: left QUEUED for a process that has it (%s)",
            run_id,
            missing.needs,
            missing.hint,
        )
        return True

    def awaits_worker(self, run_id: str, needs: str, hint: str) -> None:
        """Note that ``run_id``, which this process waits for, is already on the queue of
        the workers with ``needs``: :meth:`check` says so if none takes it."""
        if run_id not in self._runs:
            missing = NotRunnableHere(needs, f"this process cannot run {needs}", hint=hint)
            self._runs[run_id] = (time.monotonic(), missing)

    def check(self, run_id: str, grace: float) -> None:
        """:class:`RunNeedsWorker` when ``run_id`` was handed over ``grace`` seconds ago or
        more and no worker with what it needs has taken it."""
        handed = self._runs.get(run_id)
        if handed is not None and time.monotonic() - handed[0] >= grace:
            # still on the queue it was handed to: no worker with what it needs took it
            found = DBOS.get_workflow_status(run_id)
            needs = self._needs_queue(handed[1].needs)
            if found is not None and found.status == "ENQUEUED" and found.queue_name == needs:
                raise RunNeedsWorker(run_id, handed[1], time.monotonic() - handed[0])
            del self._runs[run_id]
