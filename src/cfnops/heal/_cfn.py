"""CloudFormation calls of the heal capability (the adapter; everything else is pure).

API reference: DetectStackDrift, DescribeStackDriftDetectionStatus,
DescribeStackResourceDrifts, CreateChangeSet (``DeploymentMode=REVERT_DRIFT``,
https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/drift-aware-change-sets.html),
DescribeChangeSet (paginated), ExecuteChangeSet, DeleteChangeSet.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import botocore.exceptions

from cfnops.aws import error_code, error_message, stack_resource_drifts
from cfnops.heal._model import ResourceDrift, resource_from_api

if TYPE_CHECKING:
    from mypy_boto3_cloudformation import CloudFormationClient
    from mypy_boto3_cloudformation.type_defs import StackResourceSummaryTypeDef

CHANGE_SET_DESCRIPTION = "Change set for configuration healing"
# Statuses in which DetectStackDrift is accepted (User Guide, "Detect drift on an
# entire stack": stacks in a *_COMPLETE state other than deletes, or UPDATE_ROLLBACK_FAILED).
CHECKABLE = frozenset(
    {
        "CREATE_COMPLETE",
        "UPDATE_COMPLETE",
        "UPDATE_ROLLBACK_COMPLETE",
        "UPDATE_ROLLBACK_FAILED",
        "IMPORT_COMPLETE",
        "IMPORT_ROLLBACK_COMPLETE",
    }
)


def describe_stack(cfn: CloudFormationClient, stack: str) -> dict[str, Any] | None:
    """``{"StackId", "StackName", "StackStatus"}`` or ``None`` when the stack does not exist."""
    try:
        found = cfn.describe_stacks(StackName=stack)["Stacks"][0]
    except botocore.exceptions.ClientError as exc:
        if error_code(exc) == "ValidationError" and "does not exist" in error_message(exc):
            return None
        raise
    deployed = found.get("LastUpdatedTime") or found.get("CreationTime")
    out = {
        "StackId": found["StackId"],
        "StackName": found["StackName"],
        "StackStatus": found["StackStatus"],
        "DeployedAt": deployed.isoformat() if hasattr(deployed, "isoformat") else None,
    }
    if found.get("RootId"):  # a nested stack: healed through its root
        out["RootId"] = found["RootId"]
    return out


def start_detection(cfn: CloudFormationClient, stack: str) -> str:
    return str(cfn.detect_stack_drift(StackName=stack)["StackDriftDetectionId"])


def detection_status(cfn: CloudFormationClient, detection_id: str) -> dict[str, Any]:
    found = cfn.describe_stack_drift_detection_status(StackDriftDetectionId=detection_id)
    return {
        "DetectionStatus": found["DetectionStatus"],
        "StackDriftStatus": found.get("StackDriftStatus", "UNKNOWN"),
        "DetectionStatusReason": found.get("DetectionStatusReason", ""),
        "DriftedStackResourceCount": found.get("DriftedStackResourceCount", 0),
        "StackId": found.get("StackId", ""),
    }


def resource_drifts(cfn: CloudFormationClient, stack: str) -> tuple[ResourceDrift, ...]:
    """Every resource's last drift result (all pages)."""
    return tuple(resource_from_api(item) for item in stack_resource_drifts(cfn, stack))


NESTED_STACK = "AWS::CloudFormation::Stack"


def stack_resources(cfn: CloudFormationClient, stack: str) -> list[StackResourceSummaryTypeDef]:
    """Every ``StackResourceSummary`` of the stack (ListStackResources, all pages)."""
    out: list[StackResourceSummaryTypeDef] = []
    kwargs: dict[str, Any] = {"StackName": stack}
    while True:
        page = cfn.list_stack_resources(**kwargs)
        out.extend(page.get("StackResourceSummaries", []))
        token = page.get("NextToken")
        if not token:
            return out
        kwargs["NextToken"] = token


