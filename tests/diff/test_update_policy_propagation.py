"""Auto Scaling groups: the UpdatePolicy decides the group's verdict and its referrers'.

AWS docs, "UpdatePolicy attribute" (aws-attribute-updatepolicy.html): a change of
the launch configuration or launch template triggers ``AutoScalingReplacingUpdate``
(``WillReplace: true`` replaces the group, and takes precedence) or
``AutoScalingRollingUpdate`` (instances are replaced in batches, the group is
updated in place). Scaling policies, scheduled actions and lifecycle hooks name
the group in ``AutoScalingGroupName`` (create-only: "AWS::AutoScaling::ScalingPolicy",
"AWS::AutoScaling::ScheduledAction", "AWS::AutoScaling::LifecycleHook"), so they
are replaced with the group and only then. ``LaunchTemplate`` changes with
``Fn::GetAtt LaunchTemplate.LatestVersionNumber`` when its data is updated
("AWS::EC2::LaunchTemplate", return values).
"""

from __future__ import annotations

from typing import Any

import pytest

from cfnops.diff import Impact, diff_templates

ROLLING = {"AutoScalingRollingUpdate": {"MinInstancesInService": 1, "MaxBatchSize": 2}}
REPLACING = {"AutoScalingReplacingUpdate": {"WillReplace": True}}
REFERRERS = ("ScaleUp", "Nightly", "Hook")


def _stack(image: str, policy: dict[str, Any] | None, *, template: bool = False) -> dict[str, Any]:
    group: dict[str, Any] = {
        "Type": "AWS::AutoScaling::AutoScalingGroup",
        "Properties": {"MinSize": "1", "MaxSize": "4", "AvailabilityZones": {"Fn::GetAZs": ""}},
    }
    if template:
        launch: dict[str, Any] = {
            "Type": "AWS::EC2::LaunchTemplate",
            "Properties": {"LaunchTemplateData": {"ImageId": image, "InstanceType": "t3.micro"}},
        }
        group["Properties"]["LaunchTemplate"] = {
            "LaunchTemplateId": {"Ref": "Launch"},
            "Version": {"Fn::GetAtt": ["Launch", "LatestVersionNumber"]},
        }
    else:
        launch = {
            "Type": "AWS::AutoScaling::LaunchConfiguration",
            "Properties": {"ImageId": image, "InstanceType": "t3.micro"},
        }
        group["Properties"]["LaunchConfigurationName"] = {"Ref": "Launch"}
    if policy is not None:
        group["UpdatePolicy"] = policy
    named = {"AutoScalingGroupName": {"Ref": "Group"}}
    return {
        "Conditions": {"Blue": {"Fn::Equals": [{"Ref": "AWS::Region"}, "us-east-1"]}},
        "Resources": {
            "Launch": launch,
            "Group": group,
            "ScaleUp": {
                "Type": "AWS::AutoScaling::ScalingPolicy",
                "Properties": {
                    **named,
                    "AdjustmentType": "ChangeInCapacity",
                    "ScalingAdjustment": 1,
                },
            },
            "Nightly": {
                "Type": "AWS::AutoScaling::ScheduledAction",
                "Properties": {**named, "MinSize": 0, "Recurrence": "0 22 * * *"},
            },
            "Hook": {
                "Type": "AWS::AutoScaling::LifecycleHook",
                "Properties": {
                    **named,
                    "LifecycleTransition": "autoscaling:EC2_INSTANCE_LAUNCHING",
                },
            },
        },
    }


CONDITIONAL = {"AutoScalingReplacingUpdate": {"WillReplace": {"Fn::If": ["Blue", True, False]}}}


@pytest.mark.parametrize("template", [False, True], ids=["launch-configuration", "launch-template"])
@pytest.mark.parametrize(
    ("policy", "group", "referrers", "words"),
    [
        pytest.param(ROLLING, Impact.WILL_UPDATE, None, "AutoScalingRollingUpdate", id="rolling"),
        pytest.param(
            REPLACING, Impact.WILL_REPLACE, Impact.WILL_REPLACE, "WillReplace", id="replacing"
        ),
        pytest.param(
            {**ROLLING, **REPLACING},
            Impact.WILL_REPLACE,
            Impact.WILL_REPLACE,
            "WillReplace",
            id="replacing-wins",
        ),
        pytest.param(
            CONDITIONAL, Impact.MAY_REPLACE, Impact.MAY_REPLACE, "condition Blue", id="conditional"
        ),
        pytest.param(None, Impact.WILL_UPDATE, None, "no UpdatePolicy", id="no-policy"),
    ],
)
def test_group_and_referrers_follow_the_update_policy(
    template: bool,
    policy: dict[str, Any] | None,
    group: Impact,
    referrers: Impact | None,
    words: str,
) -> None:
    old = _stack("ami-0aaaaaaaaaaaaaaaa", policy, template=template)
    new = _stack("ami-0bbbbbbbbbbbbbbbb", policy, template=template)
    result = diff_templates(old, new)
    launch = result.resource("Launch")
    assert launch is not None
    assert launch.impact is (Impact.WILL_UPDATE if template else Impact.WILL_REPLACE)
    found = result.resource("Group")
    assert found is not None and found.impact is group
    trigger = found.property("LaunchTemplate" if template else "LaunchConfigurationName")
    assert trigger is not None and words in trigger.reason
    for rid in REFERRERS:
        res = result.resource(rid)
        if referrers is None:
            assert res is None, f"{rid} is not replaced when the group is updated in place"
        else:
            assert res is not None and res.impact is referrers
            prop = res.property("AutoScalingGroupName")
            assert prop is not None and prop.propagated_from == "Group"


def test_changing_only_the_policy_is_an_attribute_update() -> None:
    result = diff_templates(_stack("ami-1", ROLLING), _stack("ami-1", REPLACING))
    group = result.resource("Group")
    assert group is not None and group.impact is Impact.WILL_UPDATE
    assert [a.name for a in group.other] == ["UpdatePolicy"]
    assert all(result.resource(r) is None for r in REFERRERS)


def test_editing_the_group_itself_without_a_policy_keeps_the_schema_answer() -> None:
    # conditionally create-only in the registry schema: a textual edit of the group's
    # LaunchTemplate is MAY_REPLACE (the conformance rule); only values that another
    # resource changes follow the no-UpdatePolicy behaviour of the documentation
    old = _stack("ami-1", None, template=True)
    new = _stack("ami-1", None, template=True)
    new["Resources"]["Group"]["Properties"]["LaunchTemplate"]["Version"] = "7"
    group = diff_templates(old, new).resource("Group")
    assert group is not None and group.impact is Impact.MAY_REPLACE
    assert any("no UpdatePolicy" in n for n in group.notes)
