"""Change sets in the sandbox: ordinary details, transitions, idempotency, OBSOLETE, moto gaps."""

from __future__ import annotations

import datetime as dt
import json
import time
import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tests.sandbox.conftest import wait_for_change_set, wait_for_stack

from cfnops.sandbox import Sandbox
from cfnops.sandbox.extensions._cfn_changes import NewResource, _revert_details
from cfnops.sandbox.extensions._cfn_deploy import ExpectedResource
from cfnops.sandbox.shapecheck import RawShapeChecker, assert_matches_output_shape


def _name() -> str:
    return f"cs-{uuid.uuid4().hex[:8]}"


def _ssm_template(name: str, value: str = "v1", param_name: str | None = None) -> dict[str, Any]:
    return {
        "Parameters": {"Tier": {"Type": "String", "Default": "Standard"}},
        "Resources": {
            "P": {
                "Type": "AWS::SSM::Parameter",
                "Properties": {
                    "Name": param_name or f"/{name}/p",
                    "Type": "String",
                    "Value": value,
                    "Tier": {"Ref": "Tier"},
                },
            },
            "Keep": {"Type": "AWS::SNS::Topic", "Properties": {"TopicName": f"{name}-keep"}},
        },
    }


def _changes(described: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        c["ResourceChange"]["LogicalResourceId"]: c["ResourceChange"] for c in described["Changes"]
    }


def test_ordinary_change_set_details_and_execution(cfnops_sandbox: Sandbox) -> None:
    cfn = cfnops_sandbox.client("cloudformation")
    name = _name()
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(_ssm_template(name)))
    new = _ssm_template(name, value="v2")
    new["Resources"]["Added"] = {
        "Type": "AWS::SQS::Queue",
        "Properties": {"QueueName": f"{name}-q"},
    }
    del new["Resources"]["Keep"]
    with RawShapeChecker(cfn) as raw:
        # No ChangeSetType: AWS defaults to UPDATE (moto crashed).
        created = cfn.create_change_set(
            StackName=name, ChangeSetName="edit", TemplateBody=json.dumps(new)
        )
        described = wait_for_change_set(cfn, created["Id"])
        assert_matches_output_shape(cfn, "DescribeChangeSet", described)
        listed = cfn.list_change_sets(StackName=name)
        assert_matches_output_shape(cfn, "ListChangeSets", listed)
    raw.assert_clean()
    assert [s["ChangeSetName"] for s in listed["Summaries"]] == ["edit"]
    changes = _changes(described)
    assert changes["P"]["Action"] == "Modify"
    assert changes["P"]["Replacement"] == "False"
    assert changes["P"]["PhysicalResourceId"] == f"/{name}/p"
    assert changes["P"]["Scope"] == ["Properties"]
    (detail,) = changes["P"]["Details"]
    assert detail["Target"] == {
        "Attribute": "Properties",
        "Name": "Value",
        "RequiresRecreation": "Never",
    }
    assert (detail["Evaluation"], detail["ChangeSource"]) == ("Static", "DirectModification")
    assert changes["Added"]["Action"] == "Add"
    assert (changes["Keep"]["Action"], changes["Keep"]["PolicyAction"]) == ("Remove", "Delete")
    assert "BeforeContext" not in changes["P"]

    cfn.execute_change_set(ChangeSetName="edit", StackName=name)
    assert wait_for_stack(cfn, name) == "UPDATE_COMPLETE"
    assert (
        cfnops_sandbox.client("ssm").get_parameter(Name=f"/{name}/p")["Parameter"]["Value"] == "v2"
    )
    events = cfn.describe_stack_events(StackName=name)["StackEvents"]
    assert ("P", "UPDATE_COMPLETE") in {
        (e["LogicalResourceId"], e["ResourceStatus"]) for e in events
    }


def test_replacement_from_create_only_properties(cfnops_sandbox: Sandbox) -> None:
    cfn = cfnops_sandbox.client("cloudformation")
    name = _name()
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(_ssm_template(name)))
    renamed = _ssm_template(name, param_name=f"/{name}/renamed")
    created = cfn.create_change_set(
        StackName=name, ChangeSetName="rename", TemplateBody=json.dumps(renamed)
    )
    described = cfn.describe_change_set(ChangeSetName=created["Id"], IncludePropertyValues=True)
    change = _changes(described)["P"]
    assert change["Replacement"] == "True"
    assert change["Details"][0]["Target"]["RequiresRecreation"] == "Always"
    assert json.loads(change["AfterContext"])["Properties"]["Name"] == f"/{name}/renamed"


