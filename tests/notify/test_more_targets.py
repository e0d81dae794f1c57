"""EventBridge (on the sandbox), PagerDuty Events v2 and Teams workflow webhooks (loopback
receivers): the fan-out's rules (retries, never raising), idempotency keys, no secret in
logs, errors or reprs."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from cfnops.config import ConfigError, load_settings
from cfnops.notify import (
    DriftRow,
    Notification,
    PagerDutyNotifier,
    TeamsNotifier,
    build_notifiers,
    notify_all,
)

ROUTING_KEY = "R0UT1NGKEYsecret0000000000000000"


class Receiver:
    """A loopback HTTP server that records JSON bodies and answers ``status``."""

    def __init__(self, status: int) -> None:
        self.status = status
        self.bodies: list[dict[str, Any]] = []
        self.paths: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers["Content-Length"])
                outer.bodies.append(json.loads(self.rfile.read(length)))
                outer.paths.append(self.path)
                self.send_response(outer.status)
                self.end_headers()
                self.wfile.write(b'{"status": "success"}')

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver(202)
    yield found
    found.close()


def _note(severity: str = "warning", outcome: str = "CHANGE_SET_CREATED") -> Notification:
    return Notification(
        subject="cfnops heal web-prod",
        message="drift found: a change set waits for approval",
        outcome=outcome,
        severity=severity,  # type: ignore[arg-type]
        stack="web-prod",
        run_id="heal-web-prod-123",
        console_url="https://console.aws.amazon.com/cloudformation/home",
        drifted=(DriftRow("Bucket", "AWS::S3::Bucket", "MODIFIED", ("Tags",)),),
        idempotency_key="heal-web-prod-123:CHANGE_SET_CREATED",
    )


def test_pagerduty_triggers_then_resolves_one_incident_per_run(
    receiver: Receiver, caplog: pytest.LogCaptureFixture
) -> None:
    settings = load_settings(
        notify={
            "pagerduty_routing_key": ROUTING_KEY,
            "pagerduty_url": f"{receiver.url}/v2/enqueue",
            "console": False,
        }
    )
    with caplog.at_level(logging.DEBUG):
        first = notify_all(_note(), settings, sleep=lambda _s: None)
        again = notify_all(_note(), settings, sleep=lambda _s: None)  # resent after a crash
        done = notify_all(_note("info", "HEALED"), settings, sleep=lambda _s: None)
    assert [(d.channel, d.ok) for d in first + again + done] == [("pagerduty", True)] * 3
    trigger, resent, resolve = receiver.bodies
    assert receiver.paths == ["/v2/enqueue"] * 3
    assert trigger["event_action"] == "trigger" and resolve["event_action"] == "resolve"
    assert (
        trigger["dedup_key"] == resent["dedup_key"] == resolve["dedup_key"] == "heal-web-prod-123"
    )
    assert trigger["routing_key"] == ROUTING_KEY
    assert trigger["payload"]["severity"] == "warning"
    assert trigger["payload"]["source"] == "web-prod"
    assert trigger["payload"]["custom_details"]["drifted"] == ["Bucket"]
    assert "payload" not in resolve
    assert ROUTING_KEY not in caplog.text
    assert ROUTING_KEY not in repr(build_notifiers(settings, None))


def test_teams_gets_an_adaptive_card(receiver: Receiver) -> None:
    settings = load_settings(
        notify={"teams_webhook_url": f"{receiver.url}/workflows/abc?sig=SECRET", "console": False}
    )
    report = notify_all(_note("error", "FAILED"), settings, sleep=lambda _s: None)
    assert [(d.channel, d.ok) for d in report] == [("teams", True)]
    [body] = receiver.bodies
    assert body["type"] == "message"
    [attachment] = body["attachments"]
    assert attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
    card = attachment["content"]
    assert card["type"] == "AdaptiveCard" and card["version"] == "1.4"
    texts = [b.get("text") for b in card["body"] if b["type"] == "TextBlock"]
    assert texts[0] == "FAILED: web-prod" and card["body"][0]["color"] == "Attention"
    facts = {
        f["title"]: f["value"] for b in card["body"] if b["type"] == "FactSet" for f in b["facts"]
    }
    assert facts["Run id"] == "heal-web-prod-123"
    assert facts["Bucket"] == "AWS::S3::Bucket MODIFIED"
    assert card["actions"][0]["url"].startswith("https://console.aws.amazon.com/")


def test_a_refusing_receiver_is_retried_then_reported_without_the_secret(
    caplog: pytest.LogCaptureFixture,
) -> None:
    refusing = Receiver(500)
    try:
        url = f"{refusing.url}/workflows/abc?sig=SECRET"
        settings = load_settings(
            notify={
                "teams_webhook_url": url,
                "pagerduty_routing_key": ROUTING_KEY,
                "pagerduty_url": f"{refusing.url}/v2/enqueue",
                "console": False,
            }
        )
        with caplog.at_level(logging.DEBUG):
            report = notify_all(_note(), settings, sleep=lambda _s: None)
    finally:
        refusing.close()
    assert [(d.channel, d.ok, d.attempts) for d in report] == [
        ("pagerduty", False, 3),
        ("teams", False, 3),
    ]
    assert all("HTTP 500" in (d.error or "") for d in report)
    for secret in ("SECRET", ROUTING_KEY):
        assert secret not in caplog.text
        assert all(secret not in (d.error or "") for d in report)
    assert "SECRET" not in repr(TeamsNotifier(url)) and ROUTING_KEY not in repr(
        PagerDutyNotifier(ROUTING_KEY)
    )


def test_plain_http_to_a_remote_host_is_refused() -> None:
    with pytest.raises(ConfigError, match="https"):
        load_settings(notify={"teams_webhook_url": "http://example.com/hook"})
    with pytest.raises(ConfigError, match="https"):
        load_settings(notify={"pagerduty_url": "http://example.com/v2/enqueue"})


def test_eventbridge_put_events_reaches_a_rule_target(cfnops_sandbox) -> None:  # type: ignore[no-untyped-def]
    events = cfnops_sandbox.client("events")
    sqs = cfnops_sandbox.client("sqs")
    events.create_event_bus(Name="ops")
    queue_url = sqs.create_queue(QueueName="cfnops-events")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])[
        "Attributes"
    ]["QueueArn"]
    events.put_rule(
        Name="cfnops-to-sqs", EventBusName="ops", EventPattern=json.dumps({"source": ["cfnops"]})
    )
    events.put_targets(
        Rule="cfnops-to-sqs", EventBusName="ops", Targets=[{"Id": "q", "Arn": queue_arn}]
    )
    settings = load_settings(
        aws={"endpoint_url": cfnops_sandbox.endpoint_url, "region": "us-east-1"},
        notify={"eventbridge_bus": "ops", "console": False},
    )
    report = notify_all(_note(), settings, cfnops_sandbox.clients)
    assert [(d.channel, d.ok) for d in report] == [("eventbridge", True)]
    messages = sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=2)["Messages"]
    event = json.loads(messages[0]["Body"])
    assert event["source"] == "cfnops" and event["detail-type"] == "cfnops notification"
    detail = event["detail"]
    assert detail["runId"] == "heal-web-prod-123"
    assert detail["idempotencyKey"] == "heal-web-prod-123:CHANGE_SET_CREATED"
    assert detail["drifted"][0]["logicalId"] == "Bucket"


def test_eventbridge_refusal_is_a_failed_delivery(cfnops_sandbox) -> None:  # type: ignore[no-untyped-def]
    settings = load_settings(
        aws={"endpoint_url": cfnops_sandbox.endpoint_url, "region": "us-east-1"},
        notify={"eventbridge_bus": "no-such-bus", "console": False},
    )
    report = notify_all(_note(), settings, cfnops_sandbox.clients, sleep=lambda _s: None)
    assert [(d.channel, d.ok) for d in report] == [("eventbridge", False)]


def test_pagerduty_and_teams_bodies_carry_no_null_and_no_code_fences() -> None:
    """stack_id and change_set_id are unknown here: no ``null`` field goes out, and the
    Markdown fence of a failure message is not shown literally where it is not rendered."""
    import dataclasses

    from cfnops.notify._webhooks import pagerduty_event, teams_card

    note = dataclasses.replace(
        _note("error", "FAILED"),
        message="step failed:\n```\nAccessDenied: `ssm:PutParameter`\n```",
        details=(("error", "```text\nboom\n```"),),
    )
    event = pagerduty_event(note, ROUTING_KEY)
    card = teams_card(note)

    def nulls(value: Any) -> list[Any]:
        children = value.values() if isinstance(value, dict) else value
        found = [k for k, v in value.items() if v is None] if isinstance(value, dict) else []
        if isinstance(value, dict | list):
            found += [n for child in children for n in nulls(child)]
        return found

    assert nulls(event) == [] and nulls(card) == []
    assert "stack_id" not in event["payload"]["custom_details"]
    assert "class" in event["payload"] and "component" in event["payload"]
    assert "`" not in json.dumps(event) and "`" not in json.dumps(card)
    assert event["payload"]["summary"].endswith("step failed:\nAccessDenied: ssm:PutParameter")
    assert event["payload"]["custom_details"]["error"] == "boom"
