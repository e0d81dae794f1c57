"""UpdatePolicy / UpdateReplacePolicy decide outcomes the property schema cannot."""

from __future__ import annotations

from typing import Any

import pytest

from cfnops.diff import Impact, diff_templates


def _asg(policy: dict[str, Any] | None, version: str) -> dict[str, Any]:
    group: dict[str, Any] = {
        "Type": "AWS::AutoScaling::AutoScalingGroup",
        "Properties": {
            "MinSize": "1",
            "MaxSize": "4",
            "LaunchTemplate": {"LaunchTemplateId": "lt-0aa", "Version": version},
        },
    }
    if policy is not None:
        group["UpdatePolicy"] = policy
    return {
        "Resources": {
            "Web": group,
            "ScaleOut": {
                "Type": "AWS::AutoScaling::ScalingPolicy",
                "Properties": {
                    "AutoScalingGroupName": {"Ref": "Web"},
                    "PolicyType": "SimpleScaling",
                },
            },
        }
    }


@pytest.mark.parametrize(
    ("policy", "group", "scaling"),
    [
        pytest.param(
            {"AutoScalingReplacingUpdate": {"WillReplace": True}},
            Impact.WILL_REPLACE,
            Impact.WILL_REPLACE,
            id="will-replace",
        ),
        pytest.param(
            {
                "AutoScalingReplacingUpdate": {"WillReplace": "true"},
                "AutoScalingRollingUpdate": {"MaxBatchSize": 2},
            },
            Impact.WILL_REPLACE,
            Impact.WILL_REPLACE,
            id="will-replace-wins-over-rolling",
        ),
        pytest.param(
            {"AutoScalingRollingUpdate": {"MaxBatchSize": 2}},
            Impact.WILL_UPDATE,
            None,
            id="rolling",
        ),
        pytest.param(
            {"AutoScalingReplacingUpdate": {"WillReplace": False}},
            Impact.WILL_UPDATE,
            None,
            id="will-replace-false",
        ),
    ],
)
def test_asg_update_policy_decides(
    policy: dict[str, Any], group: Impact, scaling: Impact | None
) -> None:
    result = diff_templates(_asg(policy, "1"), _asg(policy, "2"))
    web = result.resource("Web")
    assert web is not None and web.impact is group
    prop = web.property("LaunchTemplate")
    assert prop is not None and prop.decided_by == "UpdatePolicy"
    assert "UpdatePolicy" in prop.reason
    found = result.resource("ScaleOut")
    assert (found.impact if found else None) is scaling


def test_asg_without_policy_keeps_the_schema_answer() -> None:
    result = diff_templates(_asg(None, "1"), _asg(None, "2"))
    web = result.resource("Web")
    assert web is not None and web.impact is Impact.MAY_REPLACE
    prop = web.property("LaunchTemplate")
    assert prop is not None and prop.decided_by == "registry schema"
    assert any(n.startswith("no UpdatePolicy") for n in web.notes)
    rolling = {"AutoScalingRollingUpdate": {"MaxBatchSize": 1}}
    with_policy = diff_templates(_asg(rolling, "1"), _asg(rolling, "2")).resource("Web")
    assert with_policy is not None and with_policy.notes == ()


def test_asg_policy_ignores_properties_it_does_not_govern() -> None:
    policy = {"AutoScalingReplacingUpdate": {"WillReplace": True}}
    old, new = _asg(policy, "1"), _asg(policy, "1")
    new["Resources"]["Web"]["Properties"]["MaxSize"] = "8"
    web = diff_templates(old, new).resource("Web")
    assert web is not None and web.impact is Impact.WILL_UPDATE


def _launch_config(policy: dict[str, Any], image: str) -> dict[str, Any]:
    return {
        "Resources": {
            "Config": {
                "Type": "AWS::AutoScaling::LaunchConfiguration",
                "Properties": {"ImageId": image, "InstanceType": "t3.micro"},
            },
            "Web": {
                "Type": "AWS::AutoScaling::AutoScalingGroup",
                "UpdatePolicy": policy,
                "Properties": {
                    "MinSize": "1",
                    "MaxSize": "2",
                    "LaunchConfigurationName": {"Ref": "Config"},
                },
            },
        }
    }


def test_replaced_launch_configuration_reaches_group_through_its_policy() -> None:
    rolling = {"AutoScalingRollingUpdate": {"MinInstancesInService": 1}}
    web = diff_templates(
        _launch_config(rolling, "ami-1"), _launch_config(rolling, "ami-2")
    ).resource("Web")
    assert web is not None and web.impact is Impact.WILL_UPDATE
    prop = web.property("LaunchConfigurationName")
    assert prop is not None and prop.propagated_from == "Config"
    assert "refers to Config, which is replaced" in prop.reason
    assert "replaces the instances, not the group" in prop.reason
    replacing = {"AutoScalingReplacingUpdate": {"WillReplace": True}}
    web = diff_templates(
        _launch_config(replacing, "ami-1"), _launch_config(replacing, "ami-2")
    ).resource("Web")
    assert web is not None and web.impact is Impact.WILL_REPLACE


