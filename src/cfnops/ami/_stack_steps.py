"""Pattern 2 building blocks: CloudFormation calls made by the rotate-stack workflow.

Each function is one idempotent step of :mod:`cfnops.ami._stack_workflow` and
returns plain JSON. UpdateStack follows the API reference (UpdateStack,
``UsePreviousTemplate``, ``Parameter.UsePreviousValue``, ``Capabilities``,
``ClientRequestToken``): every parameter other than the image one is sent as
``UsePreviousValue`` so no other value can change, and the capabilities the
stack was deployed with (plus those GetTemplateSummary reports) are passed back.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from cfnops.aws import error_code, error_message, stack_resource_drifts
from cfnops.config import IgnoreRule

if TYPE_CHECKING:
    from mypy_boto3_autoscaling import AutoScalingClient
    from mypy_boto3_autoscaling.type_defs import InstanceRefreshTypeDef
    from mypy_boto3_cloudformation import CloudFormationClient

__all__ = [
    "UPDATABLE",
    "client_token",
    "collect_failures",
    "drift_detection_status",
    "parameter_list",
    "read_stack",
    "refresh_progress",
    "roll_check",
    "stack_status",
    "start_drift_detection",
    "start_update",
    "still_drifted",
]

# Statuses from which UpdateStack is accepted (API reference, UpdateStack; User
# Guide, "Stack status codes").
UPDATABLE = frozenset(
    {
        "CREATE_COMPLETE",
        "UPDATE_COMPLETE",
        "UPDATE_ROLLBACK_COMPLETE",
        "IMPORT_COMPLETE",
        "IMPORT_ROLLBACK_COMPLETE",
    }
)
ROLLED_BACK = frozenset({"UPDATE_ROLLBACK_COMPLETE", "UPDATE_ROLLBACK_FAILED", "UPDATE_FAILED"})


def client_token(run_id: str) -> str:
    """A ``ClientRequestToken`` derived from the run id (pattern ``[a-zA-Z0-9][-a-zA-Z0-9]*``)."""
    return "cfnops-ami-" + hashlib.sha256(run_id.encode()).hexdigest()[:32]


def stack_status(cfn: CloudFormationClient, stack: str) -> str:
    """The stack's status, or ``MISSING``."""
    try:
        found = cfn.describe_stacks(StackName=stack)["Stacks"]
    except ClientError as exc:
        if error_code(exc) == "ValidationError" and "does not exist" in error_message(exc):
            return "MISSING"
        raise
    return str(found[0]["StackStatus"]) if found else "MISSING"


def read_stack(cfn: CloudFormationClient, stack: str, key: str) -> dict[str, Any]:
    """Parameters, capabilities, the image in use and the newest event id."""
    found = cfn.describe_stacks(StackName=stack)["Stacks"][0]
    params = {
        p["ParameterKey"]: str(p.get("ResolvedValue") or p.get("ParameterValue", ""))
        for p in found.get("Parameters", []) or []
    }
    capabilities = set(found.get("Capabilities", []) or [])
    try:
        summary = cfn.get_template_summary(StackName=stack)
        capabilities.update(summary.get("Capabilities", []) or [])
    except ClientError:
        pass  # not answered everywhere; the stack's own capabilities still apply
    events = cfn.describe_stack_events(StackName=stack).get("StackEvents", [])
    return {
        "StackStatus": str(found["StackStatus"]),
        "ParameterKeys": sorted(params),
        "CurrentImageId": params.get(key),
        "Capabilities": sorted(capabilities),
        "LastEventId": events[0]["EventId"] if events else None,
    }


def parameter_list(keys: list[str], key: str, image_id: str) -> list[dict[str, Any]]:
    """The image parameter with its new value; every other one ``UsePreviousValue``."""
    out: list[dict[str, Any]] = [
        {"ParameterKey": k, "UsePreviousValue": True} for k in keys if k != key
    ]
    out.append({"ParameterKey": key, "ParameterValue": image_id})
    return out


def start_update(
    cfn: CloudFormationClient,
    stack: str,
    parameters: list[dict[str, Any]],
    capabilities: list[str],
    token: str,
) -> dict[str, Any]:
    """UpdateStack; ``{"started": False}`` when CloudFormation sees nothing to update."""
    request: dict[str, Any] = {
        "StackName": stack,
        "UsePreviousTemplate": True,
        "Parameters": parameters,
        "ClientRequestToken": token,
    }
    if capabilities:
        request["Capabilities"] = capabilities
    try:
        reply = cfn.update_stack(**request)
    except ClientError as exc:
        message = error_message(exc)
        if error_code(exc) == "ValidationError" and "No updates are to be performed" in message:
            return {"started": False, "reason": message}
        if error_code(exc) == "ValidationError" and "can not be updated" in message:
            return {"started": False, "busy": True, "reason": message}
        raise
    return {"started": True, "StackId": reply.get("StackId")}


