"""PagerDuty Events API v2 and Microsoft Teams workflow webhooks.

Both are bearer secrets (a routing key, a workflow URL with its signature): held by the
notifier, sent only to the transport, never formatted into logs, errors or ``repr``.

PagerDuty ("Events API v2 Overview", https://developer.pagerduty.com/docs/events-api-v2-overview):
``POST https://events.pagerduty.com/v2/enqueue`` with ``routing_key``, ``event_action``
(``trigger`` / ``resolve``), ``dedup_key`` and, for a trigger, ``payload`` (``summary``,
``source``, ``severity`` of critical/error/warning/info). The dedup key is the run id, so a
run's warning and its later success are one incident, opened then resolved, and a
trigger resent after a crash lands on the same incident. An error or warning triggers;
an info notification (a run that ended well) resolves. Answer: 202 Accepted.

Teams ("Create incoming webhooks with Workflows for Microsoft Teams",
https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/add-incoming-webhook):
the workflow's "When a Teams webhook request is received" trigger takes a ``message``
whose attachment is an Adaptive Card (``application/vnd.microsoft.card.adaptive``,
version 1.4: https://adaptivecards.io/explorer/AdaptiveCard.html). Answer: 200 or 202.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from cfnops.notify._model import Notification
from cfnops.notify._transport import HttpTransport, UrllibTransport
from cfnops.notify.errors import NotifyError

PAGERDUTY_URL = "https://events.pagerduty.com/v2/enqueue"
_PD_SEVERITY = {"error": "error", "warning": "warning", "info": "info"}
_CARD_COLOR = {"error": "Attention", "warning": "Warning", "info": "Good"}
_SUMMARY_LIMIT = 1024  # PagerDuty truncates summaries at 1024 characters
_FENCE = re.compile(r"^[ \t]*```[\w-]*[ \t]*(?:\n|$)", re.M)


def plain_text(text: str) -> str:
    """Markdown code fences and backticks taken out: PagerDuty shows text as written and
    Adaptive Cards' TextBlock renders no code spans, so they would appear literally."""
    return re.sub(r"\n{3,}", "\n\n", _FENCE.sub("", text)).replace("`", "").strip()


def _present(values: dict[str, Any]) -> dict[str, Any]:
    """Fields with a value: PagerDuty shows ``null`` and empty lists as they are."""
    return {k: v for k, v in values.items() if v not in (None, "", [], {})}


def dedup_key(notification: Notification) -> str:
    """The run id; else the idempotency key; else a hash of the text."""
    if notification.run_id:
        return notification.run_id
    if notification.idempotency_key:
        return notification.idempotency_key
    text = f"{notification.subject}\n{notification.stack or ''}"
    return hashlib.sha256(text.encode()).hexdigest()


def pagerduty_event(notification: Notification, routing_key: str) -> dict[str, Any]:
    """The Events API v2 body: ``resolve`` for info, else ``trigger``."""
    body: dict[str, Any] = {
        "routing_key": routing_key,
        "dedup_key": dedup_key(notification),
        "event_action": "resolve" if notification.severity == "info" else "trigger",
    }
    if body["event_action"] == "trigger":
        summary = plain_text(f"{notification.subject}: {notification.message}")
        details = {
            "outcome": notification.outcome,
            "run_id": notification.run_id,
            "stack_id": notification.stack_id,
            "change_set_id": notification.change_set_id,
            "drifted": [r.logical_id for r in notification.drifted],
            **{k: plain_text(str(v)) if v else v for k, v in notification.details},
        }
        body["payload"] = _present(
            {
                "summary": summary[:_SUMMARY_LIMIT],
                "source": notification.stack or "cfnops",
                "severity": _PD_SEVERITY.get(notification.severity, "error"),
                "component": notification.stack,
                "group": "cfnops",
                "class": notification.outcome,
                "custom_details": _present(details),
            }
        )
        if notification.console_url:
            body["links"] = [{"href": notification.console_url, "text": "CloudFormation console"}]
    return body


def teams_card(notification: Notification) -> dict[str, Any]:
    """The workflow webhook body: a message with one Adaptive Card."""
    facts = [
        {"title": title, "value": plain_text(str(value))}
        for title, value in (
            ("Stack", notification.stack_id or notification.stack),
            ("Outcome", notification.outcome),
            ("Change set", notification.change_set_id),
            ("Run id", notification.run_id),
            *notification.details,
        )
        if value
    ]
    body: list[dict[str, Any]] = [
        {
            "type": "TextBlock",
            "text": f"{notification.outcome or 'cfnops'}: {notification.stack or ''}".rstrip(": "),
            "weight": "Bolder",
            "size": "Medium",
            "color": _CARD_COLOR.get(notification.severity, "Default"),
            "wrap": True,
        },
        {"type": "TextBlock", "text": plain_text(notification.message), "wrap": True},
    ]
    if facts:
        body.append({"type": "FactSet", "facts": facts})
    if notification.drifted:
        body.append(
            {
                "type": "FactSet",
                "facts": [
                    {"title": r.logical_id, "value": f"{r.resource_type} {r.status}"}
                    for r in notification.drifted
                ],
            }
        )
    card: dict[str, Any] = {
        "type": "AdaptiveCard",
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "version": "1.4",
        "body": body,
    }
    if notification.console_url:
        card["actions"] = [
            {
                "type": "Action.OpenUrl",
                "title": "Open in the console",
                "url": notification.console_url,
            }
        ]
    return {
        "type": "message",
        "attachments": [
            {
                "contentType": "application/vnd.microsoft.card.adaptive",
                "content": card,
            }
        ],
    }


class _Webhook:
    name = "webhook"
    _ok = frozenset({200, 202})

    def __init__(self, url: str, transport: HttpTransport | None = None) -> None:
        self._url = url
        self._transport = transport or UrllibTransport()

    def __repr__(self) -> str:  # never show the URL or key
        return f"{type(self).__name__}(***)"

    def _post(self, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        try:
            response = self._transport.post(
                self._url, body, {"Content-Type": "application/json; charset=utf-8"}
            )
        except (OSError, ValueError) as exc:
            # The exception text may carry the URL: keep only its type.
            raise NotifyError(self.name, f"request failed ({type(exc).__name__})") from None
        if response.status not in self._ok:
            raise NotifyError(self.name, f"HTTP {response.status}: {response.body[:200]}")


class PagerDutyNotifier(_Webhook):
    """Triggers and resolves PagerDuty incidents, one per run (Events API v2)."""

    name = "pagerduty"

    def __init__(
        self, routing_key: str, transport: HttpTransport | None = None, url: str = PAGERDUTY_URL
    ) -> None:
        super().__init__(url, transport)
        self._routing_key = routing_key

    def send(self, notification: Notification) -> None:
        self._post(pagerduty_event(notification, self._routing_key))


class TeamsNotifier(_Webhook):
    """Posts an Adaptive Card to a Teams workflow webhook."""

    name = "teams"

    def send(self, notification: Notification) -> None:
        self._post(teams_card(notification))
