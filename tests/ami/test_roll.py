"""Pattern 3: roll the instances now through CloudFormation's instance refresh, drift-free.

End to end on the sandbox from an AWS Backup event: the rotation updates the stack,
CloudFormation's ``AutoScalingInstanceRefresh`` policy replaces the instances, the
progress is reported, drift stays IN_SYNC; a failing refresh ends the run FAILED with
its reason and ``ami rollback`` restores the previous AMI; ``--roll`` without the
policy is refused with the edit.
"""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Any

import pytest
from ami_test_support import back_up, base_images, deploy, make_settings, parameter_value, unique
from tests._runtime import runtime_for

from cfnops.ami import InstanceRefreshFailed, NotRollable, Rotator, StackRotation
from cfnops.config import Settings
from cfnops.durable.errors import RunFailed
from cfnops.sandbox import Delays, Sandbox
from cfnops.sandbox.extensions import asg_instance_refresh


def detect_drift(sandbox: Sandbox, stack: str) -> str:
    cfn = sandbox.client("cloudformation")
    detection = cfn.detect_stack_drift(StackName=stack)["StackDriftDetectionId"]
    deadline = time.monotonic() + 30
    while True:
        found = cfn.describe_stack_drift_detection_status(StackDriftDetectionId=detection)
        if found["DetectionStatus"] != "DETECTION_IN_PROGRESS":
            return str(found["StackDriftStatus"])
        assert time.monotonic() < deadline
        time.sleep(0.1)


def group_instances(sandbox: Sandbox, group: str) -> dict[str, str]:
    """Instance id → its AMI, for the group's instances now."""
    reply = sandbox.client("autoscaling").describe_auto_scaling_groups(
        AutoScalingGroupNames=[group]
    )
    ids = [i["InstanceId"] for i in reply["AutoScalingGroups"][0]["Instances"]]
    described = sandbox.client("ec2").describe_instances(InstanceIds=ids)
    return {
        i["InstanceId"]: i["ImageId"] for r in described["Reservations"] for i in r["Instances"]
    }


def backup_event(sandbox: Sandbox, image_id: str) -> dict[str, Any]:
    """The sandbox's COMPLETED Backup event for the job that made ``image_id``."""
    for event in reversed(sandbox.state.events_matching(source="aws.backup")):
        detail = event.get("detail") or {}
        if detail.get("state") == "COMPLETED" and image_id in json.dumps(event):
            return event
    raise AssertionError(f"no COMPLETED backup event for {image_id}")


@pytest.fixture
def refresh_delay(cfnops_sandbox: Sandbox) -> float:
    """Refreshes take a few polls (InProgress ~3 s, a 1 s poll sees it even on a loaded
    machine; at 0.3 s a late poll missed it); every other sandbox delay stays 0."""
    delay = 0.8
    cfnops_sandbox.state.set_delays(dataclasses.replace(Delays.zero(), instance_refresh=delay))
    asg_instance_refresh.clear()
    return delay


@pytest.fixture
def roll_settings(cfnops_sandbox: Sandbox, settings: Settings) -> Settings:
    return make_settings(
        cfnops_sandbox,
        settings.database_url,
        roll=True,
        poll_seconds=1.0,
        update_wait_seconds=60.0,
    )


@pytest.mark.slow
def test_backup_event_rolls_the_instances_and_stays_in_sync(
    cfnops_sandbox: Sandbox, roll_settings: Settings, refresh_delay: float
) -> None:
    old, _ = base_images(cfnops_sandbox)
    stack = unique("ami-p3")
    group = deploy(cfnops_sandbox, 3, stack, ImageId=old)
    name = group["AutoScalingGroupName"]
    before = group_instances(cfnops_sandbox, name)
    new = back_up(cfnops_sandbox, next(iter(before)))
    event = backup_event(cfnops_sandbox, new)

    with Rotator(runtime_for(roll_settings, aws=cfnops_sandbox.clients)) as rotator:
        (result,) = rotator.event(event, source="backup event")

    assert isinstance(result, StackRotation)
    assert (result.outcome, result.previous_image_id) == ("UPDATED", old)
    after = group_instances(cfnops_sandbox, name)
    assert set(after).isdisjoint(before), "every instance was replaced"
    assert set(after.values()) == {new}
    assert detect_drift(cfnops_sandbox, stack) == "IN_SYNC"
    roll = result.output["Roll"]
    (refresh,) = roll["Refreshes"]
    assert (refresh["GroupName"], refresh["Status"]) == (name, "Successful")
    statuses = [(p["Status"], p["PercentageComplete"]) for p in roll["Progress"]]
    assert statuses[-1] == ("Successful", 100)
    assert any(s == "InProgress" for s, _ in statuses), statuses  # progress was observed


