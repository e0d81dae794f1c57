"""Helper threads reused from one call to the next (starting a thread per Task call cost
a worker draining short job runs more CPU than the call itself).

A call handed to :func:`on_helper` runs on an idle helper thread, or on a new one when
none is idle: a call never waits for another to end (an abandoned call that never
returns holds its thread, not the next call); each call starts with no context variables,
as on a new thread. Helpers are daemon threads, like the
thread per call they replace, so a call that hangs does not keep the process alive; a
helper idle for ``IDLE_SECONDS`` ends.
"""

from __future__ import annotations

import contextvars
import logging
import os
import queue
import threading
from collections.abc import Callable

__all__ = ["on_helper"]

IDLE_SECONDS = 30.0
_log = logging.getLogger("cfnops.jobs")


class _Helpers:
    """Idle helpers wait on one queue; ``_idle`` counts those no queued call is meant for
    (always the helpers waiting minus the calls queued)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._lock = threading.Lock()
        self._calls: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._idle = 0
        self._started = 0

    def submit(self, call: Callable[[], None]) -> None:
        with self._lock:
            if self._idle > 0:
                self._idle -= 1
                self._calls.put(call)
                return
            self._started += 1
            number = self._started
        threading.Thread(
            target=self._serve, args=(call,), name=f"{self.name}-{number}", daemon=True
        ).start()

    def _serve(self, call: Callable[[], None]) -> None:
        while True:
            try:  # in an empty context, as on a new thread: nothing left by the last call
                contextvars.Context().run(call)
            except BaseException:  # pragma: no cover - callers catch their own errors
                _log.exception("a helper thread's call failed")
            with self._lock:
                self._idle += 1
            try:
                call = self._calls.get(timeout=IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    try:  # a call queued as the wait ended: this helper takes it
                        call = self._calls.get_nowait()
                    except queue.Empty:
                        self._idle -= 1
                        return

    def forget(self) -> None:
        """In a forked child: the parent's helpers are not there (none is idle)."""
        self._lock = threading.Lock()
        self._calls = queue.SimpleQueue()
        self._idle = 0


_TASKS = _Helpers("job-task")
os.register_at_fork(after_in_child=_TASKS.forget)


def on_helper(call: Callable[[], None]) -> None:
    """Run ``call`` on a helper thread (it must catch its own errors)."""
    _TASKS.submit(call)
