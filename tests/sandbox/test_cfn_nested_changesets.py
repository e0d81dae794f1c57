"""Nested change sets (``IncludeNestedStacks``) in the sandbox, drift-aware, over HTTP."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tests.sandbox.conftest import wait_for_change_set, wait_for_stack

from cfnops.demo.heal_sample import INITIAL_VALUE, drift_sample, sample_template
from cfnops.sandbox import Sandbox
from cfnops.sandbox.shapecheck import assert_matches_output_shape


def nested_stack(sandbox: Sandbox, name: str) -> tuple[str, str]:
    """A root stack ``name`` with one nested stack ``Child`` (an SSM parameter); (root id,
    child id)."""
    s3, cfn = sandbox.client("s3"), sandbox.client("cloudformation")
    s3.create_bucket(Bucket=name)
    s3.put_object(Bucket=name, Key="child.json", Body=sample_template(f"/{name}/child"))
    parent = {
        "Resources": {
            "Child": {
                "Type": "AWS::CloudFormation::Stack",
                "Properties": {"TemplateURL": f"https://{name}.s3.amazonaws.com/child.json"},
            },
            "Own": {"Type": "AWS::SNS::Topic", "Properties": {"TopicName": f"{name}-own"}},
        }
    }
    root_id = cfn.create_stack(StackName=name, TemplateBody=json.dumps(parent))["StackId"]
    wait_for_stack(cfn, name)
    (child,) = [
        r
        for r in cfn.list_stack_resources(StackName=name)["StackResourceSummaries"]
        if r["ResourceType"] == "AWS::CloudFormation::Stack"
    ]
    # moto names the nested stack here; AWS gives its ARN: DescribeStacks takes both.
    child_id = cfn.describe_stacks(StackName=child["PhysicalResourceId"])["Stacks"][0]["StackId"]
    return str(root_id), str(child_id)


def _revert(cfn: Any, stack: str, nested: bool = True) -> dict[str, Any]:
    made = cfn.create_change_set(
        StackName=stack,
        ChangeSetName=f"revert-{uuid.uuid4().hex[:6]}",
        UsePreviousTemplate=True,
        DeploymentMode="REVERT_DRIFT",
        IncludeNestedStacks=nested,
    )
    return wait_for_change_set(cfn, made["Id"])


def test_revert_drift_with_nested_stacks_lists_and_executes_the_nested_change_set(
    cfnops_sandbox: Sandbox,
) -> None:
    cfn, ssm = cfnops_sandbox.client("cloudformation"), cfnops_sandbox.client("ssm")
    name = f"nest-{uuid.uuid4().hex[:8]}"
    root_id, child_id = nested_stack(cfnops_sandbox, name)
    drift_sample(ssm, f"/{name}/child")

    root = _revert(cfn, name)
    assert root["Status"] == "CREATE_COMPLETE" and root["IncludeNestedStacks"] is True
    assert_matches_output_shape(cfn, "DescribeChangeSet", root)
    (container,) = [c["ResourceChange"] for c in root["Changes"]]
    assert container["ResourceType"] == "AWS::CloudFormation::Stack"
    assert container["LogicalResourceId"] == "Child"
    assert container["PhysicalResourceId"] == child_id
    nested = cfn.describe_change_set(ChangeSetName=container["ChangeSetId"])
    assert nested["ParentChangeSetId"] == root["ChangeSetId"]
    assert nested["RootChangeSetId"] == root["ChangeSetId"]
    assert nested["StackId"] == child_id and nested["DeploymentMode"] == "REVERT_DRIFT"
    (change,) = [c["ResourceChange"] for c in nested["Changes"]]
    assert change["LogicalResourceId"] == "SampleParameter"
    assert change["ResourceDriftStatus"] == "MODIFIED"
    assert [d["Target"]["Path"] for d in change["Details"]] == ["/Properties/Value"]

    # Nested change sets are executed (and deleted) through their root only.
    for call in (cfn.execute_change_set, cfn.delete_change_set):
        with pytest.raises(ClientError) as refused:
            call(ChangeSetName=container["ChangeSetId"])
        assert "through its root change set" in str(refused.value)

    cfn.execute_change_set(ChangeSetName=root["ChangeSetId"])
    assert wait_for_stack(cfn, name) == "UPDATE_COMPLETE"
    assert wait_for_stack(cfn, child_id) == "UPDATE_COMPLETE"
    value = ssm.get_parameter(Name=f"/{name}/child")["Parameter"]["Value"]
    assert value == INITIAL_VALUE
    done = cfn.describe_change_set(ChangeSetName=container["ChangeSetId"])
    assert done["ExecutionStatus"] == "EXECUTE_COMPLETE"
    again = cfn.describe_change_set(ChangeSetName=root["ChangeSetId"], StackName=root_id)
    assert again["ExecutionStatus"] == "EXECUTE_COMPLETE"


def test_without_include_nested_stacks_nested_drift_is_not_seen(cfnops_sandbox: Sandbox) -> None:
    cfn, ssm = cfnops_sandbox.client("cloudformation"), cfnops_sandbox.client("ssm")
    name = f"nest-{uuid.uuid4().hex[:8]}"
    nested_stack(cfnops_sandbox, name)
    drift_sample(ssm, f"/{name}/child")
    root = _revert(cfn, name, nested=False)
    assert root["Status"] == "FAILED" and root["IncludeNestedStacks"] is False
    assert "didn't contain changes" in root["StatusReason"]
