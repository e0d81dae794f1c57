"""SNS FIFO topics: a group id and a deduplication id from the notification's key.

Shapes are checked against botocore's model (Stubber); the sandbox (over HTTP) drops a
repeat with the same deduplication id, as SNS does within its 5-minute interval.
"""

from __future__ import annotations

import json
import uuid

import boto3
import pytest
from botocore.stub import Stubber

from cfnops.notify import Notification, SnsNotifier
from cfnops.notify._sns import deduplication_id
from cfnops.sandbox import Sandbox

FIFO = "arn:aws:sns:us-east-1:123456789012:ops.fifo"
STANDARD = "arn:aws:sns:us-east-1:123456789012:ops"


def _note(key: str | None = "drift-scan-nightly-20261125T030000Z:notify") -> Notification:
    return Notification(subject="cfnops drift scan", message="drift appeared", idempotency_key=key)


@pytest.mark.parametrize(
    ("topic", "extra"),
    [
        (
            FIFO,
            {
                "MessageGroupId": "cfnops",
                "MessageDeduplicationId": "drift-scan-nightly-20261125T030000Z:notify",
            },
        ),
        (STANDARD, {}),
    ],
    ids=["fifo", "standard"],
)
def test_publish_parameters_match_the_model(topic: str, extra: dict[str, str]) -> None:
    client = boto3.client(
        "sns", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x"
    )
    with Stubber(client) as stub:
        expected = {"TopicArn": topic, "Subject": "cfnops drift scan", "Message": "drift appeared"}
        stub.add_response("publish", {"MessageId": "1"}, {**expected, **extra})
        SnsNotifier(client, topic).send(_note())
        stub.assert_no_pending_responses()


def test_deduplication_id_is_the_key_or_a_hash() -> None:
    assert deduplication_id(_note("run-1:notify")) == "run-1:notify"
    hashed = deduplication_id(_note("a key with spaces"))
    assert len(hashed) == 64 and hashed == deduplication_id(_note("a key with spaces"))
    assert deduplication_id(_note("x" * 129)) != "x" * 129
    assert deduplication_id(_note(None)) == deduplication_id(_note(None))  # from the text
    assert deduplication_id(_note(None)) != deduplication_id(
        Notification(subject="cfnops drift scan", message="drift cleared")
    )


def test_a_repeat_to_a_fifo_topic_is_delivered_once(cfnops_sandbox: Sandbox) -> None:
    sns, sqs = cfnops_sandbox.client("sns"), cfnops_sandbox.client("sqs")
    name = f"notify-{uuid.uuid4().hex[:8]}"
    topic = sns.create_topic(Name=f"{name}.fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
    queue = sqs.create_queue(QueueName=f"{name}.fifo", Attributes={"FifoQueue": "true"})
    arn = sqs.get_queue_attributes(QueueUrl=queue["QueueUrl"], AttributeNames=["QueueArn"])
    sns.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=arn["Attributes"]["QueueArn"],
        ReturnSubscriptionArn=True,
    )
    notifier = SnsNotifier(sns, topic)
    notifier.send(_note("run-1:notify"))
    notifier.send(_note("run-1:notify"))  # e.g. sent again after a crash: dropped
    notifier.send(_note("run-2:notify"))
    got = sqs.receive_message(QueueUrl=queue["QueueUrl"], MaxNumberOfMessages=10)
    bodies = [json.loads(m["Body"]) for m in got.get("Messages", [])]
    assert len(bodies) == 2, bodies
    assert {b.get("MessageDeduplicationId", "") for b in bodies} <= {
        "run-1:notify",
        "run-2:notify",
        "",
    }
