"""The public names of cfnops.notify, pinned (a change here is an API change)."""

from __future__ import annotations

import cfnops.notify


def test_notify_exports_are_pinned() -> None:
    assert sorted(cfnops.notify.__all__) == [
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
    assert len(set(cfnops.notify.__all__)) == len(cfnops.notify.__all__)


def test_notify_exports_resolve() -> None:
    for name in cfnops.notify.__all__:
        assert getattr(cfnops.notify, name) is not None, name
