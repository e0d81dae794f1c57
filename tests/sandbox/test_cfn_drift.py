"""Stack drift detection in the sandbox, per resource type, over HTTP."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tests.sandbox.conftest import wait_for_detection

from cfnops.sandbox import Sandbox
from cfnops.sandbox.shapecheck import RawShapeChecker, assert_matches_output_shape

_TYPES_TEMPLATE = """
Parameters:
  Env: {Type: String, Default: prod}
  Big: {Type: String, AllowedValues: ["yes", "no"], Default: "no"}
Conditions:
  IsBig: !Equals [!Ref Big, "yes"]
Resources:
  Topic:
    Type: AWS::SNS::Topic
    Properties: {TopicName: !Sub "${AWS::StackName}-topic", DisplayName: Drift}
  Param:
    Type: AWS::SSM::Parameter
    Properties:
      Name: !Sub "/${AWS::StackName}/param"
      Type: String
      Value: !Sub "${Env}-${Topic.TopicName}"
  Queue:
    Type: AWS::SQS::Queue
    Properties:
      QueueName: !Join ["-", [!Ref "AWS::StackName", queue]]
      DelaySeconds: !If [IsBig, 60, 20]
      Tags: [{Key: team, Value: ops}]
  Bucket:
    Type: AWS::S3::Bucket
    Properties:
      BucketName: !Sub "${AWS::StackName}-bucket"
      VersioningConfiguration: {Status: Enabled}
      Tags: [{Key: team, Value: ops}]
  Vpc:
    Type: AWS::EC2::VPC
    Properties: {CidrBlock: 10.0.0.0/16}
  Subnet:
    Type: AWS::EC2::Subnet
    Properties: {VpcId: !Ref Vpc, CidrBlock: 10.0.1.0/24, AvailabilityZone: us-east-1a}
  Lt:
    Type: AWS::EC2::LaunchTemplate
    Properties:
      LaunchTemplateName: !Sub "${AWS::StackName}-lt"
      LaunchTemplateData: {ImageId: ami-12c6146b, InstanceType: t3.micro}
  Asg:
    Type: AWS::AutoScaling::AutoScalingGroup
    Properties:
      MinSize: "1"
      MaxSize: "3"
      DesiredCapacity: "1"
      VPCZoneIdentifier: [!Ref Subnet]
      LaunchTemplate: {LaunchTemplateId: !Ref Lt, Version: !GetAtt Lt.LatestVersionNumber}
      Tags: [{Key: team, Value: ops, PropagateAtLaunch: true}]
  Role:
    Type: AWS::IAM::Role
    Properties:
      AssumeRolePolicyDocument:
        Version: "2012-10-17"
        Statement:
          - {Effect: Allow, Principal: {Service: ec2.amazonaws.com}, Action: "sts:AssumeRole"}
      ManagedPolicyArns: [arn:aws:iam::aws:policy/ReadOnlyAccess]
      Policies:
        - PolicyName: inline
          PolicyDocument:
            Version: "2012-10-17"
            Statement: [{Effect: Allow, Action: "s3:GetObject", Resource: "*"}]
