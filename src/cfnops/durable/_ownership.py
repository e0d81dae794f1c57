"""Which runs this process continues itself, and which it gives to other processes.

A foreground process executes the runs it starts, and besides them only what lands on
a queue of its own (``cfnops executor <id>``, which DBOS lets no other process poll):

- a run it is asked to continue (:meth:`RunOwnership.adopt`: ``job run --name`` again,
  ``runs resume``, ``approve``), taken only when nothing else can continue it;
- a run a storage fault stopped here, handed back once a write works again
  (:meth:`RunOwnership.hand_back`, :mod:`cfnops.durable._stalls`).

A run this process cannot execute (a workflow or module it lacks) is handed over to
the queue of the processes that have it (:class:`cfnops.durable._executors.HandedOver`).
Every claim is one conditional statement (:func:`cfnops.durable._dbos_port.claim`), so
two processes never both take a run and a live owner is never displaced.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from dbos import DBOS

from cfnops.durable._dbos_port import claim, private_queue, release_private_queue
from cfnops.durable._executors import HandedOver
from cfnops.durable._leases import LeaseTable
from cfnops.durable._stalls import Stalls
from cfnops.durable.errors import NotRunnableHere

_log = logging.getLogger("cfnops.durable")

# A process's own queue holds what it continues itself (a run a storage fault stopped, a
# run adopted or resumed): rare, so a slower poll than the workers' queue.
OWN_QUEUE_POLL_SECONDS = 0.2
OWN_QUEUE_PREFIX = "cfnops executor "


def own_queue(executor_id: str) -> str:
    """The queue only the process of ``executor_id`` dequeues from."""
    return OWN_QUEUE_PREFIX + executor_id


class RunOwnership:
    """The runs one executor adopts, hands back to itself and hands over to others.

    ``default_queue`` is the workers' queue (a run waiting there may be adopted);
    ``needs_queue`` names the queue of the processes with a given need.
    """

    def __init__(
        self, executor_id: str, default_queue: str, needs_queue: Callable[[str], str]
    ) -> None:
        self.executor_id = executor_id
        self.default_queue = default_queue
        # the queue only this process dequeues from: its runs stopped by a storage fault,
        # runs it adopts or resumes
        self.own_queue = own_queue(executor_id)
        self._own_queue_on = False
        # runs stopped here by a storage fault, handed back once the database works
        self.stalls = Stalls()
        # runs handed over here to the workers that have what they need: when, and why
        self.handed_over = HandedOver(executor_id, needs_queue)
        # executions parked here (handed over, or stopped by a storage fault): each only
        # waits for the outcome another execution records, so an exit need not wait for them
        self.parked = 0

    def listen_own_queue(self) -> str:
        """Start polling this process's own queue (on first use: most processes never
        put anything there, and every poll of a queue is a write transaction on SQLite)."""
        if not self._own_queue_on:
            private_queue(self.own_queue, OWN_QUEUE_POLL_SECONDS)
            self._own_queue_on = True
        return self.own_queue

    def release(self) -> None:
        """At shutdown: stop polling this process's own queue, if it ever did."""
        if self._own_queue_on:
            release_private_queue(self.own_queue)

    def adopt(self, run_id: str, leases: LeaseTable) -> bool:
        """Continue ``run_id`` here if nothing else can: its executor is dead (or it waits
        on the workers' queue for a worker). ``True`` if this process took it.

        The claim is one conditional statement, so a worker recovering the same run at
        the same moment and this process cannot both take it, and a live owner is never
        displaced.
        """
        found = DBOS.get_workflow_status(run_id)
        if found is None:
            return False
        if found.status == "ENQUEUED" and found.queue_name == self.default_queue:
            return claim(run_id, self.listen_own_queue(), from_queue=self.default_queue)
        if found.status != "PENDING":
            return False
        owner = found.executor_id or "local"
        if owner == self.executor_id:
            return False
        rows = {r.executor_id: r for r in leases.rows()}
        row = rows.get(owner)
        if row is not None and not leases.is_dead(row):
            return False
        return claim(run_id, self.listen_own_queue(), executor=owner)

    def hand_over(self, run_id: str, missing: NotRunnableHere) -> bool:
        """Move ``run_id`` (executed here) to the queue of the processes that have what it
        needs, and count its execution parked; ``False`` when it was not this process's
        to move."""
        if not self.handed_over.hand_over(run_id, missing):
            return False
        self.parked += 1
        return True

    def stall(self, run_id: str, exc: Exception) -> bool:
        """Keep ``run_id`` (executed here) RUNNING after a storage fault, and count its
        execution parked; ``False`` when ``exc`` is not a fault of the database."""
        if not self.stalls.add(run_id, exc):
            return False
        self.parked += 1
        return True

    def hand_back(self) -> None:
        """Put the runs stopped here by a storage fault back on this process's own queue
        (a write just worked): this process continues them, no other."""
        for run_id in self.stalls.pending():
            found = DBOS.get_workflow_status(run_id)
            if (
                found is None
                or found.status != "PENDING"
                or claim(run_id, self.listen_own_queue(), executor=self.executor_id)
            ):
                self.stalls.done(run_id)
                _log.warning(
                    "run %s continues from its last checkpoint", run_id, extra={"run_id": run_id}
                )

    def check_stranded(self, run_id: str, grace: float) -> None:
        """:class:`RunStranded` / :class:`RunNeedsWorker` (see :meth:`Engine.check_stranded`)."""
        self.stalls.check(run_id, grace)
        self.handed_over.check(run_id, grace)
