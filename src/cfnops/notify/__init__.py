"""Notifications: console, Amazon SNS, Slack incoming webhooks.

A :class:`Notification` is channel-independent; :func:`notify_all` sends it to
every channel the ``[notify]`` settings enable, retrying and logging failures
without ever raising (a notification must not fail the operation it reports)::

    from cfnops.notify import Notification, notify_all

    notify_all(Notification(subject="…", message="Stack drift has been healed",
                            outcome="HEALED", stack="web"), settings, clients)
"""

from cfnops.notify._console import ConsoleNotifier
from cfnops.notify._eventbridge import EventBridgeNotifier, event_detail
from cfnops.notify._fanout import Delivery, build_notifiers, deliver, notify_all
from cfnops.notify._model import DriftRow, Notification, Notifier, Severity
from cfnops.notify._secrets import resolve_webhook
from cfnops.notify._slack import SlackNotifier, mention_text, slack_payload
from cfnops.notify._slack_text import fences_balanced, truncate_for_slack
from cfnops.notify._sns import SnsNotifier, sns_subject
from cfnops.notify._transport import (
    HttpResponse,
    HttpTransport,
    RecordingTransport,
    UrllibTransport,
)
from cfnops.notify._webhooks import (
    PagerDutyNotifier,
    TeamsNotifier,
    dedup_key,
    pagerduty_event,
    teams_card,
)
from cfnops.notify.errors import NotifyError, WebhookReferenceError

__all__ = [
    "ConsoleNotifier",
    "Delivery",
    "DriftRow",
    "EventBridgeNotifier",
    "HttpResponse",
    "HttpTransport",
    "Notification",
    "Notifier",
    "NotifyError",
    "PagerDutyNotifier",
    "RecordingTransport",
    "Severity",
    "SlackNotifier",
    "SnsNotifier",
    "TeamsNotifier",
    "UrllibTransport",
    "WebhookReferenceError",
    "build_notifiers",
    "dedup_key",
    "deliver",
    "event_detail",
    "fences_balanced",
    "mention_text",
    "notify_all",
    "pagerduty_event",
    "resolve_webhook",
    "slack_payload",
    "sns_subject",
    "teams_card",
    "truncate_for_slack",
]
