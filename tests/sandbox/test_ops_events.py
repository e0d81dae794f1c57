"""The in-sandbox EventBridge bus: rules, targets, local handlers, recorder."""

from __future__ import annotations

import json
import threading
import urllib.request
import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError

from cfnops.sandbox import Sandbox
from cfnops.sandbox.extensions import events
from cfnops.sandbox.shapecheck import RawShapeChecker, assert_matches_output_shape


def _queue(sandbox: Sandbox, name: str) -> tuple[str, str]:
    sqs = sandbox.client("sqs")
    url = sqs.create_queue(QueueName=name)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    return str(url), str(arn)


def _bodies(sandbox: Sandbox, url: str) -> list[Any]:
    messages = sandbox.client("sqs").receive_message(QueueUrl=url, MaxNumberOfMessages=10)
    return [json.loads(m["Body"]) for m in messages.get("Messages", [])]


def _entry(source: str, detail: dict[str, Any]) -> dict[str, Any]:
    return {"Source": source, "DetailType": "Order State", "Detail": json.dumps(detail)}


def test_rule_pattern_routes_only_matching_events_to_the_queue(cfnops_sandbox: Sandbox) -> None:
    eb = cfnops_sandbox.client("events")
    tag = uuid.uuid4().hex[:8]
    url, arn = _queue(cfnops_sandbox, f"orders-{tag}")
    rule = f"big-orders-{tag}"
    pattern = {
        "source": [f"shop.{tag}"],
        "detail": {"amount": [{"numeric": [">=", 100]}], "region": [{"anything-but": "test"}]},
    }
    with RawShapeChecker(eb) as raw:
        put_rule = eb.put_rule(Name=rule, EventPattern=json.dumps(pattern))
        eb.put_targets(Rule=rule, Targets=[{"Id": "q", "Arn": arn}])
        put = eb.put_events(
            Entries=[
                _entry(f"shop.{tag}", {"amount": 150, "region": "eu"}),
                _entry(f"shop.{tag}", {"amount": 50, "region": "eu"}),
                _entry(f"shop.{tag}", {"amount": 500, "region": "test"}),
                _entry("other", {"amount": 900, "region": "eu"}),
            ]
        )
    raw.assert_clean()
    assert_matches_output_shape(eb, "PutRule", put_rule)
    assert_matches_output_shape(eb, "PutEvents", put)
    assert put["FailedEntryCount"] == 0
    ids = [e["EventId"] for e in put["Entries"]]

    bodies = _bodies(cfnops_sandbox, url)
    assert [b["id"] for b in bodies] == [ids[0]]
    delivered = bodies[0]
    assert delivered["detail"] == {"amount": 150, "region": "eu"}
    assert delivered["detail-type"] == "Order State"
    assert delivered["version"] == "0"
    assert delivered["time"].endswith("Z")

    seen = {e["id"] for e in events.recorded(source=f"shop.{tag}")}
    assert seen == set(ids[:3])
    (target_delivery,) = events.deliveries(ids[0])
    assert (target_delivery.target, target_delivery.ok) == (arn, True)
    eb.remove_targets(Rule=rule, Ids=["q"])
    eb.delete_rule(Name=rule)


def test_input_transformer_shapes_what_the_target_receives(cfnops_sandbox: Sandbox) -> None:
    eb = cfnops_sandbox.client("events")
    tag = uuid.uuid4().hex[:8]
    url, arn = _queue(cfnops_sandbox, f"tx-{tag}")
    rule = f"tx-{tag}"
    eb.put_rule(Name=rule, EventPattern=json.dumps({"source": [f"tx.{tag}"]}))
    eb.put_targets(
        Rule=rule,
        Targets=[
            {
                "Id": "q",
                "Arn": arn,
                "InputTransformer": {
                    "InputPathsMap": {"who": "$.detail.user"},
                    "InputTemplate": '{"user": <who>}',
                },
            }
        ],
    )
    eb.put_events(Entries=[_entry(f"tx.{tag}", {"user": "ana"})])
    assert _bodies(cfnops_sandbox, url) == [{"user": "ana"}]
    eb.remove_targets(Rule=rule, Ids=["q"])
    eb.delete_rule(Name=rule)


def test_handlers_by_rule_name_and_by_pattern_run_off_the_request_thread(
    cfnops_sandbox: Sandbox,
) -> None:
    eb, ssm = cfnops_sandbox.client("events"), cfnops_sandbox.client("ssm")
    tag = uuid.uuid4().hex[:8]
    rule = f"deploys-{tag}"
    eb.put_rule(Name=rule, EventPattern=json.dumps({"detail-type": [f"Deploy {tag}"]}))
    by_rule: list[dict[str, Any]] = []
    threads: list[str] = []

    def on_rule(event: dict[str, Any]) -> None:
        threads.append(threading.current_thread().name)
        # a handler may call the sandbox over HTTP (no deadlock with the request)
        ssm.put_parameter(Name=f"/deploys/{tag}", Value=event["detail"]["version"], Type="String")
        by_rule.append(event)

    def broken(event: dict[str, Any]) -> None:
        raise RuntimeError("handler bug")

    subs = [
        events.register_handler(rule, on_rule),
        events.register_handler({"detail": {"version": [{"prefix": "2."}]}}, broken),
    ]
    try:
        put = eb.put_events(
            Entries=[
                {
                    "Source": "ci",
                    "DetailType": f"Deploy {tag}",
                    "Detail": json.dumps({"version": "2.1"}),
                }
            ]
        )
        assert events.wait_for_deliveries()
    finally:
        for sub in subs:
            events.unregister_handler(sub)
    event_id = put["Entries"][0]["EventId"]
    assert [e["id"] for e in by_rule] == [event_id]
    assert threads == ["cfnops-event-delivery"]
    assert ssm.get_parameter(Name=f"/deploys/{tag}")["Parameter"]["Value"] == "2.1"
    outcomes = {(d.rule, d.ok) for d in events.deliveries(event_id)}
    assert outcomes == {(rule, True), (None, False)}
    failure = next(d for d in events.deliveries(event_id) if not d.ok)
    assert failure.error is not None and "handler bug" in failure.error