def collect_failures(
    cfn: CloudFormationClient, stack: str, since_event_id: str | None
) -> list[dict[str, str]]:
    """Resource events ``*_FAILED`` newer than ``since_event_id`` (oldest first)."""
    failures: list[dict[str, str]] = []
    for page in cfn.get_paginator("describe_stack_events").paginate(StackName=stack):
        for event in page.get("StackEvents", []):
            if since_event_id and event.get("EventId") == since_event_id:
                return list(reversed(failures))
            if (
                str(event.get("ResourceStatus", "")).endswith("_FAILED")
                and event.get("ResourceType") != "AWS::CloudFormation::Stack"
            ):
                failures.append(
                    {
                        "LogicalResourceId": str(event.get("LogicalResourceId", "")),
                        "ResourceType": str(event.get("ResourceType", "")),
                        "ResourceStatus": str(event.get("ResourceStatus", "")),
                        "ResourceStatusReason": str(event.get("ResourceStatusReason") or ""),
                    }
                )
    return list(reversed(failures))


def roll_check(
    cfn: CloudFormationClient, autoscaling: AutoScalingClient, stack: str, key: str
) -> dict[str, Any]:
    """Pattern 3's precondition: the groups that would roll, their names and known refreshes."""
    from cfnops.ami._roll import decode_template_body, plan_roll

    body = cfn.get_template(StackName=stack, TemplateStage="Original").get("TemplateBody")
    plan = plan_roll(decode_template_body(body), key)
    if not plan.ok:
        return {"ok": False, "problems": plan.problems(), "plan": plan.to_json()}
    groups: list[dict[str, Any]] = []
    for group in plan.groups:
        resource = cfn.describe_stack_resource(StackName=stack, LogicalResourceId=group.logical_id)[
            "StackResourceDetail"
        ]
        name = str(resource["PhysicalResourceId"])
        known = [r["InstanceRefreshId"] for r in _refreshes(autoscaling, name)]
        groups.append({"LogicalResourceId": group.logical_id, "GroupName": name, "Known": known})
    return {"ok": True, "problems": [], "groups": groups}


def _refreshes(autoscaling: AutoScalingClient, group: str) -> list[InstanceRefreshTypeDef]:
    found: list[InstanceRefreshTypeDef] = []
    token: str | None = None
    while True:
        request: dict[str, Any] = {"AutoScalingGroupName": group}
        if token:
            request["NextToken"] = token
        page = autoscaling.describe_instance_refreshes(**request)
        found.extend(page.get("InstanceRefreshes", []))
        token = page.get("NextToken")
        if not token:
            return found


def refresh_progress(
    autoscaling: AutoScalingClient, groups: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The refresh each group runs since the update (newest not known before), as JSON."""
    out: list[dict[str, Any]] = []
    for group in groups:
        known = set(group.get("Known") or [])
        fresh = [
            r
            for r in _refreshes(autoscaling, group["GroupName"])
            if r["InstanceRefreshId"] not in known
        ]
        if not fresh:
            out.append({"GroupName": group["GroupName"], "Status": "NotStarted"})
            continue
        latest = fresh[0]  # newest first (DescribeInstanceRefreshes)
        out.append(
            {
                "GroupName": group["GroupName"],
                "InstanceRefreshId": latest["InstanceRefreshId"],
                "Status": latest.get("Status"),
                "StatusReason": latest.get("StatusReason"),
                "PercentageComplete": latest.get("PercentageComplete"),
                "InstancesToUpdate": latest.get("InstancesToUpdate"),
            }
        )
    return out


def start_drift_detection(cfn: CloudFormationClient, stack: str) -> str:
    """DetectStackDrift: the detection id."""
    return str(cfn.detect_stack_drift(StackName=stack)["StackDriftDetectionId"])


def drift_detection_status(cfn: CloudFormationClient, detection_id: str) -> dict[str, Any]:
    """DescribeStackDriftDetectionStatus: detection status, reason and the stack's drift."""
    found = cfn.describe_stack_drift_detection_status(StackDriftDetectionId=detection_id)
    return {
        "DetectionStatus": str(found["DetectionStatus"]),
        "DetectionStatusReason": str(found.get("DetectionStatusReason") or ""),
        "StackDriftStatus": str(found.get("StackDriftStatus") or "UNKNOWN"),
    }


def still_drifted(
    cfn: CloudFormationClient, stack: str, ignore: tuple[IgnoreRule, ...] = ()
) -> list[dict[str, Any]]:
    """Each resource drift detection last found MODIFIED or DELETED (``ignore``: the
    ``[heal] ignore`` rules, as ``cfnops drift`` applies them: a MODIFIED resource whose
    every difference is ignored is in sync), with the properties not ignored."""
    out: list[dict[str, Any]] = []
    for item in stack_resource_drifts(cfn, stack):
        status = str(item.get("StackResourceDriftStatus", "NOT_CHECKED"))
        if status not in ("MODIFIED", "DELETED"):
            continue
        logical_id = str(item["LogicalResourceId"])
        resource_type = str(item.get("ResourceType", ""))
        differences = item.get("PropertyDifferences") or []
        kept = [
            {
                "Path": str(d.get("PropertyPath", "")),
                "Expected": d.get("ExpectedValue"),
                "Actual": d.get("ActualValue"),
                "DifferenceType": str(d.get("DifferenceType", "NOT_EQUAL")),
            }
            for d in differences
            if not any(
                rule.covers(stack, logical_id, resource_type, str(d.get("PropertyPath", "")))
                for rule in ignore
            )
        ]
        if status == "MODIFIED" and differences and not kept:
            continue  # every difference ignored
        out.append(
            {
                "LogicalResourceId": logical_id,
                "ResourceType": resource_type,
                "Status": status,
                "Properties": kept,
            }
        )
    return out
