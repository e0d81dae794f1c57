"""The issue's acceptance scenarios, against ``cfnops sandbox up`` over HTTP with plain boto3."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from tests.sandbox.conftest import wait_for_change_set, wait_for_detection, wait_for_stack

from cfnops.sandbox.shapecheck import RawShapeChecker, assert_matches_output_shape

pytestmark = pytest.mark.slow  # starts a `cfnops sandbox up` process (~6 s)

_RUN_CLI = "import sys; from cfnops.cli.main import run; sys.exit(run(sys.argv[1:]))"


@pytest.fixture(scope="module")
def session() -> Iterator[boto3.session.Session]:
    """A ``cfnops sandbox up`` process and a plain boto3 session built from its exports."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    proc = subprocess.Popen(
        [sys.executable, "-c", _RUN_CLI, "sandbox", "up", "--port", "0", "--delay", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    exports = dict(
        proc.stdout.readline().strip().removeprefix("export ").split("=", 1) for _ in range(5)
    )
    os.environ["AWS_ENDPOINT_URL"] = exports["AWS_ENDPOINT_URL"]
    try:
        yield boto3.session.Session(
            aws_access_key_id=exports["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=exports["AWS_SECRET_ACCESS_KEY"],
            region_name=exports["AWS_REGION"],
        )
    finally:
        os.environ.pop("AWS_ENDPOINT_URL", None)
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()


def _revert_and_check(cfn: Any, stack: str) -> dict[str, Any]:
    """REVERT_DRIFT change set from the previous template; execute; return its description."""
    with RawShapeChecker(cfn) as raw:
        created = cfn.create_change_set(
            StackName=stack,
            ChangeSetName="revert-drift",
            UsePreviousTemplate=True,
            DeploymentMode="REVERT_DRIFT",
        )
        described = wait_for_change_set(cfn, created["Id"])
        assert_matches_output_shape(cfn, "DescribeChangeSet", described)
        assert described["Status"] == "CREATE_COMPLETE"
        assert described["ExecutionStatus"] == "AVAILABLE"
        assert described["DeploymentMode"] == "REVERT_DRIFT"
        cfn.execute_change_set(ChangeSetName=created["Id"], ClientRequestToken="heal-1")
        assert wait_for_stack(cfn, stack) == "UPDATE_COMPLETE"
        done = cfn.describe_change_set(ChangeSetName=created["Id"])
        assert done["ExecutionStatus"] == "EXECUTE_COMPLETE"
        events = cfn.describe_stack_events(StackName=stack)["StackEvents"]
        assert_matches_output_shape(cfn, "DescribeStackEvents", {"StackEvents": events})
    raw.assert_clean()
    return described


def _drifts(cfn: Any, stack: str) -> dict[str, dict[str, Any]]:
    found = cfn.describe_stack_resource_drifts(StackName=stack)
    assert_matches_output_shape(cfn, "DescribeStackResourceDrifts", found)
    return {d["LogicalResourceId"]: d for d in found["StackResourceDrifts"]}


def test_ssm_parameter_drift_is_detected_and_reverted(session: boto3.session.Session) -> None:
    cfn, ssm = session.client("cloudformation"), session.client("ssm")
    template = {
        "Resources": {
            "Sample": {
                "Type": "AWS::SSM::Parameter",
                "Properties": {
                    "Name": "/drift-test/sample",
                    "Type": "String",
                    "Value": "initial-value",
                },
            }
        }
    }
    cfn.create_stack(StackName="done-ssm", TemplateBody=json.dumps(template))
    ssm.put_parameter(Name="/drift-test/sample", Value="updated-value", Overwrite=True)

    status = wait_for_detection(cfn, "done-ssm")
    assert_matches_output_shape(cfn, "DescribeStackDriftDetectionStatus", status)
    assert (status["StackDriftStatus"], status["DriftedStackResourceCount"]) == ("DRIFTED", 1)
    drift = _drifts(cfn, "done-ssm")["Sample"]
    assert drift["StackResourceDriftStatus"] == "MODIFIED"
    assert drift["PropertyDifferences"] == [
        {
            "PropertyPath": "/Value",
            "ExpectedValue": "initial-value",
            "ActualValue": "updated-value",
            "DifferenceType": "NOT_EQUAL",
        }
    ]

    described = _revert_and_check(cfn, "done-ssm")
    (change,) = [c["ResourceChange"] for c in described["Changes"]]
    assert change["Action"] == "Modify"
    assert change["ResourceDriftStatus"] == "MODIFIED"
    assert json.loads(change["BeforeContext"])["Properties"]["Value"] == "updated-value"
    assert json.loads(change["AfterContext"])["Properties"]["Value"] == "initial-value"
    (detail,) = change["Details"]
    target = detail["Target"]
    assert (target["Name"], target["BeforeValueFrom"], target["AfterValueFrom"]) == (
        "Value",
        "ACTUAL_STATE",
        "TEMPLATE",
    )
    assert (target["BeforeValue"], target["AfterValue"]) == ("updated-value", "initial-value")
    assert target["Drift"]["PreviousValue"] == "initial-value"
    assert target["Drift"]["ActualValue"] == "updated-value"
    assert target["AttributeChangeType"] == "Modify"

    # The reconciled resource's drift status is reset by the execution itself...
    stack = cfn.describe_stacks(StackName="done-ssm")["Stacks"][0]
    assert stack["DriftInformation"]["StackDriftStatus"] == "IN_SYNC"
    # ...and a new detection agrees.
    status = wait_for_detection(cfn, "done-ssm")
    assert status["StackDriftStatus"] == "IN_SYNC"
    assert ssm.get_parameter(Name="/drift-test/sample")["Parameter"]["Value"] == "initial-value"


def test_security_group_ingress_added_out_of_band_is_reverted(
    session: boto3.session.Session,
) -> None:
    cfn, ec2 = session.client("cloudformation"), session.client("ec2")
    template = {
        "Resources": {
            "Web": {
                "Type": "AWS::EC2::SecurityGroup",
                "Properties": {
                    "GroupDescription": "web",
                    "SecurityGroupIngress": [
                        {"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "CidrIp": "0.0.0.0/0"}
                    ],
                },
            }
        }
    }
    cfn.create_stack(StackName="done-sg", TemplateBody=json.dumps(template))
    group_id = cfn.describe_stack_resource(StackName="done-sg", LogicalResourceId="Web")[
        "StackResourceDetail"
    ]["PhysicalResourceId"]
    ec2.authorize_security_group_ingress(
        GroupId=group_id,
        IpPermissions=[
            {
                "IpProtocol": "tcp",
                "FromPort": 22,
                "ToPort": 22,
                "IpRanges": [{"CidrIp": "10.0.0.0/8"}],
            }
        ],
    )

    assert wait_for_detection(cfn, "done-sg")["StackDriftStatus"] == "DRIFTED"
    (difference,) = _drifts(cfn, "done-sg")["Web"]["PropertyDifferences"]
    assert difference["DifferenceType"] == "ADD"
    assert difference["PropertyPath"] == "/SecurityGroupIngress/1"
    assert json.loads(difference["ActualValue"])["CidrIp"] == "10.0.0.0/8"

    described = _revert_and_check(cfn, "done-sg")
    (change,) = [c["ResourceChange"] for c in described["Changes"]]
    assert change["PhysicalResourceId"] == group_id
    assert change["Replacement"] == "False"
    (detail,) = change["Details"]
    assert detail["Target"]["AttributeChangeType"] == "Remove"
    assert json.loads(detail["Target"]["Drift"]["ActualValue"])["FromPort"] == 22

    assert wait_for_detection(cfn, "done-sg")["StackDriftStatus"] == "IN_SYNC"
    rules = ec2.describe_security_groups(GroupIds=[group_id])["SecurityGroups"][0]["IpPermissions"]
    assert [(r["FromPort"], r["IpRanges"][0]["CidrIp"]) for r in rules] == [(443, "0.0.0.0/0")]


def test_sns_topic_deleted_out_of_band_is_recreated(session: boto3.session.Session) -> None:
    cfn, sns = session.client("cloudformation"), session.client("sns")
    template = {
        "Resources": {
            "Alerts": {"Type": "AWS::SNS::Topic", "Properties": {"TopicName": "done-alerts"}}
        }
    }
    cfn.create_stack(StackName="done-sns", TemplateBody=json.dumps(template))
    arn = cfn.describe_stack_resource(StackName="done-sns", LogicalResourceId="Alerts")[
        "StackResourceDetail"
    ]["PhysicalResourceId"]
    sns.delete_topic(TopicArn=arn)

    assert wait_for_detection(cfn, "done-sns")["StackDriftStatus"] == "DRIFTED"
    assert _drifts(cfn, "done-sns")["Alerts"]["StackResourceDriftStatus"] == "DELETED"

    described = _revert_and_check(cfn, "done-sns")
    (change,) = [c["ResourceChange"] for c in described["Changes"]]
    assert (change["Action"], change["ResourceDriftStatus"]) == ("Add", "DELETED")

    assert wait_for_detection(cfn, "done-sns")["StackDriftStatus"] == "IN_SYNC"
    topics = [t["TopicArn"] for t in sns.list_topics()["Topics"]]
    assert arn in topics


def test_nothing_to_revert_fails_with_aws_reason(session: boto3.session.Session) -> None:
    cfn = session.client("cloudformation")
    template = {
        "Resources": {"Q": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "done-q"}}}
    }
    cfn.create_stack(StackName="done-clean", TemplateBody=json.dumps(template))
    created = cfn.create_change_set(
        StackName="done-clean",
        ChangeSetName="nothing",
        UsePreviousTemplate=True,
        DeploymentMode="REVERT_DRIFT",
    )
    described = wait_for_change_set(cfn, created["Id"])
    assert described["Status"] == "FAILED"
    assert described["ExecutionStatus"] == "UNAVAILABLE"
    assert described["StatusReason"].startswith("The submitted information didn't contain changes")