def nested_stack_ids(summaries: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """``(logical id, nested stack id)`` of each ``AWS::CloudFormation::Stack`` resource."""
    return [
        (str(item["LogicalResourceId"]), str(item["PhysicalResourceId"]))
        for item in summaries
        if item.get("ResourceType") == NESTED_STACK and item.get("PhysicalResourceId")
    ]


def create_revert_change_set(
    cfn: CloudFormationClient, stack: str, name: str, token: str, nested: bool = False
) -> dict[str, str]:
    """Create the REVERT_DRIFT change set (``nested``: with ``IncludeNestedStacks``); a
    re-run after a crash finds the one it made."""
    extra: dict[str, Any] = {"IncludeNestedStacks": True} if nested else {}
    try:
        made = cfn.create_change_set(
            StackName=stack,
            ChangeSetName=name,
            UsePreviousTemplate=True,
            DeploymentMode="REVERT_DRIFT",
            Description=CHANGE_SET_DESCRIPTION,
            ClientToken=token,
            Capabilities=["CAPABILITY_IAM", "CAPABILITY_NAMED_IAM", "CAPABILITY_AUTO_EXPAND"],
            **extra,
        )
    except botocore.exceptions.ClientError as exc:
        if error_code(exc) not in ("AlreadyExistsException", "AlreadyExists"):
            raise
        found = cfn.describe_change_set(StackName=stack, ChangeSetName=name)
        return {"Id": str(found["ChangeSetId"]), "StackId": str(found["StackId"])}
    return {"Id": str(made["Id"]), "StackId": str(made["StackId"])}


def describe_change_set(
    cfn: CloudFormationClient, stack_id: str, change_set_id: str
) -> dict[str, Any]:
    """The whole change set: every page's ``Changes`` merged into the first page."""
    kwargs: dict[str, Any] = {"ChangeSetName": change_set_id}
    if stack_id:  # optional when the change set is named by its ARN
        kwargs["StackName"] = stack_id
    first: dict[str, Any] | None = None
    while True:
        page = cfn.describe_change_set(**kwargs)
        if first is None:
            first = dict(page)
            first["Changes"] = list(page.get("Changes", []))
        else:
            first["Changes"].extend(page.get("Changes", []))
        token = page.get("NextToken")
        if not token:
            first.pop("NextToken", None)
            return first
        kwargs["NextToken"] = token


def status_of(change_set: Mapping[str, Any]) -> dict[str, Any]:
    """The statuses of a DescribeChangeSet response."""
    return {
        "Status": change_set.get("Status", ""),
        "ExecutionStatus": change_set.get("ExecutionStatus", ""),
        "StatusReason": change_set.get("StatusReason", ""),
    }


def change_set_status(
    cfn: CloudFormationClient, stack_id: str, change_set_id: str
) -> dict[str, Any]:
    return status_of(cfn.describe_change_set(StackName=stack_id, ChangeSetName=change_set_id))


def execute_change_set(
    cfn: CloudFormationClient, stack_id: str, change_set_id: str, token: str
) -> str:
    """Execute once: the token makes a repeat a no-op; an already started execution is fine."""
    try:
        cfn.execute_change_set(
            ChangeSetName=change_set_id, StackName=stack_id, ClientRequestToken=token
        )
    except botocore.exceptions.ClientError as exc:
        if error_code(exc) != "InvalidChangeSetStatus":
            raise
        status = change_set_status(cfn, stack_id, change_set_id)["ExecutionStatus"]
        if status not in ("EXECUTE_IN_PROGRESS", "EXECUTE_COMPLETE", "EXECUTE_FAILED"):
            raise
        return str(status)
    return "EXECUTE_IN_PROGRESS"


def delete_change_set(cfn: CloudFormationClient, stack_id: str, change_set_id: str) -> bool:
    try:
        cfn.delete_change_set(StackName=stack_id, ChangeSetName=change_set_id)
    except botocore.exceptions.ClientError as exc:
        if error_code(exc) in ("ChangeSetNotFound", "ChangeSetNotFoundException"):
            return False
        raise
    return True