def _cache(policy: dict[str, Any] | None, groups: int) -> dict[str, Any]:
    res: dict[str, Any] = {
        "Type": "AWS::ElastiCache::ReplicationGroup",
        "Properties": {"ReplicationGroupDescription": "c", "NumNodeGroups": groups},
    }
    if policy is not None:
        res["UpdatePolicy"] = policy
    return {"Resources": {"Cache": res}}


@pytest.mark.parametrize(
    ("policy", "impact"),
    [
        pytest.param({"UseOnlineResharding": True}, Impact.WILL_UPDATE, id="online"),
        pytest.param({"UseOnlineResharding": False}, Impact.WILL_REPLACE, id="off"),
        pytest.param(None, Impact.WILL_REPLACE, id="absent"),
    ],
)
def test_elasticache_resharding(policy: dict[str, Any] | None, impact: Impact) -> None:
    res = diff_templates(_cache(policy, 2), _cache(policy, 3)).resource("Cache")
    assert res is not None and res.impact is impact


@pytest.mark.parametrize(
    ("enabled", "impact"), [(True, Impact.WILL_UPDATE), (False, Impact.WILL_REPLACE)]
)
def test_opensearch_version_upgrade(enabled: bool, impact: Impact) -> None:
    def tpl(version: str) -> dict[str, Any]:
        return {
            "Resources": {
                "Search": {
                    "Type": "AWS::OpenSearchService::Domain",
                    "UpdatePolicy": {"EnableVersionUpgrade": enabled},
                    "Properties": {"EngineVersion": version},
                }
            }
        }

    res = diff_templates(tpl("OpenSearch_2.11"), tpl("OpenSearch_2.13")).resource("Search")
    assert res is not None and res.impact is impact


def test_codedeploy_alias_is_updated_in_place_with_reason() -> None:
    def tpl(code: str) -> dict[str, Any]:
        return {
            "Resources": {
                "Version": {
                    "Type": "AWS::Lambda::Version",
                    "UpdateReplacePolicy": "Retain",
                    "Properties": {"FunctionName": "fn", "Description": code},
                },
                "Live": {
                    "Type": "AWS::Lambda::Alias",
                    "UpdatePolicy": {
                        "CodeDeployLambdaAliasUpdate": {
                            "ApplicationName": "app",
                            "DeploymentGroupName": "dg",
                        }
                    },
                    "Properties": {
                        "FunctionName": "fn",
                        "Name": "live",
                        "FunctionVersion": {"Fn::GetAtt": ["Version", "Version"]},
                    },
                },
            }
        }

    result = diff_templates(tpl("v1"), tpl("v2"))
    version = result.resource("Version")
    assert version is not None and version.impact is Impact.WILL_REPLACE
    assert any("Retain" in n for n in version.notes)
    live = result.resource("Live")
    assert live is not None and live.impact is Impact.WILL_UPDATE
    prop = live.property("FunctionVersion")
    assert prop is not None and "CodeDeploy" in prop.reason


def _launch_template(policy: dict[str, Any], instance_type: str) -> dict[str, Any]:
    return {
        "Resources": {
            "Template": {
                "Type": "AWS::EC2::LaunchTemplate",
                "Properties": {"LaunchTemplateData": {"InstanceType": instance_type}},
            },
            "Web": {
                "Type": "AWS::AutoScaling::AutoScalingGroup",
                "UpdatePolicy": policy,
                "Properties": {
                    "MinSize": "1",
                    "MaxSize": "2",
                    "LaunchTemplate": {
                        "LaunchTemplateId": {"Ref": "Template"},
                        "Version": {"Fn::GetAtt": ["Template", "LatestVersionNumber"]},
                    },
                },
            },
            "Tag": {
                "Type": "AWS::SSM::Parameter",
                "Properties": {
                    "Type": "String",
                    "Value": {"Fn::Sub": "${Template.DefaultVersionNumber}"},
                },
            },
        }
    }


def test_new_launch_template_version_reaches_the_group_through_its_policy() -> None:
    replacing = {"AutoScalingReplacingUpdate": {"WillReplace": True}}
    result = diff_templates(
        _launch_template(replacing, "t3.small"), _launch_template(replacing, "t3.large")
    )
    template, web, tag = (result.resource(n) for n in ("Template", "Web", "Tag"))
    assert template is not None and template.impact is Impact.WILL_UPDATE
    assert web is not None and web.impact is Impact.WILL_REPLACE
    assert "LatestVersionNumber" in web.reason and "WillReplace" in web.reason
    assert tag is not None and tag.impact is Impact.WILL_UPDATE  # a mutable referrer
    rolling = {"AutoScalingRollingUpdate": {"MaxBatchSize": 1}}
    web = diff_templates(
        _launch_template(rolling, "t3.small"), _launch_template(rolling, "t3.large")
    ).resource("Web")
    assert web is not None and web.impact is Impact.WILL_UPDATE


