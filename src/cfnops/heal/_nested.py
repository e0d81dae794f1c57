"""Nested stacks healed through their root.

AWS: "When detecting drift on a stack, CloudFormation doesn't detect drift on any
nested stacks belonging to that stack. Perform DetectStackDrift directly on the
nested stack itself" (API reference, DetectStackDrift); a change set created with
``IncludeNestedStacks`` holds one nested change set per nested stack, listed in
its parent as a ``Modify`` of the ``AWS::CloudFormation::Stack`` resource with the
nested ``ChangeSetId``, and "you must execute or delete nested change sets from
the root change set" (User Guide, "Change sets for nested stacks",
https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/change-sets-for-nested-stacks.html).

So a heal of a root stack detects drift on the root and on every nested stack
(by path of logical ids, ``Child`` or ``Child/Grandchild``), creates one
REVERT_DRIFT change set on the root with ``IncludeNestedStacks``, and gates each
nested change set against the detection of *its* stack (that stack's ignore
rules and accepted drift). Drifted resources of nested stacks are reported with
the path as a prefix of their logical id (``Child/Param``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cfnops.heal import _cfn
from cfnops.heal._coverage import Coverage
from cfnops.heal._policy import GateDecision

if TYPE_CHECKING:
    from mypy_boto3_cloudformation import CloudFormationClient

NESTED_STACK = _cfn.NESTED_STACK


def nested_stacks(
    cfn: CloudFormationClient, stack_id: str, prefix: str = ""
) -> list[dict[str, Any]]:
    """Every nested stack below ``stack_id`` (depth first): path, id, name, status."""
    out: list[dict[str, Any]] = []
    for logical_id, physical in _cfn.nested_stack_ids(_cfn.stack_resources(cfn, stack_id)):
        info = _cfn.describe_stack(cfn, physical)
        if info is None:
            continue
        path = f"{prefix}{logical_id}"
        out.append(
            {
                "path": path,
                "stackId": info["StackId"],
                "stackName": info["StackName"],
                "status": info["StackStatus"],
            }
        )
        out.extend(nested_stacks(cfn, info["StackId"], f"{path}/"))
    return out


def start_detections(cfn: CloudFormationClient, stack_id: str) -> list[dict[str, Any]]:
    """Start drift detection on every checkable nested stack of ``stack_id``."""
    found = nested_stacks(cfn, stack_id)
    for item in found:
        if item["status"] in _cfn.CHECKABLE and not item["status"].endswith("_IN_PROGRESS"):
            item["detectionId"] = _cfn.start_detection(cfn, item["stackId"])
    return found


def combine(
    root: dict[str, Any],
    nested: list[dict[str, Any]],
    cfn: CloudFormationClient,
    read_root: Callable[[], dict[str, Any]],
    read: Callable[[str, str], dict[str, Any]],
) -> dict[str, Any]:
    """The root's detection status merged with its nested stacks' (drift read when all end).

    ``read_root()`` and ``read(stack name, stack id)`` read one stack's drift (as
    the heal's ``read_drift``). In progress while any detection is;
    DETECTION_FAILED when any failed; DRIFTED when any stack drifted.
    """
    out = dict(root)
    if root["DetectionStatus"] != "DETECTION_COMPLETE":
        return out
    statuses = []
    for item in nested:
        if "detectionId" not in item:
            reason = f"nested stack {item['stackName']} is {item['status']}"
            statuses.append((item, {"DetectionStatus": "DETECTION_FAILED", "reason": reason}))
            continue
        got = _cfn.detection_status(cfn, str(item["detectionId"]))
        reason = f"nested stack {item['stackName']}: {got['DetectionStatusReason']}"
        statuses.append((item, {**got, "reason": reason}))
    if any(s["DetectionStatus"] == "DETECTION_IN_PROGRESS" for _, s in statuses):
        out["DetectionStatus"] = "DETECTION_IN_PROGRESS"
        return out
    failed = [s["reason"] for _, s in statuses if s["DetectionStatus"] == "DETECTION_FAILED"]
    if failed:
        out.update(DetectionStatus="DETECTION_FAILED", DetectionStatusReason="; ".join(failed))
        return out
    out.update(read_root())
    coverage = Coverage.from_json(dict(out.get("coverage") or {}))
    per_path: dict[str, Any] = {}
    drifted = list(out.get("drifted", []))
    for item, status in statuses:
        found = read(str(item["stackName"]), str(item["stackId"]))
        coverage = coverage + Coverage.from_json(dict(found["coverage"]))
        path = str(item["path"])
        per_path[path] = {
            "stackName": item["stackName"],
            "stackId": item["stackId"],
            "drifted": found["drifted"],
            "statuses": found["statuses"],
        }
        drifted.extend(
            {**d, "logicalId": f"{path}/{d['logicalId']}", "stack": item["stackName"]}
            for d in found["drifted"]
        )
        if status.get("StackDriftStatus") == "DRIFTED":
            out["StackDriftStatus"] = "DRIFTED"
    out.update(drifted=drifted, nested=per_path, coverage=coverage.to_json())
    return out


def nested_change_sets(
    cfn: CloudFormationClient, whole: dict[str, Any], prefix: str = ""
) -> dict[str, Any]:
    """Every nested change set of a described change set (all pages), by path."""
    out: dict[str, Any] = {}
    for item in whole.get("Changes", []):
        rc = item.get("ResourceChange", item)
        if rc.get("ResourceType") != NESTED_STACK or not rc.get("ChangeSetId"):
            continue
        path = f"{prefix}{rc['LogicalResourceId']}"
        sub = _cfn.describe_change_set(
            cfn, str(rc.get("PhysicalResourceId", "")), rc["ChangeSetId"]
        )
        out[path] = sub
        out.update(nested_change_sets(cfn, sub, f"{path}/"))
    return out


def is_container(change: dict[str, Any]) -> bool:
    """A parent's ``Modify`` standing for a nested change set (gated through that one)."""
    rc = change.get("ResourceChange", change)
    return rc.get("ResourceType") == NESTED_STACK and bool(rc.get("ChangeSetId"))


def _qualified(path: str, item: dict[str, Any]) -> dict[str, Any]:
    return {**item, "logicalId": f"{path}/{item['logicalId']}"} if path else item


def merge(parts: list[tuple[str, GateDecision, list[dict[str, Any]]]]) -> dict[str, Any]:
    """One decision for the root change set from each stack's (path ``""``: the root's own).

    HOLD when any part holds; SKIP when every part would only revert ignored or
    accepted drift; a mix of SKIP and EXECUTE holds too: executing the root
    change set applies every nested one, its ignored drift included.
    """
    if not parts:
        return {"decision": "SKIP", "reasons": ["no change to gate"], "matches": [], "changes": []}
    kinds = {d.decision for _, d, _ in parts}
    reasons: list[str] = []
    for path, decision, _ in parts:
        at = f"nested stack {path}: " if path else ""
        if decision.decision == "HOLD":
            reasons.extend(f"{at}{r}" for r in decision.reasons)
        elif decision.decision == "SKIP" and kinds != {"SKIP"}:
            tail = "; executing the root change set would revert it too"
            reasons.extend(f"{at}{r}{tail}" for r in decision.reasons)
    if kinds == {"SKIP"}:
        verdict, reasons = "SKIP", list(parts[0][1].reasons)
    else:
        verdict = "HOLD" if reasons else "EXECUTE"
    return {
        "decision": verdict,
        "reasons": reasons,
        "matches": [_qualified(p, m.to_json()) for p, d, _ in parts for m in d.matches],
        "changes": [_qualified(p, v) for p, _, views in parts for v in views],
    }
