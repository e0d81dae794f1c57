"""Amazon EventBridge: ``PutEvents`` to a bus, so rules route notifications anywhere.

One entry per notification: ``Source`` ``cfnops``, ``DetailType`` ``cfnops
notification``, ``Detail`` the notification as JSON (subject, message, outcome,
severity, stack, run id, drifted resources …) with its ``idempotencyKey``:
PutEvents has no deduplication of its own, so a consumer drops a repeat sent after a
crash by that key. A rejected entry (``FailedEntryCount`` > 0) is a failed delivery,
retried like any other channel. ("PutEvents",
https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEvents.html:
``Detail`` is a JSON object string; an entry, its detail included, is at most 256 KB.)
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from cfnops.notify._model import Notification
from cfnops.notify.errors import NotifyError

if TYPE_CHECKING:
    from mypy_boto3_events import EventBridgeClient

SOURCE = "cfnops"
DETAIL_TYPE = "cfnops notification"
_MAX_DETAIL = 200_000  # characters of message kept: the entry stays under 256 KB


def event_detail(notification: Notification) -> dict[str, Any]:
    """The ``Detail`` object of a notification's event."""
    return {
        "subject": notification.subject,
        "message": notification.message[:_MAX_DETAIL],
        "outcome": notification.outcome,
        "severity": notification.severity,
        "stack": notification.stack,
        "stackId": notification.stack_id,
        "changeSetId": notification.change_set_id,
        "consoleUrl": notification.console_url,
        "runId": notification.run_id,
        "idempotencyKey": notification.idempotency_key,
        "drifted": [
            {
                "logicalId": r.logical_id,
                "type": r.resource_type,
                "status": r.status,
                "properties": list(r.properties),
            }
            for r in notification.drifted
        ],
        "details": dict(notification.details),
    }


class EventBridgeNotifier:
    """Puts one event per notification on ``bus`` (a name or ARN; ``default`` works)."""

    name = "eventbridge"

    def __init__(self, client: EventBridgeClient, bus: str) -> None:
        self._client = client
        self.bus = bus

    def send(self, notification: Notification) -> None:
        answer = self._client.put_events(
            Entries=[
                {
                    "Source": SOURCE,
                    "DetailType": DETAIL_TYPE,
                    "Detail": json.dumps(event_detail(notification)),
                    "EventBusName": self.bus,
                    **({"Resources": [notification.stack_id]} if notification.stack_id else {}),
                }
            ]
        )
        if answer.get("FailedEntryCount"):
            entry = (answer.get("Entries") or [{}])[0]
            raise NotifyError(
                "eventbridge",
                f"bus {self.bus} refused the event: "
                f"{entry.get('ErrorCode', '?')} {entry.get('ErrorMessage', '')}".strip(),
            )
