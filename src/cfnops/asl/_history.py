"""History events in Step Functions' GetExecutionHistory vocabulary, kept in memory."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

__all__ = ["HistoryEvent", "HistoryRecorder", "details_key"]

_SPECIAL_KEYS = {
    "ExecutionStarted": "executionStartedEventDetails",
    "ExecutionSucceeded": "executionSucceededEventDetails",
    "ExecutionFailed": "executionFailedEventDetails",
    "ExecutionTimedOut": "executionTimedOutEventDetails",
    "ExecutionAborted": "executionAbortedEventDetails",
    "EvaluationFailed": "evaluationFailedEventDetails",
}


def details_key(event_type: str) -> str | None:
    """The name of the details field for an event type (``stateEnteredEventDetails`` …)."""
    if event_type in _SPECIAL_KEYS:
        return _SPECIAL_KEYS[event_type]
    for suffix, key in (("StateEntered", "stateEnteredEventDetails"),
                        ("StateExited", "stateExitedEventDetails")):  # fmt: skip
        if event_type.endswith(suffix):
            return key
    if event_type.endswith(("StateStarted", "StateSucceeded", "StateFailed", "StateAborted")):
        return "mapStateStartedEventDetails" if event_type == "MapStateStarted" else None
    return event_type[0].lower() + event_type[1:] + "EventDetails"


@dataclass(frozen=True)
class HistoryEvent:
    id: int
    previous_event_id: int
    type: str
    timestamp: datetime
    details: dict[str, Any] = field(default_factory=dict)

    def to_api(self) -> dict[str, Any]:
        """The event as GetExecutionHistory returns it (details under their own key)."""
        out: dict[str, Any] = {
            "id": self.id,
            "previousEventId": self.previous_event_id,
            "timestamp": self.timestamp,
            "type": self.type,
        }
        key = details_key(self.type)
        if key is not None and (self.details or self.type.startswith("Execution")):
            out[key] = dict(self.details)
        return out


class HistoryRecorder:
    """Thread-safe in-memory :class:`~cfnops.asl.Recorder`; ids start at 1, no cap."""

    def __init__(self, now: Callable[[], datetime] | None = None) -> None:
        self._lock = threading.Lock()
        self._now = now or (lambda: datetime.now(UTC))
        self.events: list[HistoryEvent] = []

    def record(self, event_type: str, previous_event_id: int, details: dict[str, Any]) -> int:
        with self._lock:
            event_id = len(self.events) + 1
            self.events.append(
                HistoryEvent(event_id, previous_event_id, event_type, self._now(), details)
            )
            return event_id


class NullRecorder:
    """Counts events (ids stay right for error messages) but keeps nothing."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0

    def record(self, event_type: str, previous_event_id: int, details: dict[str, Any]) -> int:
        with self._lock:
            self.count += 1
            return self.count
