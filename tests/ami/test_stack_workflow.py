"""Pattern 2's durable workflow: busy stacks, rollbacks with reasons, image waits, rollback."""

from __future__ import annotations

import dataclasses

import pytest
from ami_test_support import base_images, deploy, make_settings, parameter_value, unique
from tests._runtime import database_for, runtime_for

from cfnops.ami import ROTATE_STACK_WORKFLOW, Rotator
from cfnops.ami.errors import (
    ImageNotAvailable,
    NoImageParameter,
    NothingToRollBack,
    StackNotReady,
    UpdateRolledBack,
)
from cfnops.config import Settings
from cfnops.durable import Engine, RunStore
from cfnops.sandbox import Delays, Sandbox
from cfnops.sandbox.extensions import cfn_update_failures


def start_busy_update(sandbox: Sandbox, stack: str, seconds: float) -> None:
    """Execute a change set that keeps the stack UPDATE_IN_PROGRESS for ``seconds``."""
    sandbox.state.set_delays(dataclasses.replace(Delays.zero(), change_set_execute=seconds))
    cfn = sandbox.client("cloudformation")
    cfn.create_change_set(
        StackName=stack,
        ChangeSetName="busy",
        UsePreviousTemplate=True,
        Parameters=[
            {"ParameterKey": "ImageId", "UsePreviousValue": True},
            {"ParameterKey": "Subnets", "UsePreviousValue": True},
            {"ParameterKey": "InstanceType", "ParameterValue": "t3.large"},
        ],
    )
    cfn.execute_change_set(StackName=stack, ChangeSetName="busy")
    assert cfn.describe_stacks(StackName=stack)["Stacks"][0]["StackStatus"] == "UPDATE_IN_PROGRESS"


def step_names(settings: Settings, run_id: str) -> list[str]:
    with RunStore(database_for(settings)) as store:
        return [s.name for s in store.steps(run_id)]


@pytest.mark.slow
def test_waits_while_the_stack_is_busy_then_updates(
    cfnops_sandbox: Sandbox, rotator: Rotator, settings: Settings
) -> None:
    old, new = base_images(cfnops_sandbox)
    stack = unique("ami-busy")
    deploy(cfnops_sandbox, 2, stack, ImageId=old)
    start_busy_update(cfnops_sandbox, stack, 2.5)
    result = rotator.stack(stack, new)
    assert result.outcome == "UPDATED"
    assert parameter_value(cfnops_sandbox, stack, "ImageId") == new
    # the change set's value survived: UsePreviousValue, not the value read before it finished
    assert parameter_value(cfnops_sandbox, stack, "InstanceType") == "t3.large"
    polls = [n for n in step_names(settings, result.run_id) if n.startswith("stack-idle #")]
    assert len(polls) >= 2


@pytest.mark.slow
def test_busy_past_the_bound_changes_nothing(
    cfnops_sandbox: Sandbox, engine: Engine, settings: Settings
) -> None:
    old, new = base_images(cfnops_sandbox)
    stack = unique("ami-busy")
    deploy(cfnops_sandbox, 2, stack, ImageId=old)
    start_busy_update(cfnops_sandbox, stack, 30)
    short = make_settings(cfnops_sandbox, settings.database_url, stack_busy_wait_seconds=1.0)
    with (
        Rotator(runtime_for(short, aws=cfnops_sandbox.clients)) as rot,
        pytest.raises(StackNotReady) as err,
    ):
        rot.stack(stack, new)
    assert err.value.status == "UPDATE_IN_PROGRESS" and "still busy" in str(err.value)
    cfnops_sandbox.state.set_delays(Delays.zero())
    cfnops_sandbox.run_due()


def test_update_rollback_reports_the_failing_resources(
    cfnops_sandbox: Sandbox, rotator: Rotator
) -> None:
    old, new = base_images(cfnops_sandbox)
    stack = unique("ami-rollback")
    deploy(cfnops_sandbox, 2, stack, ImageId=old)
    reason = f"Resource handler returned message: The image id '[{new}]' is not allowed"
    cfn_update_failures.fail_next_update(stack, "LaunchTemplate", reason)
    with pytest.raises(UpdateRolledBack) as err:
        rotator.stack(stack, new)
    assert err.value.status == "UPDATE_ROLLBACK_COMPLETE"
    assert err.value.failures == (
        {
            "LogicalResourceId": "LaunchTemplate",
            "ResourceType": "AWS::EC2::LaunchTemplate",
            "ResourceStatus": "UPDATE_FAILED",
            "ResourceStatusReason": reason,
        },
    )
    assert reason in str(err.value)
    assert parameter_value(cfnops_sandbox, stack, "ImageId") == old


def test_image_not_available_is_a_bounded_wait(cfnops_sandbox: Sandbox, rotator: Rotator) -> None:
    old, _ = base_images(cfnops_sandbox)
    stack = unique("ami-noimage")
    deploy(cfnops_sandbox, 2, stack, ImageId=old)
    with pytest.raises(ImageNotAvailable) as err:
        rotator.stack(stack, "ami-00000000000000bad")
    assert err.value.state == "missing"
    assert parameter_value(cfnops_sandbox, stack, "ImageId") == old


def test_missing_parameter_key(cfnops_sandbox: Sandbox, settings: Settings) -> None:
    old, new = base_images(cfnops_sandbox)
    stack = unique("ami-key")
    deploy(cfnops_sandbox, 2, stack, ImageId=old)
    with (
        Rotator(runtime_for(settings, aws=cfnops_sandbox.clients), parameter_key="AmiId") as rot,
        pytest.raises(NoImageParameter, match="AmiId"),
    ):
        rot.stack(stack, new)


def test_rollback_restores_the_previous_image(
    cfnops_sandbox: Sandbox, rotator: Rotator, settings: Settings
) -> None:
    old, new = base_images(cfnops_sandbox)
    stack = unique("ami-back")
    deploy(cfnops_sandbox, 2, stack, ImageId=old)
    with pytest.raises(NothingToRollBack):
        rotator.rollback_stack(stack)
    rotator.stack(stack, new)
    back = rotator.rollback_stack(stack)
    assert (back.outcome, back.output["Action"], back.previous_image_id) == (
        "UPDATED",
        "rollback",
        new,
    )
    assert parameter_value(cfnops_sandbox, stack, "ImageId") == old
    with RunStore(database_for(settings)) as store:
        record = store.get(back.run_id)
    assert record.workflow == ROTATE_STACK_WORKFLOW and record.status == "SUCCEEDED"


def test_same_run_id_rotates_once(cfnops_sandbox: Sandbox, rotator: Rotator) -> None:
    old, new = base_images(cfnops_sandbox)
    stack = unique("ami-once")
    deploy(cfnops_sandbox, 2, stack, ImageId=old)
    first = rotator.stack(stack, new, run_id=f"{stack}-run")
    events_after_first = len(
        cfnops_sandbox.client("cloudformation").describe_stack_events(StackName=stack)[
            "StackEvents"
        ]
    )
    second = rotator.stack(stack, new, run_id=f"{stack}-run")  # a redelivered event
    assert second.output == first.output
    assert (
        len(
            cfnops_sandbox.client("cloudformation").describe_stack_events(StackName=stack)[
                "StackEvents"
            ]
        )
        == events_after_first
    )