def test_emit_publishes_from_python_and_fills_the_envelope(cfnops_sandbox: Sandbox) -> None:
    got: list[dict[str, Any]] = []
    tag = uuid.uuid4().hex[:8]
    sub = events.register_handler({"source": [f"cfnops.{tag}"]}, got.append)
    try:
        emitted = events.emit(
            {"source": f"cfnops.{tag}", "detail-type": "Heal Done", "detail": {"stack": "s"}}
        )
        assert events.wait_for_deliveries()
    finally:
        events.unregister_handler(sub)
    assert got == [emitted]
    assert emitted["account"] == "123456789012"
    assert emitted["region"] == "us-east-1"
    assert emitted["resources"] == []
    with pytest.raises(ValueError, match="source"):
        events.emit({"detail-type": "x", "detail": {}})


def test_invalid_pattern_is_refused_like_eventbridge(cfnops_sandbox: Sandbox) -> None:
    eb = cfnops_sandbox.client("events")
    with pytest.raises(ClientError) as info:
        eb.put_rule(Name="bad", EventPattern=json.dumps({"source": [{"contains": "x"}]}))
    assert info.value.response["Error"]["Code"] == "InvalidEventPatternException"


def test_test_event_pattern_uses_the_same_semantics(cfnops_sandbox: Sandbox) -> None:
    eb = cfnops_sandbox.client("events")
    event = {
        "id": "1",
        "account": "123456789012",
        "source": "aws.ec2",
        "time": "2024-01-01T00:00:00Z",
        "region": "us-east-1",
        "resources": [],
        "detail-type": "EC2 Instance State-change Notification",
        "detail": {"state": "stopped"},
    }
    yes = eb.test_event_pattern(
        EventPattern=json.dumps({"detail": {"state": [{"wildcard": "sto*"}]}}),
        Event=json.dumps(event),
    )
    assert_matches_output_shape(eb, "TestEventPattern", yes)
    no = eb.test_event_pattern(
        EventPattern=json.dumps({"detail": {"state": ["running"]}}), Event=json.dumps(event)
    )
    assert (yes["Result"], no["Result"]) == (True, False)


def test_malformed_entries_are_reported_per_entry(cfnops_sandbox: Sandbox) -> None:
    eb = cfnops_sandbox.client("events")
    put = eb.put_events(
        Entries=[
            {"Source": "a", "DetailType": "b", "Detail": "not json"},
            {"Source": "a", "DetailType": "b", "Detail": "{}"},
        ]
    )
    assert put["FailedEntryCount"] == 1
    assert put["Entries"][0]["ErrorCode"] == "MalformedDetail"
    assert "EventId" in put["Entries"][1]


def test_control_route_emits_and_lists(cfnops_sandbox: Sandbox) -> None:
    tag = uuid.uuid4().hex[:8]
    body = {"emit": {"source": f"ctl.{tag}", "detail-type": "Ping", "detail": {"n": 1}}}
    request = urllib.request.Request(
        cfnops_sandbox.endpoint_url + "/_cfnops/events", data=json.dumps(body).encode()
    )
    with urllib.request.urlopen(request) as resp:
        answer = json.loads(resp.read())
    assert answer["emitted"]["detail"] == {"n": 1}
    query = json.dumps({"source": f"ctl.{tag}"}).encode()
    request = urllib.request.Request(cfnops_sandbox.endpoint_url + "/_cfnops/events", data=query)
    with urllib.request.urlopen(request) as resp:
        listed = json.loads(resp.read())
    assert [e["id"] for e in listed["events"]] == [answer["emitted"]["id"]]


def test_sns_topic_target_with_input_path(cfnops_sandbox: Sandbox) -> None:
    eb, sns = cfnops_sandbox.client("events"), cfnops_sandbox.client("sns")
    tag = uuid.uuid4().hex[:8]
    url, queue_arn = _queue(cfnops_sandbox, f"via-sns-{tag}")
    topic = sns.create_topic(Name=f"alerts-{tag}")["TopicArn"]
    sns.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=queue_arn,
        Attributes={"RawMessageDelivery": "true"},
    )
    rule = f"alerts-{tag}"
    eb.put_rule(Name=rule, EventPattern=json.dumps({"source": [f"alarm.{tag}"]}))
    eb.put_targets(Rule=rule, Targets=[{"Id": "t", "Arn": topic, "InputPath": "$.detail"}])
    eb.put_events(Entries=[_entry(f"alarm.{tag}", {"level": "high"})])
    assert _bodies(cfnops_sandbox, url) == [{"level": "high"}]
    eb.remove_targets(Rule=rule, Ids=["t"])
    eb.delete_rule(Name=rule)
