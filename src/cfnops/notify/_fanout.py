"""Fan-out to every configured channel; failures are logged and retried, never raised."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cfnops.aws import AwsClients
from cfnops.config import Settings
from cfnops.errors import CfnopsError
from cfnops.notify._console import ConsoleNotifier
from cfnops.notify._model import Notification, Notifier
from cfnops.notify._secrets import resolve_webhook
from cfnops.notify._slack import SlackNotifier
from cfnops.notify._sns import SnsNotifier
from cfnops.notify._transport import HttpTransport

_log = logging.getLogger("cfnops.notify")


@dataclass(frozen=True)
class Delivery:
    """How one channel fared."""

    channel: str
    ok: bool
    attempts: int
    error: str | None = None


def build_notifiers(
    settings: Settings,
    clients: AwsClients | None,
    *,
    transport: HttpTransport | None = None,
    console_channel: Notifier | None = None,
) -> list[Notifier]:
    """The channels ``settings.notify`` enables (console, SNS, Slack, EventBridge,
    PagerDuty, Teams)."""
    cfg = settings.notify
    found: list[Notifier] = []
    if cfg.console:
        found.append(console_channel or ConsoleNotifier())
    if cfg.sns_topic_arn and clients is not None:
        found.append(SnsNotifier(clients.client("sns"), cfg.sns_topic_arn))
    try:
        url = resolve_webhook(cfg, clients)
    except CfnopsError as exc:
        _log.warning("slack notifications disabled: %s", exc.message)
        url = None
    if url:
        found.append(SlackNotifier(url, transport, cfg.slack))
    if cfg.eventbridge_bus and clients is not None:
        from cfnops.notify._eventbridge import EventBridgeNotifier

        found.append(EventBridgeNotifier(clients.client("events"), cfg.eventbridge_bus))
    if cfg.pagerduty_routing_key is not None:
        from cfnops.notify._webhooks import PagerDutyNotifier

        key = cfg.pagerduty_routing_key.get_secret_value()
        found.append(PagerDutyNotifier(key, transport, cfg.pagerduty_url))
    if cfg.teams_webhook_url is not None:
        from cfnops.notify._webhooks import TeamsNotifier

        found.append(TeamsNotifier(cfg.teams_webhook_url.get_secret_value(), transport))
    return found


def deliver(
    notification: Notification,
    notifiers: Sequence[Notifier],
    *,
    attempts: int = 3,
    backoff: float = 0.5,
    sleep: Callable[[float], None] = time.sleep,
) -> list[Delivery]:
    """Send to each channel, retrying each up to ``attempts`` times; never raises."""
    report: list[Delivery] = []
    for notifier in notifiers:
        error: str | None = None
        for attempt in range(1, attempts + 1):
            try:
                notifier.send(notification)
            except Exception as exc:  # a notification must never fail the caller
                error = exc.message if isinstance(exc, CfnopsError) else type(exc).__name__
                if not isinstance(exc, CfnopsError):
                    error = f"{error}: {_safe(str(exc))}"
                _log.warning(
                    "%s notification attempt %d/%d failed: %s",
                    notifier.name,
                    attempt,
                    attempts,
                    error,
                )
                if attempt < attempts:
                    sleep(backoff * 2 ** (attempt - 1))
                continue
            report.append(Delivery(notifier.name, True, attempt))
            break
        else:
            report.append(Delivery(notifier.name, False, attempts, error))
    return report


def _safe(text: str) -> str:
    # botocore/urllib messages can quote URLs: never let one reach the log.
    return " ".join("<url>" if "://" in word else word for word in text.split())[:300]


def notify_all(
    notification: Notification,
    settings: Settings,
    clients: AwsClients | None = None,
    *,
    transport: HttpTransport | None = None,
    console_channel: Notifier | None = None,
    attempts: int = 3,
    sleep: Callable[[float], None] = time.sleep,
) -> list[Delivery]:
    """Deliver ``notification`` to every channel ``settings.notify`` enables.

    Example::

        notify_all(Notification(subject="cfnops", message="healed"), settings, clients)
    """
    try:
        notifiers = build_notifiers(
            settings, clients, transport=transport, console_channel=console_channel
        )
    except Exception as exc:  # e.g. no region for the SNS client
        _log.warning("notifications not sent: %s", _safe(str(exc)))
        return [Delivery("setup", False, 1, _safe(str(exc)))]
    return deliver(notification, notifiers, attempts=attempts, sleep=sleep)
