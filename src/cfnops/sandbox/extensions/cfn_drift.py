"""Stack drift detection for moto's CloudFormation: the four drift APIs.

Follows the AWS CloudFormation User Guide, "Detect unmanaged configuration
changes to stacks and resources with drift detection"
(https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/using-cfn-stack-drift.html),
"Detect drift on an entire CloudFormation stack" (detect-drift-stack.html),
"Detect drift on individual stack resources" (detect-drift-resource.html) and the
API reference pages DetectStackDrift, DescribeStackDriftDetectionStatus,
DescribeStackResourceDrifts and DetectStackResourceDrift:

- ``DetectStackDrift`` answers at once with an id; the detection is
  DETECTION_IN_PROGRESS for ``Delays.drift_detection`` seconds, then
  DETECTION_COMPLETE with the stack's DRIFTED / IN_SYNC status and
  ``DriftedStackResourceCount``;
- only stacks in CREATE_COMPLETE, UPDATE_COMPLETE, UPDATE_ROLLBACK_COMPLETE,
  UPDATE_ROLLBACK_FAILED (and the import equivalents) can be checked;
- one detection per stack at a time;
- resource types without a reader are NOT_CHECKED;
- ``DetectStackResourceDrift`` is synchronous and also updates the stack's status;
- "CloudFormation Drift Detection Status Change" events are emitted when a
  detection starts and completes (event-detail-stack-drift-detection-change.html),
  with ``drifted-stack-resource-count`` -1 while in progress.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import uuid
from typing import Any

from cfnops.sandbox._state import current_state
from cfnops.sandbox.extensions._cfn_deploy import (
    ExpectedResource,
    deployment_of,
    record_of,
)
from cfnops.sandbox.extensions._cfn_readers import READERS, read_actual
from cfnops.sandbox.extensions._moto import install_once, moto_module
from cfnops.sandbox.extensions._paging import page
from cfnops.sandbox.extensions.cfn_compare import diff_properties
from cfnops.sandbox.extensions.cfn_dynamic_refs import without_dynamic_references

__all__ = [
    "check_resource",
    "comparable_properties",
    "drift_checkable_statuses",
    "emit_event",
    "install",
    "recheck",
    "stack_drift_status",
]

_DETECTIONS = "cfn.detections"
_DRIFTED = frozenset({"MODIFIED", "DELETED"})


@functools.cache
def drift_checkable_statuses() -> frozenset[str]:
    """The stack statuses DetectStackDrift accepts, taken from botocore's model of StackStatus.

    The User Guide ("Detect drift on an entire CloudFormation stack") names them: a stack
    at rest after a create, update or import or their rollbacks, or UPDATE_ROLLBACK_FAILED;
    not DELETE_COMPLETE, and not ROLLBACK_COMPLETE (a failed create's end). Written as a
    rule over AWS's own list so that heal's constant (``cfnops.heal._cfn.CHECKABLE``),
    which this sandbox tests, is not its own oracle.
    """
    from moto.core.utils import get_service_model

    statuses = get_service_model("cloudformation").shape_for("StackStatus").metadata["enum"]
    at_rest = {s for s in statuses if s.endswith("_COMPLETE")}
    return frozenset(
        at_rest - {"DELETE_COMPLETE", "ROLLBACK_COMPLETE"} | {"UPDATE_ROLLBACK_FAILED"}
    )


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


# Write-only properties cannot be read back, so AWS cannot compare them; the
# sandbox keeps LaunchTemplateData (write-only in the schema) because comparing a
# launch template's data is what operators expect here (documented in docs/sandbox.md).
_KEEP_WRITE_ONLY = {"AWS::EC2::LaunchTemplate": frozenset({"LaunchTemplateData"})}


def comparable_properties(resource_type: str, props: dict[str, Any]) -> dict[str, Any]:
    # "CloudFormation doesn't support drift detection on dynamic references"
    # (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/dynamic-references-ssm.html)
    props = without_dynamic_references(props)
    try:
        from cfnops.schemas import load_table

        behaviour = load_table("us-east-1").get(resource_type)
    except Exception:  # the table is optional: compare everything
        behaviour = None
    if behaviour is None:
        return props
    keep = _KEEP_WRITE_ONLY.get(resource_type, frozenset())
    hidden = {p[0] for p in behaviour.write_only if len(p) == 1} - keep
    return {k: v for k, v in props.items() if k not in hidden}


def check_resource(stack: Any, expected: ExpectedResource) -> dict[str, Any]:
    """One ``StackResourceDrift`` for ``expected``, read from the live resource now."""
    drift: dict[str, Any] = {
        "StackId": stack.stack_id,
        "LogicalResourceId": expected.logical_id,
        "ResourceType": expected.resource_type,
        "Timestamp": _now(),
    }
    if expected.physical_id:
        drift["PhysicalResourceId"] = expected.physical_id
    if expected.resource_type not in READERS or expected.properties is None:
        drift["StackResourceDriftStatus"] = "NOT_CHECKED"
        if expected.unresolved_reason:
            drift["DriftStatusReason"] = expected.unresolved_reason
        return drift
    compared = comparable_properties(expected.resource_type, expected.properties)
    drift["ExpectedProperties"] = json.dumps(compared, sort_keys=True, default=str)
    actual = (
        read_actual(
            expected.resource_type, stack.account_id, stack.region_name, expected.physical_id
        )
        if expected.physical_id
        else None
    )
    if actual is None:
        drift["StackResourceDriftStatus"] = "DELETED"
        return drift
    shown = {k: actual[k] for k in compared if k in actual}
    drift["ActualProperties"] = json.dumps(shown, sort_keys=True, default=str)
    differences = diff_properties(expected.resource_type, compared, actual)
    drift["PropertyDifferences"] = [d.to_api() for d in differences]
    drift["StackResourceDriftStatus"] = "MODIFIED" if differences else "IN_SYNC"
    return drift


def stack_drift_status(stack_id: str) -> tuple[str, int]:
    """DRIFTED / IN_SYNC / NOT_CHECKED from the latest per-resource results, and the count."""
    record = record_of(stack_id)
    if not record.resource_drifts:
        return record.drift_status, 0
    drifted = sum(
        1 for d in record.resource_drifts.values() if d["StackResourceDriftStatus"] in _DRIFTED
    )
    return ("DRIFTED" if drifted else "IN_SYNC"), drifted


def _store_results(stack: Any, drifts: list[dict[str, Any]]) -> tuple[str, int]:
    record = record_of(stack.stack_id)
    for drift in drifts:
        record.resource_drifts[drift["LogicalResourceId"]] = drift
    status, count = stack_drift_status(stack.stack_id)
    record.drift_status = status
    record.last_check = _now()
    return status, count


def recheck(stack: Any, logical_ids: list[str]) -> None:
    """Refresh stored drift results of ``logical_ids`` that were checked before."""
    record = record_of(stack.stack_id)
    deployment = deployment_of(stack)
    fresh = [
        check_resource(stack, deployment.resources[lid])
        for lid in logical_ids
        if lid in record.resource_drifts and lid in deployment.resources
    ]
    if fresh:
        _store_results(stack, fresh)


def emit_event(event: dict[str, Any]) -> None:
    """Publish through the sandbox event bus when installed, else record it."""
    try:
        from cfnops.sandbox.extensions.events import emit
    except ImportError:  # the event bus extension is optional
        current_state().record_event(event)
        return
    emit(event)


def _drift_event(stack: Any, detection: dict[str, Any]) -> None:
    complete = detection["DetectionStatus"] != "DETECTION_IN_PROGRESS"
    emit_event(
        {
            "source": "aws.cloudformation",
            "detail-type": "CloudFormation Drift Detection Status Change",
            "account": stack.account_id,
            "region": stack.region_name,
            "resources": [stack.stack_id],
            "detail": {
                "stack-id": stack.stack_id,
                "stack-drift-detection-id": detection["StackDriftDetectionId"],
                "status-details": {
                    "stack-drift-status": detection["StackDriftStatus"],
                    "detection-status": detection["DetectionStatus"],
                },
                "drift-detection-details": {
                    "drifted-stack-resource-count": (
                        detection.get("DriftedStackResourceCount", 0) if complete else -1
                    )
                },
            },
        }
    )


def _validation_error(message: str) -> Exception:
    ValidationError = moto_module("moto.cloudformation.exceptions").ValidationError

    return ValidationError(message=message)  # type: ignore[no-any-return]


def _checkable(stack: Any) -> None:
    if stack.status not in drift_checkable_statuses():
        # AWS's wording, as seen from the AWS CLI.
        raise _validation_error(
            f"Drift detection cannot be performed on stack [{stack.stack_id}] "
            f"while it is in [{stack.status}] state"
        )


def _detections() -> dict[str, dict[str, Any]]:
    state = current_state()
    with state.lock:
        found: dict[str, dict[str, Any]] = state.extras.setdefault(_DETECTIONS, {})
        return found


def _start_detection(stack: Any, logical_ids: list[str] | None) -> str:
    _checkable(stack)
    for other in _detections().values():
        if (
            other["StackId"] == stack.stack_id
            and other["DetectionStatus"] == "DETECTION_IN_PROGRESS"
        ):
            raise _validation_error(
                f"Drift detection is already in progress for stack [{stack.name}] "
                f"(detection {other['StackDriftDetectionId']}); wait for it to complete"
            )
    deployment = deployment_of(stack)
    unknown = sorted(set(logical_ids or ()) - set(deployment.resources))
    if unknown:
        raise _validation_error(f"Resources {unknown} do not exist in stack [{stack.name}]")
    detection_id = str(uuid.uuid4())
    previous, _ = stack_drift_status(stack.stack_id)
    detection: dict[str, Any] = {
        "StackId": stack.stack_id,
        "StackDriftDetectionId": detection_id,
        "StackDriftStatus": previous,
        "DetectionStatus": "DETECTION_IN_PROGRESS",
        "DetectionStatusReason": "User Initiated",
        "Timestamp": _now(),
    }
    _detections()[detection_id] = detection
    record_of(stack.stack_id).detections.append(detection_id)
    _drift_event(stack, detection)

    def finish() -> None:
        chosen = [
            r for lid, r in deployment.resources.items() if not logical_ids or lid in logical_ids
        ]
        try:
            drifts = [check_resource(stack, r) for r in chosen]
        except Exception as exc:  # a reader met a resource shape it does not know
            detection.update(
                DetectionStatus="DETECTION_FAILED",
                DetectionStatusReason=f"Failed to detect drift: {exc}",
                Timestamp=_now(),
            )
            _drift_event(stack, detection)
            return
        status, count = _store_results(stack, drifts)
        detection.update(
            StackDriftStatus=status,
            DetectionStatus="DETECTION_COMPLETE",
            DetectionStatusReason="Drift detection has completed.",
            DriftedStackResourceCount=count,
            Timestamp=_now(),
        )
        _drift_event(stack, detection)

    current_state().schedule(current_state().delay("drift_detection"), finish)
    return detection_id


# -- response methods (bound to moto's CloudFormationResponse) -------------------------


def _backend(response: Any) -> Any:
    return response.cloudformation_backend


def _detect_stack_drift(self: Any) -> Any:
    ActionResult = moto_module("moto.core.responses").ActionResult

    stack = _backend(self).get_stack(self._get_param("StackName"))
    logical_ids = self._get_param("LogicalResourceIds") or None
    return ActionResult({"StackDriftDetectionId": _start_detection(stack, logical_ids)})


def _describe_stack_drift_detection_status(self: Any) -> Any:
    ActionResult = moto_module("moto.core.responses").ActionResult

    detection_id = self._get_param("StackDriftDetectionId")
    current_state().run_due()
    detection = _detections().get(detection_id)
    if detection is None:
        raise _validation_error(f"Drift detection with id [{detection_id}] does not exist")
    return ActionResult(dict(detection))


def _describe_stack_resource_drifts(self: Any) -> Any:
    ActionResult = moto_module("moto.core.responses").ActionResult

    stack = _backend(self).get_stack(self._get_param("StackName"))
    wanted = set(self._get_param("StackResourceDriftStatusFilters") or ())
    drifts = [
        d
        for d in record_of(stack.stack_id).resource_drifts.values()
        if not wanted or d["StackResourceDriftStatus"] in wanted
    ]
    size = int(self._get_param("MaxResults") or 100)
    return ActionResult(page(drifts, "StackResourceDrifts", self._get_param("NextToken"), size))


def _detect_stack_resource_drift(self: Any) -> Any:
    ActionResult = moto_module("moto.core.responses").ActionResult

    stack = _backend(self).get_stack(self._get_param("StackName"))
    _checkable(stack)
    logical_id = self._get_param("LogicalResourceId")
    expected = deployment_of(stack).resources.get(logical_id)
    if expected is None:
        raise _validation_error(f"Resource [{logical_id}] does not exist in stack [{stack.name}]")
    drift = check_resource(stack, expected)
    _store_results(stack, [drift])
    return ActionResult({"StackResourceDrift": drift})


def _stack_drift_information(self: Any) -> dict[str, Any]:
    record = record_of(self.stack_id)
    info: dict[str, Any] = {"StackDriftStatus": stack_drift_status(self.stack_id)[0]}
    if record.last_check is not None:
        info["LastCheckTimestamp"] = record.last_check
    return info


def _resource_drift_information(self: Any) -> dict[str, Any]:
    drift = record_of(self.stack_id).resource_drifts.get(self.logical_resource_id)
    if drift is None:
        return {"StackResourceDriftStatus": "NOT_CHECKED"}
    return {
        "StackResourceDriftStatus": drift["StackResourceDriftStatus"],
        "LastCheckTimestamp": drift["Timestamp"],
    }


def _wrap_list_stack_resources(original: Any) -> Any:
    def list_stack_resources(self: Any) -> Any:
        result = original(self)
        stack = _backend(self).get_stack(self._get_param("StackName"))
        drifts = record_of(stack.stack_id).resource_drifts
        for summary in result.result.get("StackResourceSummaries", []):
            drift = drifts.get(summary.get("LogicalResourceId"))
            info: dict[str, Any] = {"StackResourceDriftStatus": "NOT_CHECKED"}
            if drift is not None:
                info = {
                    "StackResourceDriftStatus": drift["StackResourceDriftStatus"],
                    "LastCheckTimestamp": drift["Timestamp"],
                }
            summary["DriftInformation"] = info
        return result

    return list_stack_resources


@install_once
def install() -> None:
    """Add the drift APIs to moto's CloudFormation (idempotent)."""
    responses = moto_module("moto.cloudformation.responses")
    Stack = moto_module("moto.cloudformation.models").Stack

    cls = responses.CloudFormationResponse
    cls.detect_stack_drift = _detect_stack_drift
    cls.describe_stack_drift_detection_status = _describe_stack_drift_detection_status
    cls.describe_stack_resource_drifts = _describe_stack_resource_drifts
    cls.detect_stack_resource_drift = _detect_stack_resource_drift
    cls.list_stack_resources = _wrap_list_stack_resources(cls.list_stack_resources)
    Stack.drift_information = property(_stack_drift_information)
    responses.StackResourceDTO.drift_information = property(_resource_drift_information)
