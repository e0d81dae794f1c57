"""Process-wide sandbox state: delays, fault configuration, recorded events, timers.

moto keeps its backends in module globals, so everything that shapes how the
sandbox answers lives in one process-wide :class:`SandboxState` reached through
:func:`current_state`. Extensions read it at call time, never at install time,
so a change made through the control API or :meth:`SandboxState.set_delays`
applies to the very next request.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from typing import Any

__all__ = ["Delays", "SandboxState", "current_state"]

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Delays:
    """Seconds each emulated asynchronous operation takes before it settles.

    Defaults are short but realistic (1-3 s) so poll loops are exercised; tests
    use :meth:`zero`. Sandbox extensions look their delay up by field name.
    """

    drift_detection: float = 2.0
    change_set_create: float = 1.0
    change_set_execute: float = 2.0
    ssm_command: float = 2.0
    backup_job: float = 3.0
    ec2_transition: float = 2.0
    rds_transition: float = 3.0
    event_delivery: float = 0.0
    instance_refresh: float = 1.0

    @classmethod
    def zero(cls) -> Delays:
        """Every delay 0: operations settle on the next request."""
        return cls.uniform(0.0)

    @classmethod
    def uniform(cls, seconds: float) -> Delays:
        """Every delay set to ``seconds``."""
        if seconds < 0:
            raise ValueError("delays cannot be negative")
        return cls(**{f.name: float(seconds) for f in fields(cls)})

    def with_values(self, **values: float) -> Delays:
        """A copy with some delays changed; unknown names raise ``ValueError``."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown delay(s) {unknown}; known: {sorted(known)}")
        if any(v < 0 for v in values.values()):
            raise ValueError("delays cannot be negative")
        return replace(self, **{k: float(v) for k, v in values.items()})

    def as_dict(self) -> dict[str, float]:
        return {f.name: float(getattr(self, f.name)) for f in fields(self)}


@dataclass(order=True)
class _Timer:
    due: float
    seq: int
    action: Callable[[], None] = None  # type: ignore[assignment]


class SandboxState:
    """Mutable, lock-protected settings and bookkeeping shared by all extensions.

    - ``delays``: a frozen :class:`Delays`, replaced as a whole;
    - ``faults``: a free-form mapping owned by the fault-injection extension;
    - ``events``: every event the sandbox emitted (EventBridge-shaped dicts);
    - ``extras``: per-extension stores keyed by extension name;
    - timers: callbacks run once their time is due (checked before each request
      and by :meth:`run_due`), so state transitions need no background threads.
    """

    def __init__(self, delays: Delays | None = None) -> None:
        self.lock = threading.RLock()
        self.delays: Delays = delays or Delays()
        self.faults: dict[str, Any] = {}
        self.events: list[dict[str, Any]] = []
        self.extras: dict[str, Any] = {}
        self._timers: list[_Timer] = []
        self._seq = itertools.count()
        self._reset_hooks: list[Callable[[], None]] = []

    # delays -----------------------------------------------------------------
    def set_delays(self, delays: Delays | None = None, /, **values: float) -> Delays:
        """Replace the delays (``Delays`` object and/or individual fields)."""
        with self.lock:
            self.delays = (delays or self.delays).with_values(**values)
            return self.delays

    def delay(self, name: str) -> float:
        """The current delay named ``name`` (a :class:`Delays` field)."""
        return float(getattr(self.delays, name))

    @contextmanager
    def delays_set(self, delays: Delays) -> Iterator[Delays]:
        """Temporarily use ``delays`` (restores the previous ones on exit)."""
        with self.lock:
            before = self.delays
            self.delays = delays
        try:
            yield delays
        finally:
            with self.lock:
                self.delays = before

    # events -----------------------------------------------------------------
    def record_event(self, event: dict[str, Any]) -> None:
        """Append an emitted event to the recorder (extensions may also deliver it)."""
        with self.lock:
            self.events.append(event)

    def events_matching(
        self, source: str | None = None, detail_type: str | None = None
    ) -> list[dict[str, Any]]:
        """Recorded events filtered by ``source`` and ``detail-type``."""
        with self.lock:
            return [
                e
                for e in self.events
                if (source is None or e.get("source") == source)
                and (detail_type is None or e.get("detail-type") == detail_type)
            ]

    # timers -----------------------------------------------------------------
    def schedule(self, seconds: float, action: Callable[[], None]) -> None:
        """Run ``action`` once ``seconds`` have passed (at the next due check)."""
        with self.lock:
            heapq.heappush(
                self._timers, _Timer(time.monotonic() + seconds, next(self._seq), action)
            )

    def run_due(self) -> int:
        """Run every timer whose time has come, in due order; return how many ran."""
        ran = 0
        while True:
            with self.lock:
                if not self._timers or self._timers[0].due > time.monotonic():
                    return ran
                timer = heapq.heappop(self._timers)
                # Run under the lock: moto's backends are not thread-safe and a timer
                # mutates them while request threads may be reading.
                try:
                    timer.action()
                except Exception:  # a broken transition must not fail unrelated requests
                    _log.exception("sandbox timer %r failed", timer.action)
                ran += 1

    def pending_timers(self) -> int:
        with self.lock:
            return len(self._timers)

    # reset ------------------------------------------------------------------
    def on_reset(self, hook: Callable[[], None]) -> None:
        """Register ``hook`` to clear an extension's store on :meth:`reset`."""
        with self.lock:
            if hook not in self._reset_hooks:
                self._reset_hooks.append(hook)

    def reset(self) -> None:
        """Forget events, timers, faults and extension stores (delays are kept)."""
        with self.lock:
            self.events.clear()
            self._timers.clear()
            self.faults.clear()
            self.extras.clear()
            hooks = list(self._reset_hooks)
        for hook in hooks:
            hook()


_STATE = SandboxState()


def current_state() -> SandboxState:
    """The process-wide state (moto's backends are process-global too)."""
    return _STATE
