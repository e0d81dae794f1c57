"""The engine's two background threads on the database: the heartbeat and the sweep.

The heartbeat renews this process's lease (nothing else may delay a renewal) and
watches for what ends this process's use of the database: its SQLite file deleted or
replaced, its executor id taken by another process (:attr:`Liveness.fatal`). It also
notes when the database stops and starts answering. The sweep, only while the database
answers, hands back runs a storage fault stopped here and, in a worker, recovers dead
executors' runs.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from cfnops._version import __version__
from cfnops.config import WorkerSettings
from cfnops.database import DatabaseFileGone, SqliteDatabase, storage_error
from cfnops.durable._leases import LeaseObserver, LeaseTable
from cfnops.durable.errors import ExecutorIdTaken
from cfnops.errors import CfnopsError

_log = logging.getLogger("cfnops.durable")


class Liveness:
    """The heartbeat and sweep threads of one executor (:meth:`start`, :meth:`stop`)."""

    def __init__(
        self, executor_id: str, observer: LeaseObserver, file: SqliteDatabase | None
    ) -> None:
        self.executor_id = executor_id
        self._observer = observer
        self._outage_since: float | None = None
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        # the SQLite file this process opened (device, inode), checked every heartbeat
        self._file = file
        self._file_id: tuple[int, int] | None = None  # taken once the file is open
        # set when this process must stop using the database (its file deleted/replaced,
        # its identity taken by another process)
        self.fatal: CfnopsError | None = None

    def file_opened(self) -> None:
        """Note the SQLite file's identity now open (the heartbeat checks it)."""
        self._file_id = self._file.file_identity() if self._file else None

    def start(
        self,
        leases: LeaseTable,
        worker: WorkerSettings,
        hand_back: Callable[[], None],
        recover: Callable[[], object] | None,
    ) -> None:
        """Start both threads: ``hand_back`` every sweep, ``recover`` (a worker's) every
        ``worker.recovery_interval_seconds``."""
        self._spawn(self._heartbeat_loop, "cfnops-heartbeat", leases, worker)
        self._spawn(self._sweep_loop, "cfnops-sweep", worker, hand_back, recover)

    def stop(self) -> None:
        """Stop both threads (each waits at most 2 s)."""
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=2)

    def _spawn(self, target: Callable[..., None], name: str, *args: object) -> None:
        thread = threading.Thread(target=target, name=name, args=args, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _heartbeat_loop(self, leases: LeaseTable, worker: WorkerSettings) -> None:
        """Renew this process's lease, and nothing else: a renewal must never wait behind
        another statement (a hand-back or a recovery sweep that DBOS retries through an
        outage), or a live process would look dead to another host once the database is
        back."""
        beat = worker.heartbeat_seconds
        while not self._stop.wait(beat):
            if self._file_replaced():
                return
            try:
                began = time.monotonic()
                leases.heartbeat(self.executor_id, __version__)
                if time.monotonic() - began > max(beat, 1.0):
                    # the write waited (a lock, a slow disk, a reconnect): nobody could
                    # renew meanwhile, so what was watched until now proves nothing
                    self._observer.disconnected()
                self._observer.connected_now()
                self._database_back()
            except ExecutorIdTaken as exc:  # another process runs as this one now: stop
                self.fatal = exc
                _log.error("%s (%s)", exc.message, exc.hint)
                return
            except Exception as exc:  # keep beating through database faults
                self._observer.disconnected()  # nobody renews now: judge no lease
                self._database_down(exc)

    def _sweep_loop(
        self,
        worker: WorkerSettings,
        hand_back: Callable[[], None],
        recover: Callable[[], object] | None,
    ) -> None:
        """Hand back runs a storage fault stopped here; in a worker, recover dead
        executors' runs. Only while the database answers the heartbeat."""
        beat = worker.heartbeat_seconds
        sweep_every = worker.recovery_interval_seconds
        last_sweep = time.monotonic()
        while not self._stop.wait(beat):
            if self.fatal is not None:
                return
            if self._outage_since is not None or not self._observer.connected:
                continue
            try:
                hand_back()
                if recover is not None and time.monotonic() - last_sweep >= sweep_every:
                    recover()
                    last_sweep = time.monotonic()
            except Exception as exc:  # the heartbeat reports outages; retry next time
                if storage_error(exc) is None:
                    _log.warning("recovery sweep failed, retrying: %s", exc)

    def _database_down(self, exc: Exception) -> None:
        """One line when an outage starts (not one per beat, nor per failed statement)."""
        if self._outage_since is not None:
            return
        self._outage_since = time.monotonic()
        found = storage_error(exc)
        text = found.message if found is not None else f"{type(exc).__name__}: {exc}"
        _log.warning(
            "the durable database does not answer (%s): runs here wait, none is lost or "
            "repeated; they continue when it answers again",
            text,
        )

    def _database_back(self) -> None:
        if self._outage_since is None:
            return
        down = time.monotonic() - self._outage_since
        self._outage_since = None
        _log.warning("the durable database answers again (after %.1f s)", down)

    def _file_replaced(self) -> bool:
        """The SQLite file was deleted or replaced: writes would go to a file nobody reads."""
        if self._file is None or self._file_id is None:
            return False
        now = self._file.file_identity()
        if now == self._file_id:
            return False
        detail = "the file is gone" if now is None else "another file took its place"
        self.fatal = DatabaseFileGone(self._file.path, detail)
        _log.error("%s (%s)", self.fatal.message, self.fatal.hint)
        return True
