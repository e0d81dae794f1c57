"""Both patterns end to end on the sandbox, driven by AWS Backup events on the sandbox bus;
drift detection says IN_SYNC after each, and DRIFTED after the naive approach."""

from __future__ import annotations

import pytest
from ami_test_support import back_up, base_images, deploy, unique

from cfnops.ami import ParameterRotation, Rotator, Skipped, StackRotation
from cfnops.demo.ami import detect_drift
from cfnops.demo.ami_bridge import subscribe_rotation
from cfnops.sandbox import Sandbox


def instance_image(sandbox: Sandbox, instance_id: str) -> str:
    reply = sandbox.client("ec2").describe_instances(InstanceIds=[instance_id])
    return str(reply["Reservations"][0]["Instances"][0]["ImageId"])


def heal(sandbox: Sandbox, group: dict[str, object]) -> str:
    """Terminate the group's instance; answer the image of its replacement."""
    autoscaling = sandbox.client("autoscaling")
    old = group["Instances"][0]["InstanceId"]  # type: ignore[index]
    autoscaling.terminate_instance_in_auto_scaling_group(
        InstanceId=old, ShouldDecrementDesiredCapacity=False
    )
    name = group["AutoScalingGroupName"]
    now = autoscaling.describe_auto_scaling_groups(AutoScalingGroupNames=[name])
    (replacement,) = [i["InstanceId"] for i in now["AutoScalingGroups"][0]["Instances"]]
    assert replacement != old
    return instance_image(sandbox, replacement)


@pytest.mark.slow
def test_pattern1_backup_event_writes_the_parameter_in_sync(
    cfnops_sandbox: Sandbox, rotator: Rotator
) -> None:
    old, _ = base_images(cfnops_sandbox)
    stack, parameter = unique("ami-p1"), f"/cfnops/tests/{unique('p1')}"
    ssm = cfnops_sandbox.client("ssm")
    ssm.put_parameter(Name=parameter, Value=old, Type="String", DataType="aws:ec2:image")
    group = deploy(cfnops_sandbox, 1, stack, ImageIdParameterName=parameter)
    instance = group["Instances"][0]["InstanceId"]
    assert instance_image(cfnops_sandbox, instance) == old  # resolve:ssm: resolved at launch
    subscription = subscribe_rotation(rotator)
    try:
        new = back_up(cfnops_sandbox, instance)
        assert subscription.wait(1, timeout=60)
    finally:
        subscription.close()
    assert subscription.errors == []
    (result,) = subscription.results
    assert isinstance(result, ParameterRotation)
    assert (result.outcome, result.image_id, result.previous_image_id) == ("UPDATED", new, old)
    assert ssm.get_parameter(Name=parameter)["Parameter"]["Value"] == new
    assert detect_drift(cfnops_sandbox.client("cloudformation"), stack)["StackDriftStatus"] == (
        "IN_SYNC"
    )
    assert heal(cfnops_sandbox, group) == new


@pytest.mark.slow
def test_pattern2_backup_event_updates_the_stack_in_sync(
    cfnops_sandbox: Sandbox, rotator: Rotator
) -> None:
    old, _ = base_images(cfnops_sandbox)
    stack = unique("ami-p2")
    group = deploy(cfnops_sandbox, 2, stack, ImageId=old, InstanceType="t3.small")
    cfn = cfnops_sandbox.client("cloudformation")
    before = {
        p["ParameterKey"]: p["ParameterValue"]
        for p in cfn.describe_stacks(StackName=stack)["Stacks"][0]["Parameters"]
    }
    subscription = subscribe_rotation(rotator)
    try:
        new = back_up(cfnops_sandbox, group["Instances"][0]["InstanceId"])
        assert subscription.wait(1, timeout=60)
    finally:
        subscription.close()
    assert subscription.errors == []
    (result,) = subscription.results
    assert isinstance(result, StackRotation)
    assert (result.outcome, result.previous_image_id) == ("UPDATED", old)
    after = {
        p["ParameterKey"]: p["ParameterValue"]
        for p in cfn.describe_stacks(StackName=stack)["Stacks"][0]["Parameters"]
    }
    assert after == {**before, "ImageId": new}  # every other parameter kept
    assert cfn.describe_stacks(StackName=stack)["Stacks"][0]["StackStatus"] == "UPDATE_COMPLETE"
    assert detect_drift(cfn, stack)["StackDriftStatus"] == "IN_SYNC"
    assert heal(cfnops_sandbox, group) == new


def test_naive_rotation_drifts(cfnops_sandbox: Sandbox) -> None:
    old, new = base_images(cfnops_sandbox)
    stack = unique("ami-naive")
    group = deploy(cfnops_sandbox, 2, stack, ImageId=old)
    ec2, cfn = cfnops_sandbox.client("ec2"), cfnops_sandbox.client("cloudformation")
    lt = group["LaunchTemplate"]["LaunchTemplateId"]
    version = ec2.create_launch_template_version(
        LaunchTemplateId=lt, SourceVersion="1", LaunchTemplateData={"ImageId": new}
    )["LaunchTemplateVersion"]["VersionNumber"]
    # A new launch template version alone is not drift ...
    assert detect_drift(cfn, stack)["StackDriftStatus"] == "IN_SYNC"
    cfnops_sandbox.client("autoscaling").update_auto_scaling_group(
        AutoScalingGroupName=group["AutoScalingGroupName"],
        LaunchTemplate={"LaunchTemplateId": lt, "Version": str(version)},
    )
    # ... switching the group's pinned version is.
    drift = detect_drift(cfn, stack)
    assert drift["StackDriftStatus"] == "DRIFTED"
    (item,) = drift["Drifted"]
    assert item["LogicalResourceId"] == "Group"
    assert [
        (d["PropertyPath"], d["ExpectedValue"], d["ActualValue"]) for d in item["Differences"]
    ] == [("/LaunchTemplate/Version", "1", str(version))]


def test_untagged_image_is_skipped(cfnops_sandbox: Sandbox, rotator: Rotator) -> None:
    old, _ = base_images(cfnops_sandbox)
    instance = cfnops_sandbox.client("ec2").run_instances(ImageId=old, MinCount=1, MaxCount=1)[
        "Instances"
    ][0]["InstanceId"]
    subscription = subscribe_rotation(rotator)
    try:
        image = back_up(cfnops_sandbox, instance)
        assert subscription.wait(1, timeout=30)
    finally:
        subscription.close()
    (result,) = subscription.results
    assert isinstance(result, Skipped)
    assert image in result.reason and "ImageIdParameterName" in result.reason
