from __future__ import annotations

import json
import logging

import pytest
from rich.console import Console

from cfnops.config import load_settings
from cfnops.notify import (
    ConsoleNotifier,
    DriftRow,
    HttpResponse,
    Notification,
    RecordingTransport,
    SlackNotifier,
    WebhookReferenceError,
    deliver,
    notify_all,
    resolve_webhook,
    slack_payload,
    sns_subject,
)
from cfnops.notify._slack_text import HEADER_LIMIT, SECTION_LIMIT

URL = "https://hooks.slack.example/services/T000/B000/SECRETSECRET"


def _note(**kw: object) -> Notification:
    base: dict[str, object] = {
        "subject": "CloudFormation Stack Drift Detection and Healing Notification",
        "message": "Stack drift has been healed",
        "outcome": "HEALED",
        "stack": "web",
        "stack_id": "arn:aws:cloudformation:us-east-1:123456789012:stack/web/abc",
        "change_set_id": "arn:aws:cloudformation:us-east-1:123456789012:changeSet/x/1",
        "console_url": "https://us-east-1.console.aws.amazon.com/cloudformation/home",
        "run_id": "heal-web-1",
        "drifted": (DriftRow("Param", "AWS::SSM::Parameter", "MODIFIED", ("/Value",)),),
    }
    base.update(kw)
    return Notification(**base)  # type: ignore[arg-type]


def _texts(payload: dict[str, object]) -> list[str]:
    out: list[str] = []
    for block in payload["blocks"]:  # type: ignore[attr-defined]
        if "text" in block:
            out.append(block["text"]["text"])
        for field in block.get("fields", []):
            out.append(field["text"])
    return out


def test_slack_payload_carries_stack_outcome_table_url_and_run_id() -> None:
    payload = slack_payload(_note())
    text = "\n".join(_texts(payload))
    assert payload["blocks"][0]["type"] == "header"
    for needle in ("HEALED", "stack/web/abc", "heal-web-1", "Param", "AWS::SSM::Parameter"):
        assert needle in text
    assert "<https://us-east-1.console.aws.amazon.com/cloudformation/home|" in text
    assert "```" in text and text.count("```") % 2 == 0


def test_slack_payload_respects_block_limits_with_huge_drift() -> None:
    rows = tuple(
        DriftRow(f"Resource{i}", "AWS::EC2::SecurityGroup", "MODIFIED", ("/SecurityGroupIngress",))
        for i in range(500)
    )
    payload = slack_payload(_note(drifted=rows, stack="s" * 400, message="m" * 9000))
    assert len(payload["blocks"][0]["text"]["text"]) <= HEADER_LIMIT
    for text in _texts(payload):
        assert len(text) <= SECTION_LIMIT
        assert text.count("```") % 2 == 0
    assert "the rest is omitted" in payload["blocks"][3]["text"]["text"]


def test_slack_notifier_posts_json_through_the_transport() -> None:
    transport = RecordingTransport()
    SlackNotifier(URL, transport).send(_note())
    ((url, body, headers),) = transport.requests
    assert url == URL
    assert headers["Content-Type"].startswith("application/json")
    assert json.loads(body)["blocks"][0]["type"] == "header"


def test_failing_channel_is_retried_logged_and_never_raises(
    caplog: pytest.LogCaptureFixture,
) -> None:
    transport = RecordingTransport(
        responses=[
            OSError(f"cannot connect to {URL}"),
            HttpResponse(500, "oops"),
            HttpResponse(500, "x"),
        ]
    )
    slept: list[float] = []
    with caplog.at_level(logging.WARNING, logger="cfnops.notify"):
        report = deliver(_note(), [SlackNotifier(URL, transport)], sleep=slept.append)
    assert [(d.channel, d.ok, d.attempts) for d in report] == [("slack", False, 3)]
    assert len(transport.requests) == 3
    assert slept == [0.5, 1.0]
    assert "SECRET" not in caplog.text and "hooks.slack" not in caplog.text
    assert "attempt 1/3" in caplog.text and "HTTP 500" in caplog.text
    assert "SECRET" not in repr(SlackNotifier(URL, transport))


def test_retry_then_success() -> None:
    transport = RecordingTransport(responses=[HttpResponse(503, "busy")])
    report = deliver(_note(), [SlackNotifier(URL, transport)], sleep=lambda _: None)
    assert [(d.ok, d.attempts) for d in report] == [(True, 2)]


