"""Templates written for real AWS deploy and drift-check unchanged in the sandbox."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tests.sandbox.conftest import wait_for_change_set, wait_for_detection

from cfnops.sandbox import Sandbox

# As a user would write it for AWS: the launch template reads the AMI from the SSM
# parameter *named* by a stack parameter, resolved by EC2 at launch time.
LAUNCH_TEMPLATE = {
    "AWSTemplateFormatVersion": "2010-09-09",
    "Parameters": {
        "AmiParameterName": {
            "Type": "AWS::SSM::Parameter::Name",
            "Default": "/golden/ami",
        }
    },
    "Resources": {
        "LaunchTemplate": {
            "Type": "AWS::EC2::LaunchTemplate",
            "Properties": {
                "LaunchTemplateData": {
                    "ImageId": {"Fn::Sub": "resolve:ssm:${AmiParameterName}"},
                    "InstanceType": "t3.micro",
                }
            },
        }
    },
    "Outputs": {"ParameterName": {"Value": {"Ref": "AmiParameterName"}}},
}

UNNAMED_PARAMETER = {
    "AWSTemplateFormatVersion": "2010-09-09",
    "Resources": {
        "Setting": {
            "Type": "AWS::SSM::Parameter",
            "Properties": {"Type": "String", "Value": "blue"},
        }
    },
    "Outputs": {"SettingName": {"Value": {"Ref": "Setting"}}},
}


def _outputs(cfn: Any, stack: str) -> dict[str, str]:
    described = cfn.describe_stacks(StackName=stack)["Stacks"][0]
    return {o["OutputKey"]: o["OutputValue"] for o in described.get("Outputs", [])}


def test_ssm_name_typed_parameter_is_passed_as_the_name(cfnops_sandbox: Sandbox) -> None:
    cfn, ssm, ec2 = (cfnops_sandbox.client(s) for s in ("cloudformation", "ssm", "ec2"))
    ssm.put_parameter(Name="/golden/ami", Type="String", Value="ami-760aaa0f", Overwrite=True)
    stack = f"lt-{uuid.uuid4().hex[:8]}"
    cfn.create_stack(StackName=stack, TemplateBody=json.dumps(LAUNCH_TEMPLATE))

    described = cfn.describe_stacks(StackName=stack)["Stacks"][0]
    assert described["StackStatus"] == "CREATE_COMPLETE"
    assert _outputs(cfn, stack) == {"ParameterName": "/golden/ami"}
    lt_id = cfn.describe_stack_resource(StackName=stack, LogicalResourceId="LaunchTemplate")[
        "StackResourceDetail"
    ]["PhysicalResourceId"]
    version = ec2.describe_launch_template_versions(LaunchTemplateId=lt_id)[
        "LaunchTemplateVersions"
    ][0]
    assert version["LaunchTemplateData"]["ImageId"] == "resolve:ssm:/golden/ami"
    # EC2 resolves the parameter when an instance launches from the template
    launched = ec2.run_instances(
        LaunchTemplate={"LaunchTemplateId": lt_id}, MinCount=1, MaxCount=1
    )["Instances"][0]
    assert launched["ImageId"] == "ami-760aaa0f"

    status = wait_for_detection(cfn, stack)
    assert status["StackDriftStatus"] == "IN_SYNC"
    drifts = cfn.describe_stack_resource_drifts(StackName=stack)["StackResourceDrifts"]
    assert [(d["LogicalResourceId"], d["StackResourceDriftStatus"]) for d in drifts] == [
        ("LaunchTemplate", "IN_SYNC")
    ]


def test_ssm_name_typed_parameter_must_exist(cfnops_sandbox: Sandbox) -> None:
    cfn = cfnops_sandbox.client("cloudformation")
    with pytest.raises(ClientError) as caught:
        cfn.create_stack(
            StackName=f"lt-{uuid.uuid4().hex[:8]}",
            TemplateBody=json.dumps(LAUNCH_TEMPLATE),
            Parameters=[{"ParameterKey": "AmiParameterName", "ParameterValue": "/not/there"}],
        )
    assert caught.value.response["Error"]["Code"] == "ValidationError"
    assert "/not/there" in caught.value.response["Error"]["Message"]


def test_ssm_parameter_without_name_gets_a_generated_name(cfnops_sandbox: Sandbox) -> None:
    cfn, ssm = cfnops_sandbox.client("cloudformation"), cfnops_sandbox.client("ssm")
    stack = f"unnamed-{uuid.uuid4().hex[:8]}"
    cfn.create_stack(StackName=stack, TemplateBody=json.dumps(UNNAMED_PARAMETER))

    assert cfn.describe_stacks(StackName=stack)["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"
    name = _outputs(cfn, stack)["SettingName"]
    assert re.fullmatch(rf"{stack}-Setting-[A-Za-z0-9]+", name), name
    assert ssm.get_parameter(Name=name)["Parameter"]["Value"] == "blue"
    assert wait_for_detection(cfn, stack)["StackDriftStatus"] == "IN_SYNC"

    # an update of the value keeps the generated name
    updated = json.loads(json.dumps(UNNAMED_PARAMETER))
    updated["Resources"]["Setting"]["Properties"]["Value"] = "green"
    cfn.update_stack(StackName=stack, TemplateBody=json.dumps(updated))
    assert _outputs(cfn, stack)["SettingName"] == name
    assert ssm.get_parameter(Name=name)["Parameter"]["Value"] == "green"

    ssm.put_parameter(Name=name, Value="red", Type="String", Overwrite=True)
    status = wait_for_detection(cfn, stack)
    assert status["StackDriftStatus"] == "DRIFTED"


SUBSCRIBED_TOPIC = {
    "Resources": {
        "Topic": {"Type": "AWS::SNS::Topic", "Properties": {"DisplayName": "alerts"}},
        "Queue": {"Type": "AWS::SQS::Queue"},
        "QueueSubscription": {
            "Type": "AWS::SNS::Subscription",
            "Properties": {
                "TopicArn": {"Ref": "Topic"},
                "Protocol": "sqs",
                "Endpoint": {"Fn::GetAtt": ["Queue", "Arn"]},
                "RawMessageDelivery": True,
            },
        },
    }
}


def test_sns_subscription_is_a_stack_resource_with_its_logical_id(
    cfnops_sandbox: Sandbox,
) -> None:
    cfn, sns = cfnops_sandbox.client("cloudformation"), cfnops_sandbox.client("sns")
    stack = f"subs-{uuid.uuid4().hex[:8]}"
    cfn.create_stack(StackName=stack, TemplateBody=json.dumps(SUBSCRIBED_TOPIC))

    listed = cfn.list_stack_resources(StackName=stack)["StackResourceSummaries"]
    by_id = {r["LogicalResourceId"]: r for r in listed}
    assert sorted(by_id) == ["Queue", "QueueSubscription", "Topic"]
    arn = by_id["QueueSubscription"]["PhysicalResourceId"]
    assert by_id["QueueSubscription"]["ResourceType"] == "AWS::SNS::Subscription"
    attributes = sns.get_subscription_attributes(SubscriptionArn=arn)["Attributes"]
    assert attributes["RawMessageDelivery"] == "true"
    assert attributes["TopicArn"] == by_id["Topic"]["PhysicalResourceId"]

    cfn.delete_stack(StackName=stack)
    assert arn not in {s["SubscriptionArn"] for s in sns.list_subscriptions()["Subscriptions"]}


def _resource_changes(cfn: Any, stack: str, template: dict[str, Any]) -> dict[str, Any]:
    created = cfn.create_change_set(
        StackName=stack, ChangeSetName=f"c{uuid.uuid4().hex[:6]}", TemplateBody=json.dumps(template)
    )
    described = wait_for_change_set(cfn, created["Id"])
    return {
        "status": described["Status"],
        "reason": described.get("StatusReason"),
        "changes": {
            c["ResourceChange"]["LogicalResourceId"]: c["ResourceChange"]
            for c in described["Changes"]
        },
    }


def test_change_set_ignores_a_ref_replaced_by_the_identical_literal(
    cfnops_sandbox: Sandbox,
) -> None:
    cfn = cfnops_sandbox.client("cloudformation")
    stack = f"lit-{uuid.uuid4().hex[:8]}"
    template = {
        "Parameters": {"Tier": {"Type": "String", "Default": "Standard"}},
        "Resources": {
            "P": {
                "Type": "AWS::SSM::Parameter",
                "Properties": {
                    "Name": f"/{stack}/p",
                    "Type": "String",
                    "Value": "v",
                    "Tier": {"Ref": "Tier"},
                },
            }
        },
    }
    cfn.create_stack(StackName=stack, TemplateBody=json.dumps(template))
    literal = json.loads(json.dumps(template))
    literal["Resources"]["P"]["Properties"]["Tier"] = "Standard"
    literal["Resources"]["P"]["Properties"]["Name"] = {"Fn::Sub": "/${AWS::StackName}/p"}
    answer = _resource_changes(cfn, stack, literal)
    assert answer["changes"] == {}
    assert answer["status"] == "FAILED"
    assert "didn't contain changes" in str(answer["reason"])


def test_change_set_reports_replacements_caused_through_ref(cfnops_sandbox: Sandbox) -> None:
    from cfnops.diff import Impact, diff_templates

    cfn = cfnops_sandbox.client("cloudformation")
    stack = f"ref-{uuid.uuid4().hex[:8]}"
    old = json.loads(json.dumps(SUBSCRIBED_TOPIC))
    old["Resources"]["Topic"]["Properties"]["TopicName"] = f"{stack}-a"
    cfn.create_stack(StackName=stack, TemplateBody=json.dumps(old))
    new = json.loads(json.dumps(old))
    new["Resources"]["Topic"]["Properties"]["TopicName"] = f"{stack}-b"  # create-only
    changes = _resource_changes(cfn, stack, new)["changes"]

    assert sorted(changes) == ["QueueSubscription", "Topic"]
    assert changes["Topic"]["Replacement"] == "True"
    sub = changes["QueueSubscription"]
    assert (sub["Action"], sub["Replacement"]) == ("Modify", "True")
    (detail,) = sub["Details"]
    assert detail["Target"] == {
        "Attribute": "Properties",
        "Name": "TopicArn",
        "RequiresRecreation": "Always",
    }
    assert (detail["Evaluation"], detail["ChangeSource"], detail["CausingEntity"]) == (
        "Dynamic",
        "ResourceReference",
        "Topic",
    )
    # the same answer as cfnops diff's offline analysis of the two templates
    offline = diff_templates(old, new)
    assert offline.resource("QueueSubscription").impact is Impact.WILL_REPLACE
    assert offline.resource("Topic").impact is Impact.WILL_REPLACE
    assert offline.resource("Queue") is None and "Queue" not in changes


def test_change_set_leaves_an_unchanged_subscription_alone(cfnops_sandbox: Sandbox) -> None:
    cfn = cfnops_sandbox.client("cloudformation")
    stack = f"subs-{uuid.uuid4().hex[:8]}"
    cfn.create_stack(StackName=stack, TemplateBody=json.dumps(SUBSCRIBED_TOPIC))
    changed = json.loads(json.dumps(SUBSCRIBED_TOPIC))
    changed["Resources"]["Topic"]["Properties"]["DisplayName"] = "alarms"
    changes = _resource_changes(cfn, stack, changed)["changes"]
    assert {lid: c["Action"] for lid, c in changes.items()} == {"Topic": "Modify"}
    assert changes["Topic"]["Replacement"] == "False"


def test_ssm_dynamic_reference_in_a_launch_template(cfnops_sandbox: Sandbox) -> None:
    cfn, ssm, ec2 = (cfnops_sandbox.client(s) for s in ("cloudformation", "ssm", "ec2"))
    ssm.put_parameter(Name="/golden/dyn", Type="String", Value="ami-760aaa0f", Overwrite=True)
    template = json.loads(json.dumps(LAUNCH_TEMPLATE))
    template["Parameters"]["AmiParameterName"]["Default"] = "/golden/dyn"
    data = template["Resources"]["LaunchTemplate"]["Properties"]["LaunchTemplateData"]
    data["ImageId"] = {"Fn::Sub": "{{resolve:ssm:${AmiParameterName}}}"}
    stack = f"dyn-{uuid.uuid4().hex[:8]}"
    cfn.create_stack(StackName=stack, TemplateBody=json.dumps(template))

    assert cfn.describe_stacks(StackName=stack)["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"
    lt_id = cfn.describe_stack_resource(StackName=stack, LogicalResourceId="LaunchTemplate")[
        "StackResourceDetail"
    ]["PhysicalResourceId"]
    versions = ec2.describe_launch_template_versions(LaunchTemplateId=lt_id)[
        "LaunchTemplateVersions"
    ]
    assert {v["LaunchTemplateData"]["ImageId"] for v in versions} == {"ami-760aaa0f"}
    # drift detection does not check properties with dynamic references (as in AWS)
    assert wait_for_detection(cfn, stack)["StackDriftStatus"] == "IN_SYNC"

    with pytest.raises(ClientError, match="/not/there"):
        data["ImageId"] = "{{resolve:ssm:/not/there}}"
        cfn.create_stack(StackName=f"{stack}-x", TemplateBody=json.dumps(template))


def test_cfnops_diff_change_set_keeps_the_existing_subscription(
    cfnops_sandbox: Sandbox,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from cfnops.cli.main import run

    for key, value in cfnops_sandbox.environment().items():
        monkeypatch.setenv(key, value)
    cfn = cfnops_sandbox.client("cloudformation")
    stack = f"diffsub-{uuid.uuid4().hex[:8]}"
    cfn.create_stack(StackName=stack, TemplateBody=json.dumps(SUBSCRIBED_TOPIC))
    changed = json.loads(json.dumps(SUBSCRIBED_TOPIC))
    changed["Resources"]["Topic"]["Properties"]["DisplayName"] = "alarms"
    path = tmp_path / "new.json"
    path.write_text(json.dumps(changed))

    argv = ["diff", "--stack", stack, str(path), "--change-set", "-o", "json"]
    assert run(["--endpoint-url", cfnops_sandbox.endpoint_url, *argv]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {lid: r["impact"] for lid, r in doc["resources"].items()} == {"Topic": "WILL_UPDATE"}


def test_validate_template_without_cfn_lint_checks_syntax(
    cfnops_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sandbox extra leaves cfn-lint out: ValidateTemplate answers as CloudFormation does."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "cfnlint" else real(name, *a)
    )
    cfn = cfnops_sandbox.client("cloudformation")
    body = "Description: the app\nResources: {B: {Type: 'AWS::S3::Bucket'}}\n"
    assert cfn.validate_template(TemplateBody=body)["Description"] == "the app"
    with pytest.raises(ClientError) as failed:
        cfn.validate_template(TemplateBody="Resources: [unclosed")
    assert failed.value.response["Error"]["Code"] == "ValidationError"