def test_unchanged_launch_template_data_moves_no_version() -> None:
    rolling = {"AutoScalingRollingUpdate": {"MaxBatchSize": 1}}
    old, new = _launch_template(rolling, "t3.small"), _launch_template(rolling, "t3.small")
    new["Resources"]["Template"]["Properties"]["TagSpecifications"] = []
    result = diff_templates(old, new)
    assert result.resource("Web") is None and result.resource("Tag") is None


def _classic_lb(health: dict[str, Any] | None) -> dict[str, Any]:
    props: dict[str, Any] = {"Listeners": [{"LoadBalancerPort": "80", "InstancePort": "80"}]}
    if health is not None:
        props["HealthCheck"] = health
    return {
        "Resources": {
            "Lb": {"Type": "AWS::ElasticLoadBalancing::LoadBalancer", "Properties": props}
        }
    }


def test_classic_health_check_replaces_only_when_added() -> None:
    check = {
        "Target": "HTTP:80/",
        "Interval": "30",
        "Timeout": "5",
        "HealthyThreshold": "3",
        "UnhealthyThreshold": "5",
    }
    changed = dict(check, Interval="20")
    kept = diff_templates(_classic_lb(check), _classic_lb(changed)).resource("Lb")
    assert kept is not None and kept.impact is Impact.WILL_UPDATE
    prop = kept.property("HealthCheck")
    assert prop is not None and prop.decided_by == "documented condition"
    added = diff_templates(_classic_lb(None), _classic_lb(check)).resource("Lb")
    assert added is not None and added.impact is Impact.MAY_REPLACE


@pytest.mark.parametrize(
    ("policy", "impact"),
    [
        pytest.param(None, Impact.WILL_UPDATE, id="no-policy"),
        pytest.param({"AutoScalingScheduledAction": {}}, Impact.WILL_UPDATE, id="other-policy"),
        pytest.param({"AutoScalingRollingUpdate": {}}, Impact.WILL_UPDATE, id="rolling"),
        pytest.param(
            {"AutoScalingReplacingUpdate": {"WillReplace": True}},
            Impact.WILL_REPLACE,
            id="will-replace",
        ),
        pytest.param(
            {"AutoScalingReplacingUpdate": {"WillReplace": {"Fn::If": ["Blue", True, False]}}},
            Impact.MAY_REPLACE,
            id="will-replace-by-condition",
        ),
    ],
)
def test_asg_subnets_update_in_place_unless_a_replacing_update_says_so(
    policy: dict[str, Any] | None, impact: Impact
) -> None:
    # the group's reference: VPCZoneIdentifier "Update requires: Some interruptions";
    # the registry schema's conditionally create-only is not what AWS does
    old, new = _asg(policy, "1"), _asg(policy, "1")
    old["Resources"]["Web"]["Properties"]["VPCZoneIdentifier"] = ["subnet-1"]
    new["Resources"]["Web"]["Properties"]["VPCZoneIdentifier"] = ["subnet-1", "subnet-2"]
    result = diff_templates(old, new)
    web = result.resource("Web")
    assert web is not None and web.impact is impact
    if impact is Impact.WILL_UPDATE and policy is None:
        prop = web.property("VPCZoneIdentifier")
        assert prop is not None and prop.decided_by == "documented update behaviour"
        assert result.resource("ScaleOut") is None


def _fleet(overrides: Any, parameters: dict[str, Any] | None = None) -> dict[str, Any]:
    config = {
        "IamFleetRole": "arn:aws:iam::123456789012:role/fleet",
        "TargetCapacity": 2,
        "LaunchTemplateConfigs": [
            {
                "LaunchTemplateSpecification": {"LaunchTemplateId": "lt-1", "Version": "1"},
                "Overrides": overrides,
            }
        ],
    }
    return {
        "Parameters": {"Arch": {"Type": "String", "Default": "x86"}},
        "Conditions": {"Arm": {"Fn::Equals": [{"Ref": "Arch"}, "arm"]}},
        "Resources": {
            "Fleet": {
                "Type": "AWS::EC2::SpotFleet",
                "Properties": {"SpotFleetRequestConfigData": config},
            }
        },
    }


def test_spot_fleet_launch_template_overrides_follow_the_documentation() -> None:
    # aws-resource-ec2-spotfleet.html, LaunchTemplateConfigs: "Update requires: Replacement";
    # the registry schema leaves the path out of createOnlyProperties
    old = _fleet([{"InstanceType": "m5.large"}])
    res = diff_templates(old, _fleet([{"InstanceType": "m6g.large"}])).resource("Fleet")
    assert res is not None and res.impact is Impact.WILL_REPLACE
    prop = res.property("SpotFleetRequestConfigData")
    assert prop is not None and prop.decided_by == "resource specification"
    # the old value back under the parameter's default: the deploy decides
    chosen = {"Fn::If": ["Arm", [{"InstanceType": "m6g.large"}], [{"InstanceType": "m5.large"}]]}
    res = diff_templates(old, _fleet(chosen)).resource("Fleet")
    assert res is not None and res.impact is Impact.MAY_REPLACE
    prop = res.property("SpotFleetRequestConfigData")
    assert prop is not None and "equal for condition Arm false" in prop.reason