@pytest.mark.slow
def test_failing_refresh_ends_failed_and_rollback_restores_the_previous_ami(
    cfnops_sandbox: Sandbox, roll_settings: Settings, refresh_delay: float
) -> None:
    first, second = base_images(cfnops_sandbox)
    stack = unique("ami-p3f")
    group = deploy(cfnops_sandbox, 3, stack, ImageId=first)
    name = group["AutoScalingGroupName"]
    with Rotator(
        runtime_for(roll_settings, aws=cfnops_sandbox.clients), check_compatibility=False
    ) as rotator:
        rotated = rotator.stack(stack, second)
        assert rotated.outcome == "UPDATED"
        third = back_up(cfnops_sandbox, next(iter(group_instances(cfnops_sandbox, name))))
        asg_instance_refresh.fail_next_refresh(name, "Instance i-0abc failed ELB health checks")
        with pytest.raises(RunFailed) as failed:
            rotator.stack(stack, third)
        # The run is FAILED with the refresh's status reason.
        assert "ended Failed" in failed.value.error
        assert "failed ELB health checks" in failed.value.error
        status = cfnops_sandbox.client("cloudformation").describe_stacks(StackName=stack)
        assert status["Stacks"][0]["StackStatus"] == "UPDATE_ROLLBACK_COMPLETE"
        assert parameter_value(cfnops_sandbox, stack, "ImageId") == second  # rolled back
        assert set(group_instances(cfnops_sandbox, name).values()) == {second}

        restored = rotator.rollback_stack(stack)
    assert (restored.outcome, restored.previous_image_id) == ("UPDATED", second)
    assert parameter_value(cfnops_sandbox, stack, "ImageId") == first
    assert set(group_instances(cfnops_sandbox, name).values()) == {first}
    assert detect_drift(cfnops_sandbox, stack) == "IN_SYNC"


def test_roll_without_the_policy_is_refused_with_the_edit(
    cfnops_sandbox: Sandbox, roll_settings: Settings
) -> None:
    old, new = base_images(cfnops_sandbox)
    stack = unique("ami-p2r")
    deploy(cfnops_sandbox, 2, stack, ImageId=old)
    with (
        Rotator(
            runtime_for(roll_settings, aws=cfnops_sandbox.clients), check_compatibility=False
        ) as rotator,
        pytest.raises(NotRollable) as refused,
    ):
        rotator.stack(stack, new)
    assert "has no AutoScalingInstanceRefresh" in refused.value.message
    assert refused.value.hint is not None
    assert "AutoScalingInstanceRefresh:" in refused.value.hint
    assert int(refused.value.exit_code) == 2
    assert parameter_value(cfnops_sandbox, stack, "ImageId") == old  # nothing changed


def test_refresh_failure_error_names_the_reason() -> None:
    err = InstanceRefreshFailed(
        "web",
        {"InstanceRefreshId": "r-1", "GroupName": "g", "Status": "Cancelled"},
        "UPDATE_ROLLBACK_COMPLETE",
    )
    assert "ended Cancelled" in err.message
    assert "no status reason given" in err.message
    assert int(err.exit_code) == 1


def test_cli_refuses_roll_without_the_policy_and_with_a_parameter(
    cfnops_sandbox: Sandbox, roll_settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    from cfnops.cli.main import run

    old, new = base_images(cfnops_sandbox)
    stack = unique("ami-p2cli")
    deploy(cfnops_sandbox, 2, stack, ImageId=old)
    common = ["--endpoint-url", cfnops_sandbox.endpoint_url, "--region", cfnops_sandbox.region]
    args = ["ami", "rotate", "--stack", stack, "--image-id", new, "--roll"]
    assert run([*common, *args, "--no-check-compatibility"]) == 2
    err = capsys.readouterr().err
    assert "cannot be rotated with --roll" in err
    assert "AutoScalingInstanceRefresh:" in err  # the edit that adds the policy
    assert parameter_value(cfnops_sandbox, stack, "ImageId") == old

    assert run([*common, "ami", "rotate", "--parameter", "/x", "--image-id", new, "--roll"]) == 2
    assert "--roll applies to stack rotations" in capsys.readouterr().err


def test_instance_refresh_api_matches_botocore_and_pages(
    cfnops_sandbox: Sandbox, refresh_delay: float
) -> None:
    """Start/Describe/Cancel over HTTP; every answer validated against botocore's model."""
    from botocore.stub import Stubber

    old, _ = base_images(cfnops_sandbox)
    group = deploy(cfnops_sandbox, 3, unique("ami-api"), ImageId=old)["AutoScalingGroupName"]
    autoscaling = cfnops_sandbox.client("autoscaling")
    first = autoscaling.start_instance_refresh(AutoScalingGroupName=group)["InstanceRefreshId"]
    with pytest.raises(autoscaling.exceptions.InstanceRefreshInProgressFault):
        autoscaling.start_instance_refresh(AutoScalingGroupName=group)
    assert (
        autoscaling.cancel_instance_refresh(AutoScalingGroupName=group)["InstanceRefreshId"]
        == first
    )
    deadline = time.monotonic() + 10
    while (
        autoscaling.describe_instance_refreshes(AutoScalingGroupName=group)["InstanceRefreshes"][0][
            "Status"
        ]
        != "Cancelled"
    ):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    second = autoscaling.start_instance_refresh(
        AutoScalingGroupName=group, Preferences={"CheckpointPercentages": [50, 100]}
    )["InstanceRefreshId"]
    page = autoscaling.describe_instance_refreshes(AutoScalingGroupName=group, MaxRecords=1)
    assert [r["InstanceRefreshId"] for r in page["InstanceRefreshes"]] == [second]  # newest first
    rest = autoscaling.describe_instance_refreshes(
        AutoScalingGroupName=group, MaxRecords=1, NextToken=page["NextToken"]
    )
    assert [r["InstanceRefreshId"] for r in rest["InstanceRefreshes"]] == [first]
    assert "NextToken" not in rest
    stubbed = cfnops_sandbox.client("autoscaling")
    with Stubber(stubbed) as stub:  # raises if the sandbox's answer breaks the model
        for reply in (page, rest):
            body = {k: v for k, v in reply.items() if k != "ResponseMetadata"}
            stub.add_response("describe_instance_refreshes", body)
            stubbed.describe_instance_refreshes(AutoScalingGroupName=group)
    with pytest.raises(autoscaling.exceptions.ClientError, match="not found"):
        autoscaling.start_instance_refresh(AutoScalingGroupName="no-such-group")
