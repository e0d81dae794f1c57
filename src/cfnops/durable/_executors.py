"""The engine's bookkeeping about executors: dead ones' runs recovered, runs handed over.

Every process that runs an engine is an executor with a lease (:mod:`cfnops.durable._leases`,
renewed by the engine's heartbeat). Two things follow from leases, kept here:

- :class:`Recovery` (workers only): a PENDING run whose executor is dead is claimed, one
  run at a time and conditionally on its executor, onto the workers' queue (DBOS itself
  recovers per executor only, and onto its internal queue, which every DBOS process
  dequeues from: a foreground command would take runs not made for it); runs recorded
  by another cfnops version, or of a workflow this process has not registered, are left
  alone with one warning each.
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
from cfnops.durable._dbos_port import claim
from cfnops.durable._inputs import run_args
from cfnops.durable._leases import ExecutorRow, LeaseObserver, LeaseTable
from cfnops.durable._registry import registered
from cfnops.durable.errors import NotRunnableHere, RunNeedsWorker

__all__ = ["HandedOver", "Recovery"]

_log = logging.getLogger("cfnops.durable")


class Recovery:
    """Claims the pending runs of dead executors for the workers' queue (see :meth:`recover`)."""

    def __init__(
        self, leases: LeaseTable, executor_id: str, queue: str, observer: LeaseObserver
    ) -> None:
        self._leases = leases
        self._executor_id = executor_id
        self._queue = queue
        self._observer = observer
        self._warned: set[str] = set()

    def recover(self) -> list[str]:
        """Claim every pending run whose executor is dead; return their ids.

        The pending runs are read *before* the executors: a process that registers in
        between has a row by the time it could own a run, so no run is ever judged by a
        list that predates its owner.
        """
        if not self._observer.connected:  # an outage: nobody could renew, judge nothing
            return []
        pending = DBOS.list_workflows(status="PENDING", load_input=True, load_output=False)
        rows = {r.executor_id: r for r in self._leases.rows()}
        dead: dict[str, ExecutorRow] = {
            executor_id: row
            for executor_id, row in rows.items()
            if executor_id != self._executor_id
            and self._leases.is_dead(row, observer=self._observer)
        }
        known = set(registered())
        recovered: list[str] = []
        for wf in pending:
            owner = wf.executor_id or "local"
            if owner == self._executor_id or (owner in rows and owner not in dead):
                continue
            if wf.app_version != __version__:
                self._warn_incompatible(wf.workflow_id, str(wf.app_version))
                continue
            args = run_args(wf.input)
            name = args[0] if args else None
            if name not in known:
                self._warn_unregistered(wf.workflow_id, str(name))
                continue
            if claim(wf.workflow_id, self._queue, executor=owner):
                recovered.append(wf.workflow_id)
        if recovered:
            _log.info("recovered %d run(s) from dead executors: %s", len(recovered), recovered)
        # Rows judged dead go, each only if it still holds the heartbeat judged (their
        # runs are claimed; one that could not be stays pending under no row: still dead).
        self._leases.forget(list(dead.values()))
        self._observer.forget(list(dead))
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
        if not claim(run_id, self._needs_queue(missing.needs), executor=self._executor_id):
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
