"""Change sets compare resolved values: a reference replaced by its literal is no change.

AWS docs, "Update your stack with change sets" / "ResourceChangeDetail"
(https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_ResourceChangeDetail.html):
CloudFormation evaluates the template with the stack's values before comparing,
so writing the value a ``Ref`` resolves to in its place changes nothing.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from tests.sandbox.conftest import wait_for_change_set, wait_for_stack

from cfnops.sandbox import Sandbox


def _template(name: str, copy_name: Any, value: Any = "v1") -> dict[str, Any]:
    # AWS::SSM::Parameter: Name is create-only; Ref returns the parameter's name
    # (aws-resource-ssm-parameter.html, "Return values").
    return {
        "Resources": {
            "Source": {
                "Type": "AWS::SSM::Parameter",
                "Properties": {"Name": f"/{name}/source", "Type": "String", "Value": "s"},
            },
            "Copy": {
                "Type": "AWS::SSM::Parameter",
                "Properties": {"Name": copy_name, "Type": "String", "Value": value},
            },
        }
    }


def _copy_change(cfn: Any, name: str, template: dict[str, Any]) -> dict[str, Any] | None:
    created = cfn.create_change_set(
        StackName=name, ChangeSetName=f"c{uuid.uuid4().hex[:6]}", TemplateBody=json.dumps(template)
    )
    described = wait_for_change_set(cfn, created["Id"])
    for change in described.get("Changes", []):
        rc = change["ResourceChange"]
        if rc["LogicalResourceId"] == "Copy":
            return dict(rc)
    return None


def test_ref_replaced_by_its_literal_is_no_change(cfnops_sandbox: Sandbox) -> None:
    cfn = cfnops_sandbox.client("cloudformation")
    name = f"cs-{uuid.uuid4().hex[:8]}"
    cfn.create_stack(
        StackName=name,
        TemplateBody=json.dumps(_template(name, {"Fn::Sub": "${Source}-copy"})),
    )
    assert wait_for_stack(cfn, name) == "CREATE_COMPLETE"
    literal = _template(name, f"/{name}/source-copy")
    assert _copy_change(cfn, name, literal) is None
    # the same literal with a changed mutable property: an update, never a replacement
    change = _copy_change(cfn, name, _template(name, f"/{name}/source-copy", value="v2"))
    assert change is not None
    assert change["Replacement"] == "False"
    assert [d["Target"]["Name"] for d in change["Details"]] == ["Value"]
    # a literal that differs from what the Ref resolves to still replaces
    change = _copy_change(cfn, name, _template(name, f"/{name}/other"))
    assert change is not None and change["Replacement"] == "True"


def _network(vpc: Any, zone: Any) -> dict[str, Any]:
    # AWS::EC2::Subnet: VpcId and AvailabilityZone are create-only; Ref of an
    # AWS::EC2::VPC returns its id (aws-resource-ec2-vpc.html, "Return values").
    return {
        "Resources": {
            "Vpc": {"Type": "AWS::EC2::VPC", "Properties": {"CidrBlock": "10.0.0.0/16"}},
            "Subnet": {
                "Type": "AWS::EC2::Subnet",
                "Properties": {"VpcId": vpc, "CidrBlock": "10.0.1.0/24", "AvailabilityZone": zone},
            },
        }
    }


def test_diff_with_a_change_set_drops_what_resolves_equal(cfnops_sandbox: Sandbox) -> None:
    from cfnops.diff import Impact
    from cfnops.diff.stack import diff_against_stack

    cfn = cfnops_sandbox.client("cloudformation")
    name = f"cs-{uuid.uuid4().hex[:8]}"
    deployed = _network({"Ref": "Vpc"}, {"Fn::Sub": "${AWS::Region}a"})
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(deployed))
    assert wait_for_stack(cfn, name) == "CREATE_COMPLETE"
    vpc_id = cfn.describe_stack_resource(StackName=name, LogicalResourceId="Vpc")[
        "StackResourceDetail"
    ]["PhysicalResourceId"]
    literal = _network(vpc_id, "us-east-1a")

    offline = diff_against_stack(cfn, name, literal, sleep=lambda _: None)
    subnet = offline.resource("Subnet")
    assert subnet is not None and subnet.impact is Impact.WILL_REPLACE  # the id is unknown offline

    exact = diff_against_stack(cfn, name, literal, change_set=True, sleep=lambda _: None)
    assert exact.resource("Subnet") is None
    assert exact.is_empty
    assert any("Subnet (offline: WILL_REPLACE)" in note for note in exact.notes)
    assert cfn.list_change_sets(StackName=name)["Summaries"] == []

    other = _network("vpc-0123456789abcdef0", "us-east-1a")
    replaced = diff_against_stack(cfn, name, other, change_set=True, sleep=lambda _: None)
    subnet = replaced.resource("Subnet")
    assert subnet is not None and subnet.impact is Impact.WILL_REPLACE
