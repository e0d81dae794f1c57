"""An in-sandbox EventBridge bus: rules, targets, local Python handlers, a recorder.

Events reach the bus two ways: ``PutEvents`` over HTTP (moto's EventBridge API,
whose ``PutEvents`` this module takes over) and :func:`emit`, which the other
extensions call (AWS Backup job state changes, CloudFormation drift detection).
Every event is wrapped in the EventBridge envelope ("Amazon EventBridge events",
https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-events-structure.html:
``version``, ``id``, ``detail-type``, ``source``, ``account``, ``time`` (ISO 8601,
UTC), ``region``, ``resources``, ``detail``), recorded, then matched against

- the rules of moto's event bus (``PutRule`` / ``PutTargets``), with the pattern
  semantics of :mod:`cfnops.eventpatterns`. Targets moto can
  reach are delivered (SQS queues, CloudWatch Logs groups, other event buses, SNS
  topics, with ``InputTransformer``/``Input``/``InputPath``); others (Lambda,
  Step Functions, ...) are recorded as deliveries without an invocation;
- the handlers registered with :func:`register_handler`, by rule name (called for
  every event that rule matches) or by pattern.

Handlers run on one delivery thread, in order, after ``event_delivery`` seconds
(:class:`~cfnops.sandbox._state.Delays`), never inside a request, so a handler
may call the sandbox over HTTP. A handler's exception is recorded, not raised
(EventBridge delivery is asynchronous: ``PutEvents`` has already answered).
:func:`wait_for_deliveries` lets tests wait until the queue is empty.

Control route ``/_cfnops/events``: ``{}`` answers recorded events and deliveries
(optionally filtered by ``source`` / ``detail-type``); ``{"emit": {...}}`` emits
an event; ``{"clear": true}`` forgets them.
"""

from __future__ import annotations

import json
import queue
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cfnops.eventpatterns import (
    InvalidEventPattern,
    matches,
    parse_pattern,
)
from cfnops.sandbox._control import register_control
from cfnops.sandbox._state import current_state
from cfnops.sandbox.extensions._event_targets import deliver
from cfnops.sandbox.extensions._patching import replace

__all__ = [
    "Delivery",
    "deliveries",
    "emit",
    "envelope",
    "install",
    "recorded",
    "register_handler",
    "unregister_handler",
    "wait_for_deliveries",
]

Handler = Callable[[dict[str, Any]], Any]
DEFAULT_ACCOUNT = "123456789012"
DEFAULT_REGION = "us-east-1"
_STORE = "events"  # key in SandboxState.extras


@dataclass(frozen=True)
class Subscription:
    id: str
    handler: Handler
    rule_name: str | None = None
    pattern: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Delivery:
    """One event handed to a target or a handler, and how it went."""

    event_id: str
    target: str  # target ARN, or "handler:<subscription id>"
    rule: str | None
    ok: bool
    error: str | None = None


_subs_lock = threading.Lock()
_subscriptions: dict[str, Subscription] = {}


def register_handler(rule_or_pattern: str | Mapping[str, Any], handler: Handler) -> str:
    """Call ``handler(event)`` for each event a rule (by name) or a pattern matches.

    Returns a subscription id for :func:`unregister_handler`. Handlers survive
    :meth:`SandboxState.reset` (they are code, not sandbox resources).
    """
    sub_id = uuid.uuid4().hex[:12]
    if isinstance(rule_or_pattern, str):
        sub = Subscription(sub_id, handler, rule_name=rule_or_pattern)
    else:
        sub = Subscription(sub_id, handler, pattern=parse_pattern(rule_or_pattern))
    with _subs_lock:
        _subscriptions[sub_id] = sub
    return sub_id


def unregister_handler(subscription_id: str) -> None:
    with _subs_lock:
        _subscriptions.pop(subscription_id, None)


def _store() -> dict[str, Any]:
    store: dict[str, Any] = current_state().extras.setdefault(_STORE, {"deliveries": []})
    return store


def recorded(source: str | None = None, detail_type: str | None = None) -> list[dict[str, Any]]:
    """Every event the bus saw (oldest first), optionally filtered."""
    return current_state().events_matching(source=source, detail_type=detail_type)


def deliveries(event_id: str | None = None) -> list[Delivery]:
    with current_state().lock:
        items = list(_store()["deliveries"])
    return [d for d in items if event_id is None or d.event_id == event_id]


