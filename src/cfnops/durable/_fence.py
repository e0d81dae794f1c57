"""Fencing: an execution that lost its run stops before its next step, and its late
checkpoint writes are refused.

DBOS gives every execution of a run an ownership token (``owner_xid``) when it starts
or dequeues the run; recovery and hand-over clear it, and the next dequeue sets a new
one. DBOS checks it on its own step writes. cfnops's checkpoints by position (job-nets'
Task effects, their end) are written beside DBOS's tables, so they carry the same check:

- :meth:`Fence.check` before an effect starts: one indexed read; a run taken over is
  stopped there, so a second owner never starts an effect the first is about to;
- :meth:`Fence.guard` inside the transaction that records an effect's result: the
  ``workflow_status`` row is locked and compared, so a hand-over cannot land between
  the check and the write.

A refused write is not an outage to retry: the execution is parked (DBOS records
nothing for it and waits for the outcome its new owner records), with one warning
naming the run, what was refused and why. After a real crash, at most the one effect
in flight when ownership moved runs again (at least once, with the same idempotency
token); a finished one never does.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from cfnops.durable._dbos_port import check_owner, current_owner, lost_ownership, park

__all__ = ["Fence"]

_log = logging.getLogger("cfnops.durable")


@dataclass
class Fence:
    """One execution's claim on its run (``token``: ``None`` outside DBOS, never fenced)."""

    run_id: str
    token: str | None
    executor_id: str = ""
    _lost: bool = field(default=False, repr=False)

    def check(self, before: str = "its next step") -> None:
        """Stop (park) this execution if another one owns the run now."""
        if self.token is None:
            return
        if self._lost:
            self._stop(f"stopped before {before}")
        owner, status = current_owner(self.run_id)
        if owner != self.token:
            self._stop(f"stopped before {before}", cancelled=status == "CANCELLED")

    def guard(self, conn: Any, what: str = "a checkpoint") -> None:
        """In ``conn``'s write transaction: refuse the write if the run was taken over."""
        if self.token is None:
            return
        try:
            check_owner(conn, self.run_id, self.token)
        except BaseException as exc:
            if type(exc) is type(lost_ownership(self.run_id)):
                _owner, status = current_owner(self.run_id)
                self._stop(f"{what} refused", cancelled=status == "CANCELLED")
            raise

    def _stop(self, what: str, *, cancelled: bool = False) -> None:
        if cancelled:  # `runs cancel`: stop here, as DBOS stops a cancelled run's step
            if not self._lost:
                self._lost = True
                _log.warning(
                    "run %s was cancelled: %s", self.run_id, what, extra={"run_id": self.run_id}
                )
            raise park(f"run {self.run_id} was cancelled")
        if not self._lost:
            self._lost = True
            _log.warning(
                "run %s was taken over by another process (executor %s no longer owns it): "
                "%s; this execution stops and the run's owner continues it",
                self.run_id,
                self.executor_id or "-",
                what,
                extra={"run_id": self.run_id},
            )
        raise lost_ownership(self.run_id)
