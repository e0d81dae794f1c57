"""Pattern 1 on the sandbox: write the parameter, keep the previous value, refuse owned ones."""

from __future__ import annotations

import time

import pytest
from ami_test_support import base_images, unique

from cfnops.ami import PREVIOUS_TAG, parameter_owner, rollback_parameter, rotate_parameter
from cfnops.ami.errors import (
    ImageNotAvailable,
    IncompatibleImage,
    NothingToRollBack,
    ParameterNotFound,
    ParameterOwnedByStack,
)
from cfnops.config import AmiSettings
from cfnops.sandbox import Sandbox

FAST = AmiSettings(poll_seconds=0.2, image_wait_seconds=1.0)


def new_parameter(sandbox: Sandbox, value: str) -> str:
    name = f"/cfnops/tests/{unique('ami')}"
    sandbox.client("ssm").put_parameter(
        Name=name, Value=value, Type="String", DataType="aws:ec2:image"
    )
    return name


def tags(sandbox: Sandbox, name: str) -> dict[str, str]:
    reply = sandbox.client("ssm").list_tags_for_resource(ResourceType="Parameter", ResourceId=name)
    return {t["Key"]: t["Value"] for t in reply["TagList"]}


def test_rotate_writes_the_parameter_and_keeps_the_previous_value(
    cfnops_sandbox: Sandbox,
) -> None:
    old, new = base_images(cfnops_sandbox)
    name = new_parameter(cfnops_sandbox, old)
    result = rotate_parameter(cfnops_sandbox.clients, FAST, parameter=name, image_id=new)
    assert (result.outcome, result.previous_image_id, result.image_id) == ("UPDATED", old, new)
    stored = cfnops_sandbox.client("ssm").get_parameter(Name=name)["Parameter"]
    assert stored["Value"] == new and stored["DataType"] == "aws:ec2:image"
    assert tags(cfnops_sandbox, name)[PREVIOUS_TAG] == old
    again = rotate_parameter(cfnops_sandbox.clients, FAST, parameter=name, image_id=new)
    assert again.outcome == "UNCHANGED"


def test_rollback_restores_and_toggles(cfnops_sandbox: Sandbox) -> None:
    old, new = base_images(cfnops_sandbox)
    name = new_parameter(cfnops_sandbox, old)
    rotate_parameter(cfnops_sandbox.clients, FAST, parameter=name, image_id=new)
    back = rollback_parameter(cfnops_sandbox.clients, FAST, parameter=name)
    assert (back.outcome, back.image_id, back.previous_image_id) == ("UPDATED", old, new)
    ssm = cfnops_sandbox.client("ssm")
    assert ssm.get_parameter(Name=name)["Parameter"]["Value"] == old
    assert tags(cfnops_sandbox, name)[PREVIOUS_TAG] == new


def test_rollback_without_history_is_a_usage_error(cfnops_sandbox: Sandbox) -> None:
    name = new_parameter(cfnops_sandbox, base_images(cfnops_sandbox)[0])
    with pytest.raises(NothingToRollBack, match=name):
        rollback_parameter(cfnops_sandbox.clients, FAST, parameter=name)


def test_missing_parameter_is_not_created(cfnops_sandbox: Sandbox) -> None:
    image = base_images(cfnops_sandbox)[0]
    with pytest.raises(ParameterNotFound, match="/nope/"):
        rotate_parameter(cfnops_sandbox.clients, FAST, parameter="/nope/ami", image_id=image)


def test_image_not_available_waits_then_fails(cfnops_sandbox: Sandbox) -> None:
    name = new_parameter(cfnops_sandbox, base_images(cfnops_sandbox)[0])
    started = time.monotonic()
    with pytest.raises(ImageNotAvailable, match="ami-0000000000000dead is missing"):
        rotate_parameter(
            cfnops_sandbox.clients, FAST, parameter=name, image_id="ami-0000000000000dead"
        )
    assert 1.0 <= time.monotonic() - started < 5
    assert cfnops_sandbox.client("ssm").get_parameter(Name=name)["Parameter"]["Version"] == 1


def test_incompatible_architecture_is_refused_unless_unchecked(cfnops_sandbox: Sandbox) -> None:
    old = base_images(cfnops_sandbox)[0]
    arm = base_images(cfnops_sandbox, "arm64")[0]
    name = new_parameter(cfnops_sandbox, old)
    with pytest.raises(IncompatibleImage, match="architecture arm64 ≠ x86_64"):
        rotate_parameter(cfnops_sandbox.clients, FAST, parameter=name, image_id=arm)
    done = rotate_parameter(
        cfnops_sandbox.clients, FAST, parameter=name, image_id=arm, check_compatibility=False
    )
    assert done.outcome == "UPDATED"


def test_stack_owned_parameter_is_refused_unless_forced(cfnops_sandbox: Sandbox) -> None:
    old, new = base_images(cfnops_sandbox)
    stack, name = unique("owner"), f"/cfnops/tests/{unique('owned')}"
    cfnops_sandbox.client("cloudformation").create_stack(
        StackName=stack,
        TemplateBody=(
            "Resources:\n  Ami:\n    Type: AWS::SSM::Parameter\n    Properties:\n"
            f"      Type: String\n      Name: {name}\n      Value: {old}\n"
        ),
    )
    assert parameter_owner(cfnops_sandbox.clients, name) == (stack, "resource Ami")
    with pytest.raises(ParameterOwnedByStack, match=stack) as err:
        rotate_parameter(cfnops_sandbox.clients, FAST, parameter=name, image_id=new)
    assert "--force" in str(err.value.hint)
    ssm = cfnops_sandbox.client("ssm")
    assert ssm.get_parameter(Name=name)["Parameter"]["Value"] == old
    forced = rotate_parameter(
        cfnops_sandbox.clients, FAST, parameter=name, image_id=new, force=True
    )
    assert forced.forced and ssm.get_parameter(Name=name)["Parameter"]["Value"] == new


def test_parameter_outside_any_stack_has_no_owner(cfnops_sandbox: Sandbox) -> None:
    name = new_parameter(cfnops_sandbox, base_images(cfnops_sandbox)[0])
    assert parameter_owner(cfnops_sandbox.clients, name) is None