def _record_delivery(delivery: Delivery) -> None:
    with current_state().lock:
        _store()["deliveries"].append(delivery)


# -- the envelope ------------------------------------------------------------


def _iso(value: Any) -> str:
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
    elif isinstance(value, int | float):
        moment = datetime.fromtimestamp(float(value), UTC)
    elif isinstance(value, str) and value:
        return value
    else:
        moment = datetime.now(UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def envelope(event: Mapping[str, Any]) -> dict[str, Any]:
    """The full EventBridge event for ``event`` (envelope keys or PutEvents entry keys)."""
    if "Source" in event or "DetailType" in event:
        detail = event.get("Detail", "{}")
        event = {
            "source": event.get("Source"),
            "detail-type": event.get("DetailType"),
            "detail": json.loads(detail) if isinstance(detail, str) else detail,
            "resources": list(event.get("Resources") or []),
            "time": event.get("Time"),
        }
    full = {
        "version": "0",
        "id": str(event.get("id") or uuid.uuid4()),
        "detail-type": event.get("detail-type"),
        "source": event.get("source"),
        "account": str(event.get("account") or DEFAULT_ACCOUNT),
        "time": _iso(event.get("time")),
        "region": str(event.get("region") or DEFAULT_REGION),
        "resources": list(event.get("resources") or []),
        "detail": dict(event.get("detail") or {}),
    }
    if not full["source"] or not full["detail-type"]:
        raise ValueError("an event needs 'source' and 'detail-type'")
    return full


def emit(event: Mapping[str, Any], *, bus: str = "default") -> dict[str, Any]:
    """Publish ``event`` on ``bus`` in the event's account and region; return it whole.

    ``event`` may be a full EventBridge event or just ``source``, ``detail-type`` and
    ``detail`` (the rest is filled in). Safe to call from sandbox timers.
    """
    full = envelope(event)
    with current_state().lock:
        _publish(full, bus)
    return full


def _publish(event: dict[str, Any], bus_name: str) -> None:
    current_state().record_event(event)
    matched_rules: list[str] = []
    backend = _events_backend(event["account"], event["region"])
    bus = backend.event_buses.get(bus_name) if backend is not None else None
    if bus is not None:
        for rule in list(bus.rules.values()):
            raw = rule.event_pattern.dump() if rule.event_pattern else None
            if rule.state != "ENABLED" or not raw:
                continue
            try:
                if not matches(raw, event):
                    continue
            except InvalidEventPattern:
                continue
            matched_rules.append(rule.name)
            for target in rule.targets:
                _deliver_to_target(rule, target, event)
    with _subs_lock:
        subs = list(_subscriptions.values())
    for sub in subs:
        if sub.rule_name is not None and sub.rule_name in matched_rules:
            _queue_handler(sub, event, sub.rule_name)
        elif sub.pattern is not None and matches(sub.pattern, event):
            _queue_handler(sub, event, None)


def _events_backend(account: str, region: str) -> Any:
    from moto.events.models import events_backends

    try:
        return events_backends[account][region]
    except KeyError:
        return None


def _deliver_to_target(rule: Any, target: Mapping[str, Any], event: dict[str, Any]) -> None:
    arn = str(target.get("Arn", ""))
    try:
        forward = deliver(target, event, rule.name)
        if forward is not None:  # another event bus: publish there (same process)
            _publish(forward[1], forward[0])
        ok, error = True, None
    except Exception as exc:  # a broken target must not break PutEvents
        ok, error = False, f"{type(exc).__name__}: {exc}"
    _record_delivery(Delivery(event["id"], arn, rule.name, ok, error))


# -- handler delivery --------------------------------------------------------

_queue: queue.Queue[tuple[float, Subscription, dict[str, Any], str | None]] = queue.Queue()
_worker_lock = threading.Lock()
_worker: threading.Thread | None = None


def _queue_handler(sub: Subscription, event: dict[str, Any], rule: str | None) -> None:
    global _worker
    due = time.monotonic() + current_state().delay("event_delivery")
    _queue.put((due, sub, json.loads(json.dumps(event)), rule))
    with _worker_lock:
        if _worker is None or not _worker.is_alive():
            _worker = threading.Thread(target=_work, name="cfnops-event-delivery", daemon=True)
            _worker.start()


def _work() -> None:
    while True:
        due, sub, event, rule = _queue.get()
        try:
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            try:
                sub.handler(event)
                delivery = Delivery(event["id"], f"handler:{sub.id}", rule, True)
            except Exception as exc:
                text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
                delivery = Delivery(event["id"], f"handler:{sub.id}", rule, False, text)
            _record_delivery(delivery)
        finally:
            _queue.task_done()


def wait_for_deliveries(timeout: float = 10.0) -> bool:
    """Block until every queued handler call ran (``False`` on timeout)."""
    deadline = time.monotonic() + timeout
    while _queue.unfinished_tasks:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


# -- moto patches ------------------------------------------------------------


def _entry_error(entry: Mapping[str, Any]) -> dict[str, str] | None:
    """PutEvents' per-entry errors (PutEventsResultEntry in the EventBridge API reference)."""
    for key in ("Source", "DetailType", "Detail"):
        if not entry.get(key):
            return {
                "ErrorCode": "InvalidArgument",
                "ErrorMessage": f"Parameter {key} is not valid. Reason: {key} is a required "
                "argument.",
            }
    try:
        detail = json.loads(entry["Detail"])
    except ValueError:
        detail = None
    if not isinstance(detail, dict):
        return {"ErrorCode": "MalformedDetail", "ErrorMessage": "Detail is malformed."}
    return None


def _patched_put_events(original: Callable[..., Any]) -> Callable[..., Any]:
    def put_events(self: Any, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if len(events) > 10:
            return list(original(self, events))  # moto raises AWS's validation error
        entries: list[dict[str, Any]] = []
        for entry in events:
            error = _entry_error(entry)
            if error is not None:
                entries.append(error)
                continue
            bus_name = self._normalize_event_bus_arn(entry.get("EventBusName"))
            self.describe_event_bus(bus_name)  # ResourceNotFoundException if absent
            full = envelope(
                {
                    "source": entry["Source"],
                    "detail-type": entry["DetailType"],
                    "detail": json.loads(entry["Detail"]),
                    "resources": entry.get("Resources") or [],
                    "time": entry.get("Time"),
                    "account": self.account_id,
                    "region": self.region_name,
                }
            )
            with current_state().lock:
                _publish(full, bus_name)
            entries.append({"EventId": full["id"]})
        return entries

    put_events._cfnops_patched = True  # type: ignore[attr-defined]
    return put_events


def _patched_put_rule(original: Callable[..., Any]) -> Callable[..., Any]:
    def put_rule(self: Any, name: str, *args: Any, **kwargs: Any) -> Any:
        from moto.events.exceptions import InvalidEventPatternException

        pattern = kwargs.get("event_pattern")
        if pattern:
            try:
                parse_pattern(pattern)
            except InvalidEventPattern as exc:
                raise InvalidEventPatternException(reason=exc.reason) from exc
        return original(self, name, *args, **kwargs)

    put_rule._cfnops_patched = True  # type: ignore[attr-defined]
    return put_rule


def _test_event_pattern(self: Any) -> str:
    """TestEventPattern (EventBridge API reference) with cfnops' pattern semantics."""
    from moto.events.exceptions import InvalidEventPatternException

    try:
        result = matches(self._get_param("EventPattern"), json.loads(self._get_param("Event")))
    except InvalidEventPattern as exc:
        raise InvalidEventPatternException(reason=exc.reason) from exc
    return json.dumps({"Result": result})


def _control(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("clear"):
        with current_state().lock:
            current_state().events.clear()
            _store()["deliveries"].clear()
    emitted = emit(request["emit"]) if isinstance(request.get("emit"), dict) else None
    events = recorded(request.get("source"), request.get("detail-type"))
    ids = {e["id"] for e in events}
    answer: dict[str, Any] = {
        "events": events,
        "deliveries": [d.__dict__ for d in deliveries() if d.event_id in ids],
    }
    if emitted is not None:
        answer["emitted"] = emitted
    return answer


_install_lock = threading.Lock()


def install() -> None:
    """Take over moto's PutEvents, validate PutRule patterns, add TestEventPattern."""
    from moto.events.models import EventsBackend
    from moto.events.responses import EventsHandler

    with _install_lock:
        if not getattr(EventsBackend.put_events, "_cfnops_patched", False):
            replace(EventsBackend, "put_events", _patched_put_events(EventsBackend.put_events))
        if not getattr(EventsBackend.put_rule, "_cfnops_patched", False):
            replace(EventsBackend, "put_rule", _patched_put_rule(EventsBackend.put_rule))
        replace(EventsHandler, "test_event_pattern", _test_event_pattern)
        register_control("events", _control)
