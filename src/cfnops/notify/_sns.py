"""Amazon SNS notifications: ``Publish`` with ``Subject`` and ``Message``."""

from __future__ import annotations

from typing import Any

from cfnops.notify._model import Notification

# Publish: "Subjects must be UTF-8 text with no line breaks or control characters,
# and less than 100 characters long."
# https://docs.aws.amazon.com/sns/latest/api/API_Publish.html
SUBJECT_LIMIT = 99


def sns_subject(subject: str) -> str:
    """``subject`` made acceptable to SNS (single line, < 100 characters)."""
    flat = " ".join("".join(c if c.isprintable() else " " for c in subject).split())
    return flat if len(flat) <= SUBJECT_LIMIT else flat[: SUBJECT_LIMIT - 1] + "…"


class SnsNotifier:
    """Publishes to one topic through a client built by :class:`cfnops.aws.AwsClients`."""

    name = "sns"

    def __init__(self, client: Any, topic_arn: str) -> None:
        self._client = client
        self.topic_arn = topic_arn

    def send(self, notification: Notification) -> None:
        self._client.publish(
            TopicArn=self.topic_arn,
            Subject=sns_subject(notification.subject),
            Message=notification.message,
        )
