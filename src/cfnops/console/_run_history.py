"""A run's execution history on its page: rows of ``GetDurableExecutionHistory`` events.

The events come from :func:`cfnops.durable.run_history` (a Lambda durable execution's
recorded events, or those derived from a DBOS-native run's steps), in the service's
order. The page shows them a page at a time (:data:`PAGE_SIZE`); the JSON view pages
with ``Marker``/``MaxItems`` as the API does. Every value reaches the page through the
template's escaping; a detail longer than :data:`DETAIL_CAP` characters is cut there
(the whole event stays in the JSON view and in ``cfnops runs history RUN -o json``).
See https://docs.aws.amazon.com/lambda/latest/api/API_GetDurableExecutionHistory.html
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cfnops.console.errors import BadFilter
from cfnops.durable import redacted

PAGE_SIZE = 100
MAX_ITEMS = 1000
DETAIL_CAP = 20_000
_PREVIEW = 100


@dataclass(frozen=True)
class EventRow:
    """One history event as the run page shows it."""

    event_id: int
    event_type: str
    sub_type: str
    op_id: str
    parent_id: str
    name: str
    time: str
    preview: str
    details: str  # pretty JSON, cut at DETAIL_CAP
    cut: int  # characters left out of ``details`` (0: whole)


@dataclass(frozen=True)
class HistoryPage:
    """A page of a run's history (``page`` counts from 1; events oldest first)."""

    rows: list[EventRow]
    total: int
    page: int
    pages: int

    @property
    def first(self) -> int:
        return (self.page - 1) * PAGE_SIZE + 1 if self.rows else 0

    @property
    def last(self) -> int:
        return self.first + len(self.rows) - 1 if self.rows else 0


def whole_number(name: str, text: str | None, default: int, low: int, high: int) -> int:
    """A query parameter that must be a whole number in ``low..high``, or 400."""
    if text is None or text == "":
        return default
    if not text.isdigit() or not low <= int(text) <= high:
        raise BadFilter(name, text, f"a whole number from {low} to {high}")
    return int(text)


def iso_time(ms: Any) -> str | None:
    """Epoch milliseconds as ISO 8601 in UTC (None stays None)."""
    if not isinstance(ms, int | float):
        return None
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")


def _readable(value: Any) -> Any:
    """``value`` with every ``*Timestamp`` (epoch milliseconds) in ISO 8601."""
    if isinstance(value, dict):
        return {
            k: iso_time(v) if k.endswith("Timestamp") and isinstance(v, int) else _readable(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_readable(v) for v in value]
    return value


def details_of(event: dict[str, Any]) -> Any:
    """The event's ``{EventType}Details``: times readable, secret-looking keys redacted."""
    return _readable(redacted(event.get(f"{event.get('EventType')}Details") or {}))


def event_row(event: dict[str, Any]) -> EventRow:
    details = details_of(event)
    text = json.dumps(details, indent=2, ensure_ascii=False, default=str) if details else ""
    compact = json.dumps(details, ensure_ascii=False, default=str) if details else ""
    when = iso_time(event.get("EventTimestamp"))
    return EventRow(
        event_id=int(event.get("EventId") or 0),
        event_type=str(event.get("EventType") or "-"),
        sub_type=str(event.get("SubType") or "-"),
        op_id=str(event.get("Id") or "-"),
        parent_id=str(event.get("ParentId") or "-"),
        name=str(event.get("Name") or "-"),
        time=when.replace("T", " ").removesuffix("+00:00") if when else "-",
        preview=compact[:_PREVIEW] + ("…" if len(compact) > _PREVIEW else ""),
        details=text[:DETAIL_CAP],
        cut=max(0, len(text) - DETAIL_CAP),
    )


def history_page(events: list[dict[str, Any]], page: int) -> HistoryPage:
    """Page ``page`` of ``events`` (a page past the end shows the last one)."""
    pages = max(1, -(-len(events) // PAGE_SIZE))
    page = min(page, pages)
    chunk = events[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    return HistoryPage([event_row(e) for e in chunk], len(events), page, pages)


def history_json(events: list[dict[str, Any]], marker: int, max_items: int) -> dict[str, Any]:
    """``GetDurableExecutionHistory``'s answer: ``Events`` from ``marker``, ``NextMarker``
    while more remain; timestamps in ISO 8601, secret-looking detail keys redacted."""
    out: list[dict[str, Any]] = []
    for event in events[marker : marker + max_items]:
        shown = _readable(event)
        kind = f"{event.get('EventType')}Details"
        if kind in event:
            shown[kind] = details_of(event)
        out.append(shown)
    answer: dict[str, Any] = {"Events": out}
    if marker + max_items < len(events):
        answer["NextMarker"] = str(marker + max_items)
    return answer
