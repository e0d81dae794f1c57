"""Pattern 1: the launch template reads ``resolve:ssm:<name>``; rotation writes the parameter.

The launch template's ``ImageId`` is ``resolve:ssm:<parameter>`` (EC2 User Guide,
"Use a Systems Manager parameter instead of an AMI ID" in launch templates):
EC2 resolves it when an instance launches, so the template, its versions and
the group stay exactly as deployed — drift detection has nothing to report —
while the next instance the group launches uses the new AMI.

The parameter must live outside any stack: a stack-defined parameter changed by
automation is itself drift. Ownership is detected from the ``aws:cloudformation:*``
tags on the parameter, then by stack resource lookup (DescribeStackResources with
``PhysicalResourceId``; a scan of the account's stacks where that lookup is not
answered).

The previous value is kept in the parameter's own tags
(``cfnops:ami:previous-image-id`` and ``cfnops:ami:rotated-at``), so
``cfnops ami rollback --parameter NAME`` restores it; SSM's parameter history
(GetParameterHistory) is the fallback.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from cfnops.ami._images import check_compatible, wait_until_available
from cfnops.ami.errors import NothingToRollBack, ParameterNotFound, ParameterOwnedByStack
from cfnops.aws import AwsClients, error_code
from cfnops.config import AmiSettings

if TYPE_CHECKING:
    from mypy_boto3_cloudformation.literals import StackStatusType
    from mypy_boto3_ssm import SSMClient
    from mypy_boto3_ssm.type_defs import TagTypeDef

__all__ = [
    "PREVIOUS_TAG",
    "ROTATED_AT_TAG",
    "ParameterRotation",
    "parameter_owner",
    "rollback_parameter",
    "rotate_parameter",
]

PREVIOUS_TAG = "cfnops:ami:previous-image-id"
ROTATED_AT_TAG = "cfnops:ami:rotated-at"
_STACK_TAG = "aws:cloudformation:stack-name"
_LIVE: tuple[StackStatusType, ...] = (
    "CREATE_COMPLETE",
    "UPDATE_COMPLETE",
    "UPDATE_ROLLBACK_COMPLETE",
    "UPDATE_ROLLBACK_FAILED",
    "UPDATE_IN_PROGRESS",
    "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS",
    "IMPORT_COMPLETE",
    "IMPORT_ROLLBACK_COMPLETE",
)


@dataclass(frozen=True)
class ParameterRotation:
    """The outcome of writing one SSM parameter."""

    parameter: str
    image_id: str
    previous_image_id: str | None
    outcome: str  # UPDATED | UNCHANGED
    version: int | None = None
    forced: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "pattern": "ssm-parameter",
            "outcome": self.outcome,
            "Parameter": self.parameter,
            "ImageId": self.image_id,
            "PreviousImageId": self.previous_image_id,
            "Version": self.version,
            "Forced": self.forced,
        }


def _tags(ssm: SSMClient, name: str) -> dict[str, str]:
    reply = ssm.list_tags_for_resource(ResourceType="Parameter", ResourceId=name)
    return {t["Key"]: t["Value"] for t in reply.get("TagList", [])}


def parameter_owner(clients: AwsClients, name: str) -> tuple[str, str] | None:
    """``(stack, evidence)`` when a CloudFormation stack owns parameter ``name``."""
    tags = _tags(clients.client("ssm"), name)
    if _STACK_TAG in tags:
        return tags[_STACK_TAG], f"tag {_STACK_TAG}"
    cfn = clients.client("cloudformation")
    try:
        reply = cfn.describe_stack_resources(PhysicalResourceId=name)
    except ClientError as exc:
        if error_code(exc) != "ValidationError":
            raise
    else:
        for res in reply.get("StackResources", []):
            if res.get("PhysicalResourceId") == name:
                return str(res["StackName"]), f"resource {res['LogicalResourceId']}"
    # DescribeStackResources answered "no stack": confirm by scanning (some endpoints,
    # the sandbox among them, do not look resources up by physical id).
    for page in cfn.get_paginator("list_stacks").paginate(StackStatusFilter=list(_LIVE)):
        for summary in page.get("StackSummaries", []):
            stack = summary["StackName"]
            for rpage in cfn.get_paginator("list_stack_resources").paginate(StackName=stack):
                for item in rpage.get("StackResourceSummaries", []):
                    if (
                        item.get("ResourceType") == "AWS::SSM::Parameter"
                        and item.get("PhysicalResourceId") == name
                    ):
                        return stack, f"resource {item['LogicalResourceId']}"
    return None


def _current(ssm: SSMClient, name: str) -> dict[str, Any]:
    try:
        return dict(ssm.get_parameter(Name=name)["Parameter"])
    except ClientError as exc:
        if error_code(exc) == "ParameterNotFound":
            raise ParameterNotFound(name) from exc
        raise


def rotate_parameter(
    clients: AwsClients,
    settings: AmiSettings,
    *,
    parameter: str,
    image_id: str,
    force: bool = False,
    check_compatibility: bool | None = None,
) -> ParameterRotation:
    """Write ``image_id`` into ``parameter`` after the safety checks (see the module doc)."""
    ec2, ssm = clients.client("ec2"), clients.client("ssm")
    facts = wait_until_available(
        ec2, image_id, wait_seconds=settings.image_wait_seconds, poll_seconds=settings.poll_seconds
    )
    current = _current(ssm, parameter)
    owner = parameter_owner(clients, parameter)
    if owner is not None and not force:
        raise ParameterOwnedByStack(parameter, *owner)
    previous = str(current.get("Value", "")) or None
    if check_compatibility if check_compatibility is not None else settings.check_compatibility:
        check_compatible(ec2, f"parameter {parameter}", facts, previous)
    if previous == image_id:
        return ParameterRotation(parameter, image_id, previous, "UNCHANGED", current.get("Version"))
    request: dict[str, Any] = {"Name": parameter, "Value": image_id, "Overwrite": True}
    if current.get("DataType") == "aws:ec2:image":
        request["DataType"] = "aws:ec2:image"
    version = ssm.put_parameter(**request).get("Version")
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    tags: list[TagTypeDef] = [{"Key": ROTATED_AT_TAG, "Value": stamp}]
    if previous:
        tags.append({"Key": PREVIOUS_TAG, "Value": previous})
    ssm.add_tags_to_resource(ResourceType="Parameter", ResourceId=parameter, Tags=tags)
    return ParameterRotation(parameter, image_id, previous, "UPDATED", version, owner is not None)


def previous_image(clients: AwsClients, parameter: str) -> str:
    """The AMI recorded before the last rotation (tag, else parameter history)."""
    ssm = clients.client("ssm")
    current = _current(ssm, parameter)
    recorded = _tags(ssm, parameter).get(PREVIOUS_TAG)
    if recorded:
        return recorded
    history = ssm.get_parameter_history(Name=parameter).get("Parameters", [])
    older = [h for h in history if h.get("Version") != current.get("Version")]
    if older:
        return str(sorted(older, key=lambda h: int(h.get("Version", 0)))[-1]["Value"])
    raise NothingToRollBack(f"parameter {parameter}", f"tag {PREVIOUS_TAG}, parameter history")


def rollback_parameter(
    clients: AwsClients,
    settings: AmiSettings,
    *,
    parameter: str,
    force: bool = False,
    check_compatibility: bool | None = None,
) -> ParameterRotation:
    """Put back the AMI that the last rotation replaced (same checks as a rotation)."""
    return rotate_parameter(
        clients,
        settings,
        parameter=parameter,
        image_id=previous_image(clients, parameter),
        force=force,
        check_compatibility=check_compatibility,
    )
