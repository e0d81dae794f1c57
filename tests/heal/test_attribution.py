"""Drift attribution: CloudTrail LookupEvents per drifted resource (Stubber, sandbox, workflow)."""

from __future__ import annotations

import datetime as dt
import json
import re
import uuid
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from tests.heal._support import Heal, unique

from cfnops.cli.main import run
from cfnops.demo.heal_sample import deploy_sample, drift_as_user
from cfnops.heal._attribution import Attribution, attribute, pick
from cfnops.sandbox import Sandbox

T0 = dt.datetime(2026, 11, 20, 10, 0, tzinfo=dt.UTC)


def _event(name: str, minutes: int, source: str = "ssm.amazonaws.com", **kw: Any) -> dict[str, Any]:
    record = {
        "userIdentity": {"arn": f"arn:aws:iam::111111111111:user/{kw.get('user', 'alice')}"},
        "sourceIPAddress": "10.0.0.7",
    }
    record.update(kw.get("record", {}))
    return {
        "EventId": uuid.uuid4().hex,
        "EventName": name,
        "ReadOnly": kw.get("read_only", "false"),
        "EventTime": T0 + dt.timedelta(minutes=minutes),
        "EventSource": source,
        "Username": kw.get("user", "alice"),
        "AccessKeyId": "AKIAEXAMPLE",
        "CloudTrailEvent": json.dumps(record),
    }


def test_pick_takes_the_newest_write_not_made_by_cloudformation() -> None:
    by_cfn = {"userIdentity": {"invokedBy": "cloudformation.amazonaws.com"}}
    events = [
        _event("PutParameter", 1, user="alice"),
        _event("PutParameter", 3, user="bob"),
        _event("GetParameter", 5, read_only="true", user="carol"),
        _event("UpdateStack", 6, source="cloudformation.amazonaws.com"),
        _event("PutParameter", 7, record=by_cfn),
    ]
    found = pick("Param", events)
    assert found == Attribution(
        "Param",
        who="arn:aws:iam::111111111111:user/bob",
        user="bob",
        at="2026-11-20T10:03:00Z",
        via="ssm:PutParameter",
        source_ip="10.0.0.7",
        access_key="AKIAEXAMPLE",
        event_id=events[1]["EventId"],
    )
    assert found.text() == (
        "Param changed by arn:aws:iam::111111111111:user/bob at 2026-11-20T10:03:00Z "
        "via ssm:PutParameter from 10.0.0.7"
    )
    assert pick("Param", events[2:4]).unknown == "no write in CloudTrail since the last deployment"


def test_attribute_pages_through_lookup_events_as_botocores_model_says() -> None:
    ct = boto3.client(
        "cloudtrail", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y"
    )
    until = T0 + dt.timedelta(hours=1)
    attrs = [{"AttributeKey": "ResourceName", "AttributeValue": "/app/p"}]
    base = {"LookupAttributes": attrs, "StartTime": T0, "EndTime": until}
    with Stubber(ct) as stub:
        stub.add_response(
            "lookup_events", {"Events": [_event("PutParameter", 2)], "NextToken": "t1"}, base
        )
        stub.add_response(
            "lookup_events",
            {"Events": [_event("LabelParameterVersion", 9, user="dave")]},
            {**base, "NextToken": "t1"},
        )
        stub.add_client_error("lookup_events", "ThrottlingException", http_status_code=400)
        found = attribute(ct, [("P", "/app/p"), ("Q", "/app/q"), ("R", None)], T0, until=until)
        stub.assert_no_pending_responses()
    assert found["P"].via == "ssm:LabelParameterVersion" and found["P"].user == "dave"
    assert found["Q"].unknown == "LookupEvents failed: ThrottlingException"
    assert found["R"].unknown == "no physical id to look up"


def test_heal_names_who_changed_it_in_the_output_and_notification(heal_env: Heal) -> None:
    stack = unique()
    param = f"/{stack}/p"
    deploy_sample(heal_env.cfn, stack, param)
    sandbox = heal_env.sandbox
    drift_as_user(sandbox.client("iam"), sandbox.endpoint_url, "us-east-1", param, "ops-bob")
    out = heal_env.run(stack)
    assert out["outcome"] == "HEALED"
    (drifted,) = out["drifted"]
    got = drifted["attribution"]
    assert got["who"] == "arn:aws:iam::123456789012:user/ops-bob" and got["user"] == "ops-bob"
    assert got["via"] == "ssm:PutParameter" and got["sourceIp"] == "127.0.0.1"
    (note,) = heal_env.notes
    assert re.search(
        r"SampleParameter changed by arn:aws:iam::123456789012:user/ops-bob at "
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ via ssm:PutParameter from 127\.0\.0\.1",
        note.message,
    ), note.message


def test_heal_without_attribution_makes_no_lookup(heal_env: Heal) -> None:
    stack = unique()
    param = f"/{stack}/p"
    deploy_sample(heal_env.cfn, stack, param)
    sandbox = heal_env.sandbox
    drift_as_user(sandbox.client("iam"), sandbox.endpoint_url, "us-east-1", param, "ops-eve")
    out = heal_env.run(stack, attribution=False)
    assert out["outcome"] == "HEALED" and out["drifted"][0]["attribution"] is None
    assert "changed by" not in heal_env.notes[0].message


def test_drift_cli_reports_attribution_unless_turned_off(
    cfnops_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for key, value in cfnops_sandbox.environment().items():
        monkeypatch.setenv(key, value)
    stack = unique("attr")
    param = f"/{stack}/p"
    deploy_sample(cfnops_sandbox.client("cloudformation"), stack, param)
    iam = cfnops_sandbox.client("iam")
    drift_as_user(iam, cfnops_sandbox.endpoint_url, "us-east-1", param, "ops-carol")
    args = ["--endpoint-url", cfnops_sandbox.endpoint_url, "--region", "us-east-1"]
    assert run([*args, "-o", "json", "drift", stack]) == 0
    (report,) = json.loads(capsys.readouterr().out)["stacks"]
    assert report["resources"][0]["attribution"]["user"] == "ops-carol"
    assert run([*args, "-o", "markdown", "drift", stack]) == 0
    md = capsys.readouterr().out
    assert "- SampleParameter changed by arn:aws:iam::123456789012:user/ops-carol at " in md
    assert run([*args, "-o", "json", "drift", stack, "--no-attribution"]) == 0
    (report,) = json.loads(capsys.readouterr().out)["stacks"]
    assert report["resources"][0]["attribution"] is None