def test_parameter_reference_and_use_previous_value_for_defaults(cfnops_sandbox: Sandbox) -> None:
    cfn = cfnops_sandbox.client("cloudformation")
    name = _name()
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(_ssm_template(name)))
    created = cfn.create_change_set(
        StackName=name,
        ChangeSetName="tier",
        UsePreviousTemplate=True,
        Parameters=[{"ParameterKey": "Tier", "ParameterValue": "Advanced"}],
    )
    (detail,) = _changes(cfn.describe_change_set(ChangeSetName=created["Id"]))["P"]["Details"]
    assert (detail["ChangeSource"], detail["CausingEntity"]) == ("ParameterReference", "Tier")
    # moto raised KeyError for UsePreviousValue on a parameter that took its Default.
    template = _ssm_template(name, value="v3")
    cfn.update_stack(
        StackName=name,
        TemplateBody=json.dumps(template),
        Parameters=[{"ParameterKey": "Tier", "UsePreviousValue": True}],
    )
    assert wait_for_stack(cfn, name) == "UPDATE_COMPLETE"
    params = cfn.describe_stacks(StackName=name)["Stacks"][0]["Parameters"]
    assert params == [{"ParameterKey": "Tier", "ParameterValue": "Standard"}]


def test_status_transitions_follow_the_delays(cfnops_sandbox: Sandbox) -> None:
    cfn = cfnops_sandbox.client("cloudformation")
    name = _name()
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(_ssm_template(name)))
    cfnops_sandbox.state.set_delays(change_set_create=0.6, change_set_execute=0.3)
    created = cfn.create_change_set(
        StackName=name, ChangeSetName="slow", TemplateBody=json.dumps(_ssm_template(name, "v9"))
    )
    seen = [cfn.describe_change_set(ChangeSetName=created["Id"])["Status"]]
    while seen[-1] not in ("CREATE_COMPLETE", "FAILED"):
        time.sleep(0.1)
        seen.append(cfn.describe_change_set(ChangeSetName=created["Id"])["Status"])
    assert seen[0] == "CREATE_PENDING"
    assert "CREATE_IN_PROGRESS" in seen
    assert seen[-1] == "CREATE_COMPLETE"
    cfn.execute_change_set(ChangeSetName=created["Id"], ClientRequestToken="t-1")
    assert cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"] == "UPDATE_IN_PROGRESS"
    assert (
        cfn.describe_change_set(ChangeSetName=created["Id"])["ExecutionStatus"]
        == "EXECUTE_IN_PROGRESS"
    )
    with pytest.raises(ClientError, match="UPDATE_IN_PROGRESS state and can not be updated"):
        cfn.update_stack(StackName=name, TemplateBody=json.dumps(_ssm_template(name, "v10")))
    # The same token again is an idempotent retry; a new token is refused while running.
    cfn.execute_change_set(ChangeSetName=created["Id"], ClientRequestToken="t-1")
    with pytest.raises(ClientError) as err:
        cfn.execute_change_set(ChangeSetName=created["Id"], ClientRequestToken="t-2")
    assert err.value.response["Error"]["Code"] == "InvalidChangeSetStatus"
    assert wait_for_stack(cfn, name) == "UPDATE_COMPLETE"
    assert (
        cfn.describe_change_set(ChangeSetName=created["Id"])["ExecutionStatus"]
        == "EXECUTE_COMPLETE"
    )
    tokens = {
        e.get("ClientRequestToken")
        for e in cfn.describe_stack_events(StackName=name)["StackEvents"]
        if e["ResourceStatus"].startswith("UPDATE")
    }
    assert "t-1" in tokens


def test_change_sets_become_obsolete(cfnops_sandbox: Sandbox) -> None:
    cfn = cfnops_sandbox.client("cloudformation")
    name = _name()
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(_ssm_template(name)))
    first = cfn.create_change_set(
        StackName=name, ChangeSetName="a", TemplateBody=json.dumps(_ssm_template(name, "a"))
    )
    second = cfn.create_change_set(
        StackName=name, ChangeSetName="b", TemplateBody=json.dumps(_ssm_template(name, "b"))
    )
    wait_for_change_set(cfn, second["Id"])
    cfn.execute_change_set(ChangeSetName=first["Id"])
    wait_for_stack(cfn, name)
    assert cfn.describe_change_set(ChangeSetName=second["Id"])["ExecutionStatus"] == "OBSOLETE"
    with pytest.raises(ClientError) as err:
        cfn.execute_change_set(ChangeSetName=second["Id"])
    assert err.value.response["Error"]["Code"] == "InvalidChangeSetStatus"
    third = cfn.create_change_set(
        StackName=name, ChangeSetName="c", TemplateBody=json.dumps(_ssm_template(name, "c"))
    )
    wait_for_change_set(cfn, third["Id"])
    cfn.update_stack(StackName=name, TemplateBody=json.dumps(_ssm_template(name, "d")))
    wait_for_stack(cfn, name)
    assert cfn.describe_change_set(ChangeSetName=third["Id"])["ExecutionStatus"] == "OBSOLETE"
    cfn.delete_change_set(ChangeSetName=third["Id"])
    assert "c" not in [
        s["ChangeSetName"] for s in cfn.list_change_sets(StackName=name)["Summaries"]
    ]


