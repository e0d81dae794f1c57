"""Amazon SNS notifications: ``Publish`` with ``Subject`` and ``Message``.

To a FIFO topic (name ending ``.fifo``) ``Publish`` also needs ``MessageGroupId``
and, unless the topic has content-based deduplication, ``MessageDeduplicationId``;
cfnops sends both (one group, ``cfnops``; the notification's idempotency key, else a
hash of its text), so SNS drops a repeat within its 5-minute deduplication interval
(https://docs.aws.amazon.com/sns/latest/api/API_Publish.html). Standard topics get
neither: SNS refuses a deduplication id there.
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING

from cfnops.notify._model import Notification

if TYPE_CHECKING:
    from mypy_boto3_sns import SNSClient
    from mypy_boto3_sns.type_defs import PublishInputTypeDef

# Publish: "Subjects must be UTF-8 text with no line breaks or control characters,
# and less than 100 characters long."
# https://docs.aws.amazon.com/sns/latest/api/API_Publish.html
SUBJECT_LIMIT = 99


# MessageDeduplicationId: "up to 128 alphanumeric characters (a-z, A-Z, 0-9) and
# punctuation" (API_Publish.html)
_DEDUP_ID = re.compile(r"^[A-Za-z0-9!-/:-@\[-`{-~]{1,128}$")
FIFO_GROUP = "cfnops"


def deduplication_id(notification: Notification) -> str:
    """The key as is when SNS accepts it, else its SHA-256; without a key, the text's."""
    key = notification.idempotency_key
    if key is not None and _DEDUP_ID.match(key):
        return key
    text = key if key is not None else f"{notification.subject}\n{notification.message}"
    return hashlib.sha256(text.encode()).hexdigest()


def sns_subject(subject: str) -> str:
    """``subject`` made acceptable to SNS (single line, < 100 characters)."""
    flat = " ".join("".join(c if c.isprintable() else " " for c in subject).split())
    return flat if len(flat) <= SUBJECT_LIMIT else flat[: SUBJECT_LIMIT - 1] + "…"


class SnsNotifier:
    """Publishes to one topic through a client built by :class:`cfnops.aws.AwsClients`."""

    name = "sns"

    def __init__(self, client: SNSClient, topic_arn: str) -> None:
        self._client = client
        self.topic_arn = topic_arn

    def send(self, notification: Notification) -> None:
        request: PublishInputTypeDef = {
            "TopicArn": self.topic_arn,
            "Subject": sns_subject(notification.subject),
            "Message": notification.message,
        }
        if self.topic_arn.endswith(".fifo"):
            request["MessageGroupId"] = FIFO_GROUP
            request["MessageDeduplicationId"] = deduplication_id(notification)
        self._client.publish(**request)
