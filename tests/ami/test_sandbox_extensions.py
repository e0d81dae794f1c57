"""The two sandbox extensions AMI rotation needs: EC2 ``resolve:ssm:`` image ids at launch,
and injected UpdateStack failures that roll back with status reasons."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from ami_test_support import base_images, deploy, unique
from botocore.exceptions import ClientError

from cfnops.sandbox import Sandbox
from cfnops.sandbox.extensions import cfn_update_failures


def control(sandbox: Sandbox, route: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        f"{sandbox.endpoint_url}/_cfnops/{route}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


def test_run_instances_resolves_ssm_image_ids(cfnops_sandbox: Sandbox) -> None:
    old, new = base_images(cfnops_sandbox)
    name = f"/cfnops/tests/{unique('launch')}"
    ssm, ec2 = cfnops_sandbox.client("ssm"), cfnops_sandbox.client("ec2")
    ssm.put_parameter(Name=name, Value=old, Type="String", DataType="aws:ec2:image")
    ssm.put_parameter(Name=name, Value=new, Overwrite=True)
    for image_id, expected in ((f"resolve:ssm:{name}", new), (f"resolve:ssm:{name}:1", old)):
        launched = ec2.run_instances(ImageId=image_id, MinCount=1, MaxCount=1)["Instances"][0]
        assert launched["ImageId"] == expected
    with pytest.raises(ClientError) as err:
        ec2.run_instances(ImageId="resolve:ssm:/no/such/parameter", MinCount=1, MaxCount=1)
    assert err.value.response["Error"]["Code"] == "InvalidParameterValue"


def test_launch_template_keeps_the_resolve_text(cfnops_sandbox: Sandbox) -> None:
    old, _ = base_images(cfnops_sandbox)
    name = f"/cfnops/tests/{unique('lt')}"
    cfnops_sandbox.client("ssm").put_parameter(Name=name, Value=old, Type="String")
    group = deploy(cfnops_sandbox, 1, unique("ami-lt"), ImageIdParameterName=name)
    versions = cfnops_sandbox.client("ec2").describe_launch_template_versions(
        LaunchTemplateId=group["LaunchTemplate"]["LaunchTemplateId"]
    )["LaunchTemplateVersions"]
    assert [v["LaunchTemplateData"]["ImageId"] for v in versions] == [f"resolve:ssm:{name}"]


def test_update_failure_control_route(cfnops_sandbox: Sandbox) -> None:
    old, new = base_images(cfnops_sandbox)
    stack = unique("ami-fail")
    deploy(cfnops_sandbox, 2, stack, ImageId=old)
    rule = {"stack": stack, "resource": "Group", "reason": "Group busy", "count": 1}
    assert control(cfnops_sandbox, "cfn-update-failures", {"add": [rule]})["rules"] == [rule]
    cfn = cfnops_sandbox.client("cloudformation")
    cfn.update_stack(
        StackName=stack,
        UsePreviousTemplate=True,
        Parameters=[
            {"ParameterKey": "ImageId", "ParameterValue": new},
            {"ParameterKey": "InstanceType", "UsePreviousValue": True},
            {"ParameterKey": "Subnets", "UsePreviousValue": True},
        ],
    )
    found = cfn.describe_stacks(StackName=stack)["Stacks"][0]
    assert found["StackStatus"] == "UPDATE_ROLLBACK_COMPLETE"
    assert {p["ParameterKey"]: p["ParameterValue"] for p in found["Parameters"]}["ImageId"] == old
    statuses = [
        (e["LogicalResourceId"], e["ResourceStatus"], e.get("ResourceStatusReason"))
        for e in cfn.describe_stack_events(StackName=stack)["StackEvents"]
    ][:7]
    assert statuses == [
        (stack, "UPDATE_ROLLBACK_COMPLETE", None),
        (stack, "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS", None),
        ("Group", "UPDATE_COMPLETE", None),
        (
            stack,
            "UPDATE_ROLLBACK_IN_PROGRESS",
            "The following resource(s) failed to update: [Group].",
        ),
        ("Group", "UPDATE_FAILED", "Group busy"),
        ("Group", "UPDATE_IN_PROGRESS", None),
        (stack, "UPDATE_IN_PROGRESS", "User Initiated"),
    ]
    assert cfn_update_failures.rules() == []  # used up
    control(cfnops_sandbox, "cfn-update-failures", {"add": [rule], "clear": False})
    assert control(cfnops_sandbox, "cfn-update-failures", {"clear": True})["rules"] == []
