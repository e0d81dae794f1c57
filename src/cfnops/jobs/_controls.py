"""Operator actions inside an executing run: hold, release, skip and force.

The CLI (or the console) writes an action to the job store; the executing process sees
it within half a second (the run's watcher refreshes :class:`RunControls`) and records
it in the run's history with an event of its own — Step Functions has none of these:

- ``OperatorHold`` / ``OperatorRelease``: while held, no new state starts (a state
  running keeps running); released, the run goes on;
- ``StateSkipped``: a state not yet started is entered and left with the given output;
- ``TaskForced``: a running Task ends with the given output or error (the call in
  flight is abandoned: its answer is ignored).

A skip or a force records the state entry it took effect at (its position), so a
replay after a crash applies it at the same place; a forced result is stored as the
Task's checkpoint (kind ``forced``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from cfnops.asl import Recorder, SkipState
from cfnops.durable import Position, Visit
from cfnops.jobs._durable_ports import EffectKeys, Forced
from cfnops.jobs._store import ControlRow, JobStore

__all__ = ["RunControls"]


class RunControls:
    """The operator actions of one executing run; a :class:`cfnops.asl.StateGate`."""

    def __init__(
        self,
        store: JobStore,
        run_id: str,
        keys: EffectKeys,
        recorder: Recorder,
        presets: Mapping[str, Mapping[str, Any]] | None = None,
        catch_up: int = 0,
    ) -> None:
        self.store = store
        self.run_id = run_id
        self.keys = keys
        self.recorder = recorder
        # A rerun --after-failed passes its first state: a skip fixed at that entry.
        self.presets = {Position.of(Visit(name, 1)): dict(v) for name, v in (presets or {}).items()}
        self._rows: list[ControlRow] = []
        self._last = 0
        self._held = threading.Event()
        self._lock = threading.Lock()
        self._refresh_lock = threading.Lock()
        self._refreshed = 0.0
        # A replay (after a crash) first re-enters the states entered before: a hold
        # stops only what comes after them (the Task in flight at the crash runs again).
        self._catch_up = catch_up
        self._entries = 0

    # -- refreshed by the run's watcher, and before states ------------------------------
    def refresh(self, found: list[ControlRow] | None = None) -> None:
        """Read the actions asked since the last read (``found``: the run's actions, read
        already with the run)."""
        with self._refresh_lock:
            self._read(found)

    def _read(self, found: list[ControlRow] | None = None) -> None:
        self._refreshed = time.monotonic()
        new = [r for r in found if r.id > self._last] if found is not None else None
        if new is None:
            new = self.store.list_controls(self.run_id, after=self._last)
        if not new:
            return
        with self._lock:
            self._rows.extend(new)
            self._last = new[-1].id
        self._note(new)

    def _refresh_for(self, state: Mapping[str, Any]) -> None:
        """Before a state, read the actions asked since the last read, at most every 50 ms
        per run (a read before every Task slowed many concurrent runs on PostgreSQL down
        measurably: tests/jobs/test_manager_postgres.py)."""
        if time.monotonic() - self._refreshed <= 0.05:
            return
        if not self._refresh_lock.acquire(blocking=False):
            return  # another branch is reading them right now
        try:
            if time.monotonic() - self._refreshed > 0.05:
                self._read()
        finally:
            self._refresh_lock.release()

    def _note(self, new: list[ControlRow]) -> None:
        for row in new:
            if row.action in ("hold", "release"):
                event = "OperatorHold" if row.action == "hold" else "OperatorRelease"
                self.recorder.record(event, 0, row.detail())
                if row.applied_key is None:  # the run took it: `job show` says applied
                    self.store.apply_control(row.id, event)
                if row.action == "hold":
                    self._held.set()
                else:
                    self._held.clear()

    @property
    def held(self) -> bool:
        return self._held.is_set()

    # -- StateGate -----------------------------------------------------------------------
    def before_state(
        self, state_name: str, state: Mapping[str, Any], cancel: threading.Event
    ) -> None:
        self._refresh_for(state)
        with self._lock:
            self._entries += 1
            replaying = self._entries <= self._catch_up
        while not replaying and self._held.is_set() and not cancel.is_set():
            cancel.wait(0.1)

    def skip(self, state_name: str, state: Mapping[str, Any]) -> SkipState | None:
        frame = self.keys.frame()
        key = frame.current if frame is not None and frame.current is not None else Position()
        preset = self.presets.get(key)
        if preset is not None:
            detail = {"actor": "rerun --after-failed"}
            return SkipState(preset.get("output"), detail)
        row = self._take("skip", state_name, key)
        if row is None:
            return None
        return SkipState(row.payload.get("output"), row.detail())

    # -- forced Tasks (asked by the durable invoker) -------------------------------------
    def forced(self, state_name: str, task_key: Position) -> Forced | None:
        """The force that ends this Task attempt, if one was asked (taken once)."""
        row = self._take("force", state_name, task_key)
        if row is None:
            return None
        p = row.payload
        return Forced(bool(p.get("ok")), p.get("output"), p.get("error"), p.get("cause"),
                      row.detail())  # fmt: skip

    def _take(self, action: str, state_name: str, at: Position) -> ControlRow | None:
        key = at.to_json()
        with self._lock:
            rows = [r for r in self._rows if r.action == action and r.state == state_name]
        for row in rows:
            if row.applied_key == key:
                return row  # a replay: the same entry as before
        for row in rows:
            if row.applied_key is None and self.store.apply_control(row.id, key):
                with self._lock:
                    index = self._rows.index(row)
                    self._rows[index] = replace(row, applied_key=key)
                return row
        return None
