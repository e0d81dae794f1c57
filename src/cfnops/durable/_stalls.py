"""Runs stopped by a storage fault: kept RUNNING, handed back once the database works.

A run whose execution meets a fault of the database under it (unreachable, full,
read-only, file gone: any error :func:`storage_error` names, or one tagged as a host
fault) must not end FAILED: nothing is wrong with the run. Its workflow function has
unwound, so this execution cannot go on; instead it

1. stops without recording an outcome (DBOS "parks" an execution that no longer owns
   its run: it records nothing and waits for the run's recorded outcome);
2. is remembered here, with the fault;
3. once a write to the database succeeds again (the engine's heartbeat), is handed
   back to its queue (``status = PENDING AND executor = this one`` → ``ENQUEUED``),
   so any live process with its workflow (this one included) continues it from its
   last checkpoint: finished steps are not run again.

If this process dies first, the run is PENDING under a dead executor, which the
usual recovery (:meth:`Engine.recover`) hands back the same way.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from cfnops.database import StorageError, storage_error
from cfnops.durable.errors import RunStranded
from cfnops.errors import is_host_fault

__all__ = ["Stall", "Stalls"]

_log = logging.getLogger("cfnops.durable")


@dataclass(frozen=True)
class Stall:
    run_id: str
    since: float  # time.monotonic()
    error: StorageError | None
    text: str


class Stalls:
    """The runs this process stopped on a storage fault, until handed back."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[str, Stall] = {}

    def add(self, run_id: str, exc: BaseException) -> bool:
        """Remember ``run_id`` if ``exc`` is a storage fault; ``False`` if it is not."""
        error = storage_error(exc)
        if error is None and not is_host_fault(exc):
            return False
        text = error.message if error is not None else f"{type(exc).__name__}: {exc}"
        with self._lock:
            self._runs[run_id] = Stall(run_id, time.monotonic(), error, text)
        _log.warning(
            "run %s stopped: %s; it stays RUNNING and continues from its last checkpoint "
            "once the database works again",
            run_id,
            text,
            extra={"run_id": run_id},
        )
        return True

    def get(self, run_id: str) -> Stall | None:
        with self._lock:
            return self._runs.get(run_id)

    def pending(self) -> list[str]:
        with self._lock:
            return list(self._runs)

    def done(self, run_id: str) -> None:
        with self._lock:
            self._runs.pop(run_id, None)

    def check(self, run_id: str, grace_seconds: float) -> None:
        """:class:`RunStranded` if ``run_id`` has been stopped here for ``grace_seconds``."""
        found = self.get(run_id)
        if found is not None and time.monotonic() - found.since >= grace_seconds:
            raise RunStranded(run_id, found.text, database=_database(found))


def _database(stall: Stall) -> str | None:
    return stall.error.database if stall.error is not None else None