_LT_TEMPLATE = """
Parameters:
  InstanceType: {Type: String, Default: t3.micro}
Resources:
  Vpc: {Type: AWS::EC2::VPC, Properties: {CidrBlock: 10.1.0.0/16}}
  Subnet:
    Type: AWS::EC2::Subnet
    Properties: {VpcId: !Ref Vpc, CidrBlock: 10.1.1.0/24, AvailabilityZone: us-east-1a}
  Lt:
    Type: AWS::EC2::LaunchTemplate
    Properties:
      LaunchTemplateData: {ImageId: ami-12c6146b, InstanceType: !Ref InstanceType}
  Asg:
    Type: AWS::AutoScaling::AutoScalingGroup
    Properties:
      MinSize: "1"
      MaxSize: "2"
      VPCZoneIdentifier: [!Ref Subnet]
      LaunchTemplate: {LaunchTemplateId: !Ref Lt, Version: !GetAtt Lt.LatestVersionNumber}
"""


def test_getatt_driven_updates_propagate(cfnops_sandbox: Sandbox) -> None:
    cfn = cfnops_sandbox.client("cloudformation")
    name = _name()
    cfn.create_stack(StackName=name, TemplateBody=_LT_TEMPLATE)
    params = [{"ParameterKey": "InstanceType", "ParameterValue": "t3.large"}]
    created = cfn.create_change_set(
        StackName=name, ChangeSetName="bump", UsePreviousTemplate=True, Parameters=params
    )
    changes = _changes(wait_for_change_set(cfn, created["Id"]))
    assert set(changes) == {"Lt", "Asg"}
    (asg_detail,) = changes["Asg"]["Details"]
    assert (asg_detail["Evaluation"], asg_detail["ChangeSource"]) == (
        "Dynamic",
        "ResourceAttribute",
    )
    assert asg_detail["CausingEntity"] == "Lt.LatestVersionNumber"
    cfn.delete_change_set(ChangeSetName=created["Id"])

    cfn.update_stack(StackName=name, UsePreviousTemplate=True, Parameters=params)
    assert wait_for_stack(cfn, name) == "UPDATE_COMPLETE"
    group = cfn.describe_stack_resource(StackName=name, LogicalResourceId="Asg")
    group_name = group["StackResourceDetail"]["PhysicalResourceId"]
    found = cfnops_sandbox.client("autoscaling").describe_auto_scaling_groups(
        AutoScalingGroupNames=[group_name]
    )["AutoScalingGroups"][0]
    assert found["LaunchTemplate"]["Version"] == "2"


def test_drift_in_create_only_properties_is_not_reconciled() -> None:
    old = ExpectedResource(
        logical_id="Q",
        resource_type="AWS::SQS::Queue",
        physical_id="https://q/x",
        properties={"QueueName": "x", "FifoQueue": False, "DelaySeconds": 5},
        template={"Type": "AWS::SQS::Queue"},
    )
    new = NewResource(
        "Q", "AWS::SQS::Queue", {"Type": "AWS::SQS::Queue"}, dict(old.properties or {})
    )
    actual = {"QueueName": "x", "FifoQueue": True, "DelaySeconds": 9}
    details = _revert_details(old, new, actual, dt.datetime.now(dt.UTC))
    assert [d["Target"]["Name"] for d in details] == ["DelaySeconds"]
    assert details[0]["Target"]["Drift"] == {
        "PreviousValue": "5",
        "ActualValue": "9",
        "DriftDetectionTimestamp": details[0]["Target"]["Drift"]["DriftDetectionTimestamp"],
    }


def test_revert_drift_with_a_new_template_body(cfnops_sandbox: Sandbox) -> None:
    from tests.sandbox.conftest import wait_for_detection

    cfn, ssm = cfnops_sandbox.client("cloudformation"), cfnops_sandbox.client("ssm")
    name = _name()
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(_ssm_template(name, "v1")))
    ssm.put_parameter(Name=f"/{name}/p", Value="oob", Overwrite=True)
    created = cfn.create_change_set(
        StackName=name,
        ChangeSetName="revert-and-change",
        TemplateBody=json.dumps(_ssm_template(name, "v2")),
        DeploymentMode="REVERT_DRIFT",
    )
    described = wait_for_change_set(cfn, created["Id"])
    assert_matches_output_shape(cfn, "DescribeChangeSet", described)
    change = _changes(described)["P"]
    assert change["ResourceDriftStatus"] == "MODIFIED"
    target = change["Details"][0]["Target"]
    assert (target["BeforeValue"], target["AfterValue"]) == ("oob", "v2")
    assert (target["Drift"]["PreviousValue"], target["Drift"]["ActualValue"]) == ("v1", "oob")
    assert "Keep" not in _changes(described)  # in sync and unchanged
    cfn.execute_change_set(ChangeSetName=created["Id"])
    assert wait_for_stack(cfn, name) == "UPDATE_COMPLETE"
    assert ssm.get_parameter(Name=f"/{name}/p")["Parameter"]["Value"] == "v2"
    assert wait_for_detection(cfn, name)["StackDriftStatus"] == "IN_SYNC"
