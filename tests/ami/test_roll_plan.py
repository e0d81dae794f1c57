"""``plan_roll``: which stacks can roll through the instance refresh policy, and the fix
for each one that cannot (pure, no AWS)."""

from __future__ import annotations

from typing import Any

import pytest

from cfnops.ami import plan_roll


def template(
    *, policy: dict[str, Any] | None = None, low: str = "1", high: str = "1", lc: bool = False
) -> dict[str, Any]:
    group: dict[str, Any] = {
        "Type": "AWS::AutoScaling::AutoScalingGroup",
        "Properties": {"MinSize": low, "MaxSize": high},
    }
    if lc:
        group["Properties"]["LaunchConfigurationName"] = {"Ref": "Config"}
    else:
        group["Properties"]["LaunchTemplate"] = {
            "LaunchTemplateId": {"Ref": "Lt"},
            "Version": {"Fn::GetAtt": ["Lt", "LatestVersionNumber"]},
        }
    if policy is not None:
        group["UpdatePolicy"] = policy
    resources: dict[str, Any] = {"Group": group}
    if lc:
        resources["Config"] = {
            "Type": "AWS::AutoScaling::LaunchConfiguration",
            "Properties": {"ImageId": {"Ref": "ImageId"}},
        }
    else:
        resources["Lt"] = {
            "Type": "AWS::EC2::LaunchTemplate",
            "Properties": {"LaunchTemplateData": {"ImageId": {"Ref": "ImageId"}}},
        }
    return {"Parameters": {"ImageId": {"Type": "AWS::EC2::Image::Id"}}, "Resources": resources}


REFRESH = {"AutoScalingInstanceRefresh": {"Strategy": "Rolling", "Preferences": {"BakeTime": 60}}}


def test_group_with_the_policy_can_roll() -> None:
    plan = plan_roll(template(policy=REFRESH), "ImageId")
    assert plan.ok
    (group,) = plan.groups
    assert (group.logical_id, group.launch_template) == ("Group", "Lt")
    assert group.preferences == {"BakeTime": 60}


@pytest.mark.parametrize(
    ("kwargs", "needle", "has_edit"),
    [
        ({}, "has no AutoScalingInstanceRefresh", True),
        (
            {"policy": {**REFRESH, "AutoScalingRollingUpdate": {}}},
            "mutually exclusive",
            True,
        ),
        ({"policy": REFRESH, "low": "1", "high": "3"}, "MinSize 1 and MaxSize 3 differ", False),
        ({"policy": REFRESH, "lc": True}, "launch configuration", False),
    ],
    ids=["no-policy", "rolling-update-too", "not-min-eq-max", "launch-configuration"],
)
def test_groups_that_cannot_roll_say_why(
    kwargs: dict[str, Any], needle: str, has_edit: bool
) -> None:
    plan = plan_roll(template(**kwargs), "ImageId")
    assert not plan.ok
    assert any(needle in p for p in plan.problems()), plan.problems()
    edits = [g.edit for g in plan.groups if g.edit]
    assert bool(edits) is has_edit
    if has_edit:
        assert "AutoScalingInstanceRefresh:" in edits[0]


def test_image_parameter_through_sub_is_followed() -> None:
    t = template(policy=REFRESH)
    t["Resources"]["Lt"]["Properties"]["LaunchTemplateData"]["ImageId"] = {"Fn::Sub": "${ImageId}"}
    assert plan_roll(t, "ImageId").ok


def test_other_parameter_key_finds_no_group() -> None:
    plan = plan_roll(template(policy=REFRESH), "AmiId")
    assert not plan.ok
    assert "no Auto Scaling group launches" in plan.problems()[0]


def test_template_body_yaml_decodes_through_the_shared_loader() -> None:
    """GetTemplate returns YAML text as written: short-form tags decode without cfn-lint."""
    from cfnops.ami._roll import decode_template_body

    body = (
        "Parameters:\n  ImageId:\n    Type: String\n"
        "Resources:\n  Lt:\n    Type: AWS::EC2::LaunchTemplate\n"
        "    Properties:\n      LaunchTemplateData:\n        ImageId: !Ref ImageId\n"
    )
    found = decode_template_body(body)
    image = found["Resources"]["Lt"]["Properties"]["LaunchTemplateData"]["ImageId"]
    assert image == {"Ref": "ImageId"}
    assert decode_template_body('{"Resources": {}}') == {"Resources": {}}
    assert decode_template_body({"Resources": {}}) == {"Resources": {}}
