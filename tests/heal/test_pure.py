"""The pure core of heal: gate, ignore rules, names, URLs, event validation, rendering."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cfnops.config import DEFAULT_PROTECTED_TYPES, IgnoreRule
from cfnops.heal import (
    ChangeView,
    DetailView,
    GatePolicy,
    PropertyDrift,
    ResourceDrift,
    StackDriftReport,
    decide,
)
from cfnops.heal._event import parse_event
from cfnops.heal._explain import unrevertable_drift
from cfnops.heal._ignore import apply_ignore
from cfnops.heal._model import report_from_json
from cfnops.heal._names import change_set_name, request_token
from cfnops.heal._urls import change_set_console_url, region_from_stack_arn
from cfnops.heal.errors import InvalidHealEvent, MalformedStackArn

STACK_ID = (
    "arn:aws:cloudformation:eu-west-1:123456789012:stack/web/0a1b2c3d-aaaa-bbbb-cccc-1234567890ab"
)
CS_ID = "arn:aws:cloudformation:eu-west-1:123456789012:changeSet/healing-changeset-web-x/1234"
POLICY = GatePolicy(DEFAULT_PROTECTED_TYPES, (), "web")


def _change(**kw: object) -> ChangeView:
    base: dict[str, object] = {
        "logical_id": "Param",
        "resource_type": "AWS::SSM::Parameter",
        "action": "Modify",
        "replacement": "False",
        "paths": ("/Properties/Value",),
    }
    base.update(kw)
    return ChangeView(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (_change(replacement="True"), "Param (AWS::SSM::Parameter) requires replacement"),
        (_change(replacement="Conditional"), "Param (AWS::SSM::Parameter) may be replaced"),
        (_change(action="Remove"), "Param (AWS::SSM::Parameter) would be removed"),
        (_change(resource_type="Custom::Thing"), "Param (Custom::Thing) is a custom resource"),
        (
            _change(resource_type="AWS::CloudFormation::CustomResource"),
            "is a custom resource",
        ),
        (_change(resource_type="AWS::RDS::DBInstance"), "is a protected type"),
        (_change(resource_type="AWS::DynamoDB::Table"), "is a protected type"),
        (_change(resource_type="AWS::S3::Bucket"), "is a protected type"),
        (_change(resource_type="AWS::EFS::FileSystem"), "is a protected type"),
        (_change(resource_type="AWS::IAM::Policy"), "is a protected type"),
        (_change(resource_type="AWS::IAM::ManagedPolicy"), "is a protected type"),
        (_change(resource_type="AWS::EC2::SecurityGroupIngress"), "is a protected type"),
        (_change(resource_type="AWS::EC2::SecurityGroupEgress"), "is a protected type"),
        (_change(resource_type="AWS::Lambda::Permission"), "is a protected type"),
    ],
    ids=lambda v: getattr(v, "resource_type", v) if not isinstance(v, str) else v[:30],
)
def test_gate_holds_for_each_risky_change(change: ChangeView, reason: str) -> None:
    decision = decide((_change(logical_id="Other"), change), POLICY)
    assert decision.decision == "HOLD"
    assert any(reason in r for r in decision.reasons), decision.reasons


def test_gate_executes_a_plain_in_place_revert_and_lists_every_reason() -> None:
    assert decide((_change(),), POLICY).decision == "EXECUTE"
    many = decide(
        (_change(replacement="True", action="Remove", resource_type="AWS::S3::Bucket"),), POLICY
    )
    assert len(many.reasons) == 3


def test_protected_types_are_configurable() -> None:
    policy = GatePolicy(("AWS::SSM::Parameter",), (), "web")
    assert decide((_change(),), policy).decision == "HOLD"
    assert decide((_change(resource_type="AWS::S3::Bucket"),), policy).decision == "EXECUTE"


def test_gate_applies_ignore_rules() -> None:
    rule = IgnoreRule(
        resource_type="AWS::AutoScaling::AutoScalingGroup", property_path="/DesiredCapacity"
    )
    policy = GatePolicy(DEFAULT_PROTECTED_TYPES, (rule,), "web")
    asg = "AWS::AutoScaling::AutoScalingGroup"
    only_ignored = _change(resource_type=asg, paths=("/Properties/DesiredCapacity",))
    assert decide((only_ignored,), policy).decision == "SKIP"
    mixed = _change(resource_type=asg, paths=("/Properties/DesiredCapacity", "/Properties/MaxSize"))
    held = decide((mixed,), policy)
    assert held.decision == "HOLD"
    assert held.reasons == (
        "Param (AWS::AutoScaling::AutoScalingGroup) would also revert ignored drift at "
        "/DesiredCapacity",
    )
    assert decide((only_ignored, _change()), policy).decision == "EXECUTE"


def test_change_view_from_the_api_shape() -> None:
    view = ChangeView.from_api(
        {
            "Type": "Resource",
            "ResourceChange": {
                "Action": "Modify",
                "LogicalResourceId": "Sg",
                "ResourceType": "AWS::EC2::SecurityGroup",
                "Replacement": "Conditional",
                "Details": [{"Target": {"Attribute": "Properties", "Path": "/Properties/X"}}],
            },
        }
    )
    assert view == ChangeView(
        "Sg",
        "AWS::EC2::SecurityGroup",
        "Modify",
        "Conditional",
        ("/Properties/X",),
        details=(DetailView("/Properties/X", "X"),),
    )


def test_ignore_rule_globs_and_subpaths() -> None:
    rule = IgnoreRule(
        resource_type="AWS::EC2::*", property_path="/Tags", stack="prod-*", logical_id="Web*"
    )
    report = StackDriftReport(
        "prod-1",
        STACK_ID,
        "DRIFTED",
        resources=(
            ResourceDrift(
                "WebSg",
                "AWS::EC2::SecurityGroup",
                "MODIFIED",
                properties=(
                    PropertyDrift("/Tags/0/Value", "a", "b", "NOT_EQUAL"),
                    PropertyDrift("/GroupDescription", "a", "b", "NOT_EQUAL"),
                ),
            ),
            ResourceDrift(
                "DbSg",
                "AWS::EC2::SecurityGroup",
                "MODIFIED",
                properties=(PropertyDrift("/Tags/0/Value", "a", "b", "NOT_EQUAL"),),
            ),
        ),
    )
    marked = apply_ignore(report, (rule,))
    web, db = marked.resources
    assert [p.ignored for p in web.properties] == [True, False]
    assert web.effective_status == "MODIFIED"
    assert [p.ignored for p in db.properties] == [False]
    just_tags = ResourceDrift(
        "WebSg", "AWS::EC2::SecurityGroup", "MODIFIED", properties=web.properties[:1]
    )
    only_tags = apply_ignore(report.with_resources((just_tags,)), (rule,))
    assert only_tags.effective_status == "IN_SYNC"
    assert apply_ignore(report, ()).resources == report.resources
    assert report_from_json(marked.to_json()) == marked


@given(stack=st.from_regex(r"[a-zA-Z][-a-zA-Z0-9]{0,127}", fullmatch=True), run=st.text(min_size=1))
def test_change_set_names_and_tokens_are_valid_and_deterministic(stack: str, run: str) -> None:
    name = change_set_name(stack, run)
    assert name == change_set_name(stack, run)
    assert name.startswith("healing-changeset-")
    assert re.fullmatch(r"[a-zA-Z][-a-zA-Z0-9]*", name) and len(name) <= 128
    token = request_token(run, "execute")
    assert re.fullmatch(r"[a-zA-Z0-9][-a-zA-Z0-9]*", token) and len(token) <= 128
    assert token != request_token(run, "create")
    assert change_set_name(stack, run + "x") != name


def test_console_url_exactly_as_the_reference_builds_it() -> None:
    assert change_set_console_url(STACK_ID, CS_ID) == (
        "https://eu-west-1.console.aws.amazon.com/cloudformation/home?region=eu-west-1"
        "#/stacks/changesets/changes?stackId=arn%3Aaws%3Acloudformation%3Aeu-west-1%3A"
        "123456789012%3Astack%2Fweb%2F0a1b2c3d-aaaa-bbbb-cccc-1234567890ab"
        "&changeSetId=arn%3Aaws%3Acloudformation%3Aeu-west-1%3A123456789012%3AchangeSet"
        "%2Fhealing-changeset-web-x%2F1234"
    )
    assert region_from_stack_arn(STACK_ID.replace("arn:aws:", "arn:aws-cn:")) == "eu-west-1"


@pytest.mark.parametrize(
    "bad", ["web", "arn:aws:s3:::bucket", "arn:aws:cloudformation:x:1:stack/a/b"]
)
def test_malformed_stack_arn_is_an_error(bad: str) -> None:
    with pytest.raises(MalformedStackArn, match="cannot read a region"):
        change_set_console_url(bad, CS_ID)


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ("{}", "must be a JSON object"),
        ([], "must be a JSON object"),
        ({}, "StackName: Field required"),
        ({"StackName": ""}, "StackName"),
        ({"StackName": "bad name"}, "StackName"),
        ({"StackName": "web", "CreateChangeSetOnly": "false"}, "CreateChangeSetOnly"),
        ({"StackName": "web", "Extra": 1}, "Extra: Extra inputs are not permitted"),
        ({"StackName": "web", "Settings": {"drift_poll_seconds": 0}}, "drift_poll_seconds"),
    ],
)
def test_event_validation(event: object, message: str) -> None:
    with pytest.raises(InvalidHealEvent, match=re.escape(message)):
        parse_event(event)


def test_valid_events() -> None:
    parsed, heal = parse_event({"StackName": "web", "CreateChangeSetOnly": True})
    assert parsed.CreateChangeSetOnly is True and heal is None
    parsed, heal = parse_event({"StackName": STACK_ID, "Settings": {"drift_poll_seconds": 5}})
    assert heal is not None and heal.drift_poll_seconds == 5


def test_unrevertable_explanations() -> None:
    drifted = [
        {
            "logicalId": "Bucket",
            "resourceType": "AWS::S3::Bucket",
            "status": "MODIFIED",
            "properties": [
                {"path": "/BucketName", "expected": "a", "actual": "b", "ignored": False},
                {"path": "/Tags/0/Value", "expected": "a", "actual": "b", "ignored": True},
                {
                    "path": "/VersioningConfiguration/Status",
                    "expected": "Enabled",
                    "actual": "Suspended",
                    "ignored": False,
                },
            ],
        },
        {"logicalId": "Gone", "resourceType": "AWS::SNS::Topic", "status": "DELETED"},
    ]
    lines = unrevertable_drift(drifted, "us-east-1")
    assert "create-only property" in lines[0]
    assert "ignored by a [heal] ignore rule" in lines[1]
    assert "reported nothing to revert" in lines[2]
    assert lines[3] == "Gone (AWS::SNS::Topic): deleted outside CloudFormation"


def test_coverage_buckets_percent_and_sum() -> None:
    from cfnops.heal._coverage import Coverage, classify, count

    assert [
        classify(s, r) for s, r in [("IN_SYNC", None), ("MODIFIED", None), ("DELETED", None)]
    ] == ["checked"] * 3
    assert classify("NOT_CHECKED", None) == "unsupported"
    assert classify("NOT_CHECKED", "property value could not be resolved") == "not_checked"
    assert classify("UNKNOWN", None) == "not_checked"
    cov = count([("IN_SYNC", None), ("NOT_CHECKED", None), ("UNKNOWN", None)])
    assert (cov.checked, cov.not_checked, cov.unsupported, cov.percent) == (1, 1, 1, 33.3)
    assert not cov.complete and count([("IN_SYNC", None)]).complete
    both = cov + Coverage(stacks_not_checkable=1)
    assert both.text() == (
        "coverage 33.3%: 1 of 3 resources checked, 1 not checked, 1 unsupported, "
        "1 stack(s) not checkable"
    )
    assert Coverage().percent is None and Coverage().text().startswith("coverage n/a")
    assert Coverage.from_json(both.to_json()) == both


def test_heal_notifications_carry_one_idempotency_key_per_run_and_outcome() -> None:
    from cfnops.heal import _messages as msg
    from cfnops.notify._sns import deduplication_id

    def note(outcome: str, run_id: str = "heal-web-1") -> str | None:
        made = msg.note(outcome, "text", severity="info", stack="web", stack_id="a", run_id=run_id)
        return made.idempotency_key

    assert note("HEALED") == "heal-web-1:healed" == note("HEALED")  # resent after a crash
    assert note("HELD") != note("HEALED") and note("HEALED", "heal-web-2") != note("HEALED")
    sent = msg.note("HEALED", "text", severity="info", stack="web", stack_id="a", run_id="r-1")
    assert deduplication_id(sent) == "r-1:healed"  # what an SNS FIFO topic deduplicates on