def test_console_notifier_prints_the_outcome() -> None:
    console = Console(record=True, width=200)
    ConsoleNotifier(console).send(_note())
    out = console.export_text()
    assert "HEALED" in out and "Stack drift has been healed" in out and "heal-web-1" in out


def test_sns_subject_is_single_line_and_short() -> None:
    assert sns_subject("a\nb") == "a b"
    assert len(sns_subject("x" * 300)) < 100


def test_notify_all_publishes_to_sns_and_slack(cfnops_sandbox) -> None:  # type: ignore[no-untyped-def]
    sns = cfnops_sandbox.client("sns")
    sqs = cfnops_sandbox.client("sqs")
    topic = sns.create_topic(Name="notify-test")["TopicArn"]
    queue_url = sqs.create_queue(QueueName="notify-test")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])[
        "Attributes"
    ]["QueueArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn)
    settings = load_settings(
        aws={"endpoint_url": cfnops_sandbox.endpoint_url, "region": "us-east-1"},
        notify={"sns_topic_arn": topic, "slack_webhook_url": URL, "console": False},
    )
    transport = RecordingTransport()
    report = notify_all(_note(), settings, cfnops_sandbox.clients, transport=transport)
    assert [(d.channel, d.ok) for d in report] == [("sns", True), ("slack", True)]
    body = json.loads(sqs.receive_message(QueueUrl=queue_url)["Messages"][0]["Body"])
    assert body["Subject"] == "CloudFormation Stack Drift Detection and Healing Notification"
    assert body["Message"] == "Stack drift has been healed"
    assert len(transport.requests) == 1


def test_webhook_from_ssm_securestring_and_secrets_manager(cfnops_sandbox) -> None:  # type: ignore[no-untyped-def]
    cfnops_sandbox.client("ssm").put_parameter(
        Name="/cfnops/slack", Value=URL, Type="SecureString", Overwrite=True
    )
    cfnops_sandbox.client("secretsmanager").create_secret(
        Name="cfnops-slack-json", SecretString=json.dumps({"url": URL + "2"})
    )
    clients = cfnops_sandbox.clients
    ssm = load_settings(notify={"slack_webhook_ref": "ssm:/cfnops/slack"})
    sm = load_settings(notify={"slack_webhook_ref": "secretsmanager:cfnops-slack-json"})
    assert resolve_webhook(ssm.notify, clients) == URL
    assert resolve_webhook(sm.notify, clients) == URL + "2"
    missing = load_settings(notify={"slack_webhook_ref": "ssm:/cfnops/missing"})
    with pytest.raises(WebhookReferenceError) as info:
        resolve_webhook(missing.notify, clients)
    assert "ssm:/cfnops/missing" in str(info.value) and "ParameterNotFound" in str(info.value)


def test_unresolvable_reference_disables_slack_without_failing(cfnops_sandbox) -> None:  # type: ignore[no-untyped-def]
    settings = load_settings(
        aws={"endpoint_url": cfnops_sandbox.endpoint_url, "region": "us-east-1"},
        notify={"slack_webhook_ref": "ssm:/nope", "console": False},
    )
    assert notify_all(_note(), settings, cfnops_sandbox.clients) == []


def test_console_notifier_at_80_columns_keeps_arns_and_the_url_whole() -> None:
    arn = (
        "arn:aws:cloudformation:us-east-1:123456789012:changeSet/healing-changeset-"
        "drift-test-2705580d8139/9944eddf-ca35-4995-b191-cd4d40e0c7a6"
    )
    url = "https://us-east-1.console.aws.amazon.com/cloudformation/home?region=us-east-1#/x" * 2
    note = _note(change_set_id=arn, console_url=url, message=f"Healed. Change set {arn}, see")
    console = Console(record=True, width=80, color_system=None)
    ConsoleNotifier(console).send(note)
    lines = console.export_text().splitlines()
    assert lines[0] == "── HEALED ──"
    assert f"  change set  {arn}" in lines and f"  console     {url}" in lines
    # prose wraps at spaces within the width, under its label
    assert lines[1:4] == [
        "  message     Healed. Change set",
        f"              {arn},",
        "              see",
    ]
    # wide enough: the framed panel as before
    console = Console(record=True, width=200, color_system=None)
    ConsoleNotifier(console).send(note)
    framed = console.export_text()
    assert "╭" in framed and arn in framed