"""


def _name() -> str:
    return f"drift-{uuid.uuid4().hex[:8]}"


def _physical(cfn: Any, stack: str, logical_id: str) -> str:
    detail = cfn.describe_stack_resource(StackName=stack, LogicalResourceId=logical_id)
    return str(detail["StackResourceDetail"]["PhysicalResourceId"])


def _drifts(cfn: Any, stack: str, **filters: Any) -> dict[str, dict[str, Any]]:
    found = cfn.describe_stack_resource_drifts(StackName=stack, **filters)
    assert_matches_output_shape(cfn, "DescribeStackResourceDrifts", found)
    return {d["LogicalResourceId"]: d for d in found["StackResourceDrifts"]}


@pytest.fixture
def types_stack(cfnops_sandbox: Sandbox) -> str:
    name = _name()
    cfnops_sandbox.client("cloudformation").create_stack(
        StackName=name, TemplateBody=_TYPES_TEMPLATE, Capabilities=["CAPABILITY_IAM"]
    )
    return name


def test_fresh_stack_is_in_sync_with_intrinsics_resolved(
    cfnops_sandbox: Sandbox, types_stack: str
) -> None:
    cfn = cfnops_sandbox.client("cloudformation")
    with RawShapeChecker(cfn) as raw:
        status = wait_for_detection(cfn, types_stack)
        drifts = _drifts(cfn, types_stack)
    raw.assert_clean()
    assert status["StackDriftStatus"] == "IN_SYNC", drifts
    assert status["DriftedStackResourceCount"] == 0
    checked = {k for k, d in drifts.items() if d["StackResourceDriftStatus"] == "IN_SYNC"}
    assert checked == {"Topic", "Param", "Queue", "Bucket", "Lt", "Asg", "Role"}
    assert drifts["Vpc"]["StackResourceDriftStatus"] == "NOT_CHECKED"
    expected = json.loads(drifts["Param"]["ExpectedProperties"])
    assert expected["Value"] == f"prod-{types_stack}-topic"
    assert json.loads(drifts["Queue"]["ExpectedProperties"])["DelaySeconds"] == 20
    stack = cfn.describe_stacks(StackName=types_stack)["Stacks"][0]
    assert stack["DriftInformation"]["StackDriftStatus"] == "IN_SYNC"


def _differences(drift: dict[str, Any]) -> set[tuple[str, str]]:
    return {(d["PropertyPath"], d["DifferenceType"]) for d in drift["PropertyDifferences"]}


def test_out_of_band_changes_per_type(cfnops_sandbox: Sandbox, types_stack: str) -> None:
    c = cfnops_sandbox.client
    cfn = c("cloudformation")
    c("sns").set_topic_attributes(
        TopicArn=_physical(cfn, types_stack, "Topic"),
        AttributeName="DisplayName",
        AttributeValue="x",
    )
    c("sqs").set_queue_attributes(
        QueueUrl=_physical(cfn, types_stack, "Queue"), Attributes={"DelaySeconds": "120"}
    )
    bucket = _physical(cfn, types_stack, "Bucket")
    c("s3").put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Suspended"})
    lt = _physical(cfn, types_stack, "Lt")
    c("ec2").create_launch_template_version(
        LaunchTemplateId=lt,
        LaunchTemplateData={"ImageId": "ami-12c6146b", "InstanceType": "t3.large"},
    )
    c("ec2").modify_launch_template(LaunchTemplateId=lt, DefaultVersion="2")
    c("autoscaling").update_auto_scaling_group(
        AutoScalingGroupName=_physical(cfn, types_stack, "Asg"), MaxSize=5
    )
    role = _physical(cfn, types_stack, "Role")
    c("iam").detach_role_policy(RoleName=role, PolicyArn="arn:aws:iam::aws:policy/ReadOnlyAccess")
    c("iam").put_role_policy(
        RoleName=role,
        PolicyName="extra",
        PolicyDocument=json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}],
            }
        ),
    )

    status = wait_for_detection(cfn, types_stack)
    assert status["StackDriftStatus"] == "DRIFTED"
    assert status["DriftedStackResourceCount"] == 6
    drifts = _drifts(cfn, types_stack)
    assert _differences(drifts["Topic"]) == {("/DisplayName", "NOT_EQUAL")}
    queue_diff = drifts["Queue"]["PropertyDifferences"][0]
    assert (queue_diff["ExpectedValue"], queue_diff["ActualValue"]) == ("20", "120")
    assert _differences(drifts["Bucket"]) == {("/VersioningConfiguration/Status", "NOT_EQUAL")}
    assert _differences(drifts["Lt"]) == {("/LaunchTemplateData/InstanceType", "NOT_EQUAL")}
    assert _differences(drifts["Asg"]) == {("/MaxSize", "NOT_EQUAL")}
    assert _differences(drifts["Role"]) == {
        ("/ManagedPolicyArns/0", "REMOVE"),
        ("/Policies/1", "ADD"),
    }
    assert drifts["Param"]["StackResourceDriftStatus"] == "IN_SYNC"
    modified = _drifts(cfn, types_stack, StackResourceDriftStatusFilters=["MODIFIED"])
    assert set(modified) == {"Topic", "Queue", "Bucket", "Lt", "Asg", "Role"}
    resources = cfn.describe_stack_resources(StackName=types_stack)["StackResources"]
    by_id = {
        r["LogicalResourceId"]: r["DriftInformation"]["StackResourceDriftStatus"] for r in resources
    }
    assert (by_id["Queue"], by_id["Param"]) == ("MODIFIED", "IN_SYNC")
    listed = cfn.list_stack_resources(StackName=types_stack)
    assert_matches_output_shape(cfn, "ListStackResources", listed)
    summary = {
        r["LogicalResourceId"]: r["DriftInformation"]["StackResourceDriftStatus"]
        for r in listed["StackResourceSummaries"]
    }
    assert (summary["Asg"], summary["Vpc"]) == ("MODIFIED", "NOT_CHECKED")


def test_detect_stack_resource_drift_updates_the_stack_status(cfnops_sandbox: Sandbox) -> None:
    cfn, ssm = cfnops_sandbox.client("cloudformation"), cfnops_sandbox.client("ssm")
    name = _name()
    template = {
        "Resources": {
            "P": {
                "Type": "AWS::SSM::Parameter",
                "Properties": {"Name": f"/{name}", "Type": "String", "Value": "a"},
            }
        }
    }
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(template))
    ssm.put_parameter(Name=f"/{name}", Value="b", Overwrite=True)
    found = cfn.detect_stack_resource_drift(StackName=name, LogicalResourceId="P")
    assert_matches_output_shape(cfn, "DetectStackResourceDrift", found)
    assert found["StackResourceDrift"]["StackResourceDriftStatus"] == "MODIFIED"
    stack = cfn.describe_stacks(StackName=name)["Stacks"][0]
    assert stack["DriftInformation"]["StackDriftStatus"] == "DRIFTED"
    ssm.put_parameter(Name=f"/{name}", Value="a", Overwrite=True)
    found = cfn.detect_stack_resource_drift(StackName=name, LogicalResourceId="P")
    assert found["StackResourceDrift"]["StackResourceDriftStatus"] == "IN_SYNC"
    assert (
        cfn.describe_stacks(StackName=name)["Stacks"][0]["DriftInformation"]["StackDriftStatus"]
        == "IN_SYNC"
    )
    with pytest.raises(ClientError, match="does not exist"):
        cfn.detect_stack_resource_drift(StackName=name, LogicalResourceId="Nope")


def test_detection_takes_the_configured_delay_and_emits_events(cfnops_sandbox: Sandbox) -> None:
    cfn = cfnops_sandbox.client("cloudformation")
    name = _name()
    template = {"Resources": {"T": {"Type": "AWS::SNS::Topic", "Properties": {"TopicName": name}}}}
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(template))
    cfnops_sandbox.state.set_delays(drift_detection=0.4)
    detection = cfn.detect_stack_drift(StackName=name)["StackDriftDetectionId"]
    first = cfn.describe_stack_drift_detection_status(StackDriftDetectionId=detection)
    assert first["DetectionStatus"] == "DETECTION_IN_PROGRESS"
    with pytest.raises(ClientError, match="already in progress"):
        cfn.detect_stack_drift(StackName=name)
    time.sleep(0.5)
    last = cfn.describe_stack_drift_detection_status(StackDriftDetectionId=detection)
    assert (last["DetectionStatus"], last["StackDriftStatus"]) == ("DETECTION_COMPLETE", "IN_SYNC")
    events = [
        e
        for e in cfnops_sandbox.state.events_matching(
            "aws.cloudformation", "CloudFormation Drift Detection Status Change"
        )
        if e["detail"]["stack-drift-detection-id"] == detection
    ]
    assert [e["detail"]["status-details"]["detection-status"] for e in events] == [
        "DETECTION_IN_PROGRESS",
        "DETECTION_COMPLETE",
    ]
    assert [
        e["detail"]["drift-detection-details"]["drifted-stack-resource-count"] for e in events
    ] == [-1, 0]
    assert events[1]["resources"] == [last["StackId"]]


def test_stacks_in_refused_states_and_unknown_ids(cfnops_sandbox: Sandbox) -> None:
    cfn = cfnops_sandbox.client("cloudformation")
    name = _name()
    template = {"Resources": {"T": {"Type": "AWS::SNS::Topic", "Properties": {"TopicName": name}}}}
    cfn.create_change_set(
        StackName=name, ChangeSetName="c", ChangeSetType="CREATE", TemplateBody=json.dumps(template)
    )
    assert cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"] == "REVIEW_IN_PROGRESS"
    with pytest.raises(ClientError) as err:
        cfn.detect_stack_drift(StackName=name)
    assert err.value.response["Error"]["Code"] == "ValidationError"
    assert "REVIEW_IN_PROGRESS" in err.value.response["Error"]["Message"]
    with pytest.raises(ClientError, match="does not exist"):
        cfn.describe_stack_drift_detection_status(StackDriftDetectionId=str(uuid.uuid4()))


def test_write_only_properties_are_not_compared(cfnops_sandbox: Sandbox) -> None:
    cfn, ssm = cfnops_sandbox.client("cloudformation"), cfnops_sandbox.client("ssm")
    name = _name()
    props = {"Name": f"/{name}", "Type": "String", "Value": "a", "Description": "d"}
    template = {"Resources": {"P": {"Type": "AWS::SSM::Parameter", "Properties": props}}}
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(template))
    # Description is write-only in the registry schema: AWS cannot read it back.
    ssm.put_parameter(Name=f"/{name}", Value="a", Description="changed", Overwrite=True)
    drift = cfn.detect_stack_resource_drift(StackName=name, LogicalResourceId="P")
    assert drift["StackResourceDrift"]["StackResourceDriftStatus"] == "IN_SYNC"
    assert "Description" not in json.loads(drift["StackResourceDrift"]["ExpectedProperties"])


def test_revert_drift_restores_every_supported_type(
    cfnops_sandbox: Sandbox, types_stack: str
) -> None:
    from tests.sandbox.conftest import wait_for_change_set, wait_for_stack

    c = cfnops_sandbox.client
    cfn = c("cloudformation")
    c("sns").set_topic_attributes(
        TopicArn=_physical(cfn, types_stack, "Topic"),
        AttributeName="DisplayName",
        AttributeValue="x",
    )
    c("sqs").set_queue_attributes(
        QueueUrl=_physical(cfn, types_stack, "Queue"), Attributes={"DelaySeconds": "120"}
    )
    c("s3").put_bucket_versioning(
        Bucket=_physical(cfn, types_stack, "Bucket"),
        VersioningConfiguration={"Status": "Suspended"},
    )
    lt = _physical(cfn, types_stack, "Lt")
    c("ec2").create_launch_template_version(
        LaunchTemplateId=lt,
        LaunchTemplateData={"ImageId": "ami-12c6146b", "InstanceType": "t3.large"},
    )
    c("ec2").modify_launch_template(LaunchTemplateId=lt, DefaultVersion="2")
    c("autoscaling").update_auto_scaling_group(
        AutoScalingGroupName=_physical(cfn, types_stack, "Asg"), MaxSize=5
    )
    role = _physical(cfn, types_stack, "Role")
    c("iam").detach_role_policy(RoleName=role, PolicyArn="arn:aws:iam::aws:policy/ReadOnlyAccess")
    c("iam").delete_role_policy(RoleName=role, PolicyName="inline")
    assert wait_for_detection(cfn, types_stack)["DriftedStackResourceCount"] == 6

    created = cfn.create_change_set(
        StackName=types_stack,
        ChangeSetName="revert",
        UsePreviousTemplate=True,
        DeploymentMode="REVERT_DRIFT",
        Capabilities=["CAPABILITY_IAM"],
    )
    described = wait_for_change_set(cfn, created["Id"])
    assert_matches_output_shape(cfn, "DescribeChangeSet", described)
    drifted = {
        c["ResourceChange"]["LogicalResourceId"]: c["ResourceChange"]["ResourceDriftStatus"]
        for c in described["Changes"]
    }
    assert drifted == dict.fromkeys(["Topic", "Queue", "Bucket", "Lt", "Asg", "Role"], "MODIFIED")
    cfn.execute_change_set(ChangeSetName=created["Id"])
    assert wait_for_stack(cfn, types_stack) == "UPDATE_COMPLETE"
    status = wait_for_detection(cfn, types_stack)
    assert status["StackDriftStatus"] == "IN_SYNC", _drifts(cfn, types_stack)


def test_a_reader_failure_fails_the_detection(
    cfnops_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cfnops.sandbox.extensions import _cfn_readers

    cfn = cfnops_sandbox.client("cloudformation")
    name = _name()
    template = {"Resources": {"T": {"Type": "AWS::SNS::Topic", "Properties": {"TopicName": name}}}}
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(template))

    def broken(account: str, region: str, physical_id: str) -> None:
        raise RuntimeError("unexpected shape")

    monkeypatch.setitem(_cfn_readers.READERS, "AWS::SNS::Topic", broken)
    status = wait_for_detection(cfn, name)
    assert_matches_output_shape(cfn, "DescribeStackDriftDetectionStatus", status)
    assert status["DetectionStatus"] == "DETECTION_FAILED"
    assert "unexpected shape" in status["DetectionStatusReason"]


def test_the_statuses_drift_detection_accepts_agree_with_heals_own_list() -> None:
    # Two statements of one AWS rule: heal's literal list and the sandbox's rule over
    # botocore's StackStatus enum; neither is derived from the other.
    from cfnops.heal._cfn import CHECKABLE
    from cfnops.sandbox.extensions.cfn_drift import drift_checkable_statuses

    assert drift_checkable_statuses() == CHECKABLE
    assert "ROLLBACK_COMPLETE" not in CHECKABLE
