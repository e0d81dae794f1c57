"""Drift reports (``cfnops drift``): detect, wait, read every resource, follow nested stacks.

Not durable: a report is read-only and cheap to repeat. Behaviour follows the
User Guide, "Detect drift on an entire stack"
(https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/detect-drift-stack.html):
only stacks in a checkable status are examined; NOT_CHECKED resources (types
drift detection does not support) are listed, never hidden.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from cfnops.config import IgnoreRule
from cfnops.heal import _cfn
from cfnops.heal._accepted import AcceptedDrift, mark
from cfnops.heal._attribution import attribute, parse_time
from cfnops.heal._ignore import apply_ignore
from cfnops.heal._model import ResourceDrift, StackDriftReport
from cfnops.heal.errors import StackNotFound, WaitTimedOut


def drift_report(
    cfn: Any,
    stack: str,
    *,
    ignore: tuple[IgnoreRule, ...] = (),
    poll_seconds: float = 2.0,
    max_attempts: int = 150,
    sleep: Callable[[float], None] = time.sleep,
    follow_nested: bool = True,
    cloudtrail: Any = None,
    accepted: Sequence[AcceptedDrift] = (),
    region: str | None = None,
    known: dict[str, Any] | None = None,
) -> StackDriftReport:
    """Detect drift on ``stack`` (and its nested stacks) and report every resource.

    ``known`` (``StackName``, ``StackId``, ``StackStatus`` from a listing just
    made) saves the DescribeStacks call.

    With a ``cloudtrail`` client, each drifted resource says who changed it
    (:mod:`cfnops.heal._attribution`), looking back to the stack's last deployment.
    Active ``accepted`` drift of the stack (in ``region``) is marked ``ACCEPTED``.
    """
    info = known or _cfn.describe_stack(cfn, stack)
    if info is None:
        raise StackNotFound(stack)
    name, stack_id, status = info["StackName"], info["StackId"], info["StackStatus"]
    if status not in _cfn.CHECKABLE:
        return StackDriftReport(
            name,
            stack_id,
            "NOT_CHECKABLE",
            detection_status="NOT_STARTED",
            reason=f"stack status {status} does not allow drift detection",
        )
    detection_id = _cfn.start_detection(cfn, stack_id)
    state: dict[str, Any] = {}
    for attempt in range(1, max_attempts + 1):
        state = _cfn.detection_status(cfn, detection_id)
        if state["DetectionStatus"] != "DETECTION_IN_PROGRESS":
            break
        if attempt == max_attempts:
            raise WaitTimedOut(name, "DescribeStackDriftDetectionStatus", attempt, state)
        sleep(poll_seconds)
    summaries = _cfn.stack_resources(cfn, stack_id)
    resources = with_unsupported(_cfn.resource_drifts(cfn, stack_id), summaries)
    nested: list[StackDriftReport] = []
    if follow_nested:
        for _logical, nested_id in _cfn.nested_stack_ids(summaries):
            nested.append(
                drift_report(
                    cfn,
                    nested_id,
                    ignore=ignore,
                    poll_seconds=poll_seconds,
                    max_attempts=max_attempts,
                    sleep=sleep,
                    cloudtrail=cloudtrail,
                    accepted=accepted,
                    region=region,
                )
            )
    report = StackDriftReport(
        name,
        stack_id,
        str(state.get("StackDriftStatus", "UNKNOWN")),
        detection_status=str(state.get("DetectionStatus", "")),
        reason=str(state.get("DetectionStatusReason") or "") or None,
        resources=resources,
        nested=tuple(nested),
    )
    report = apply_ignore(report, ignore)
    if accepted:
        report = mark(report, accepted, dt.datetime.now(dt.UTC), region)
    if cloudtrail is None:
        return report
    return with_attribution(report, cloudtrail, parse_time(info.get("DeployedAt")))


def with_attribution(
    report: StackDriftReport, cloudtrail: Any, since: dt.datetime | None
) -> StackDriftReport:
    """The report with each drifted resource's attribution."""
    drifted = [(r.logical_id, r.physical_id) for r in report.drifted()]
    if not drifted:
        return report
    start = since or dt.datetime.now(dt.UTC) - dt.timedelta(days=90)
    found = attribute(cloudtrail, drifted, start)
    return report.with_resources(
        tuple(
            replace(r, attribution=found[r.logical_id]) if r.logical_id in found else r
            for r in report.resources
        )
    )


def with_unsupported(
    resources: tuple[ResourceDrift, ...], summaries: list[dict[str, Any]]
) -> tuple[ResourceDrift, ...]:
    """Add the stack's resources drift detection left out (types it does not support).

    AWS's DescribeStackResourceDrifts returns only resources that were checked;
    ListStackResources names every resource. Nested stacks are reported on
    their own, so their ``AWS::CloudFormation::Stack`` resource is not added.
    """
    seen = {r.logical_id for r in resources}
    extra = tuple(
        ResourceDrift(
            logical_id=str(s["LogicalResourceId"]),
            resource_type=str(s.get("ResourceType", "")),
            status="NOT_CHECKED",
            physical_id=s.get("PhysicalResourceId"),
        )
        for s in summaries
        if s["LogicalResourceId"] not in seen and s.get("ResourceType") != _cfn.NESTED_STACK
    )
    return resources + extra


def drift_reports(
    cfn: Any,
    stacks: Sequence[str],
    *,
    ignore: tuple[IgnoreRule, ...] = (),
    poll_seconds: float = 2.0,
    concurrency: int = 8,
    cloudtrail: Any = None,
    accepted: Sequence[AcceptedDrift] = (),
    region: str | None = None,
) -> list[StackDriftReport]:
    """Reports for several stacks, detected concurrently, in the order given."""

    def one(s: str) -> StackDriftReport:
        return drift_report(
            cfn,
            s,
            ignore=ignore,
            poll_seconds=poll_seconds,
            cloudtrail=cloudtrail,
            accepted=accepted,
            region=region,
        )

    if len(stacks) <= 1:
        return [one(s) for s in stacks]
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        return list(pool.map(one, stacks))


def list_stacks(cfn: Any) -> list[dict[str, Any]]:
    """Every live stack of the region (DescribeStacks, all pages) with name, status, tags."""
    out: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {}
    while True:
        page = cfn.describe_stacks(**kwargs)
        for s in page.get("Stacks", []):
            if s["StackStatus"] == "DELETE_COMPLETE":
                continue
            out.append(
                {
                    "StackName": s["StackName"],
                    "StackId": s["StackId"],
                    "StackStatus": s["StackStatus"],
                    "Tags": {t["Key"]: t["Value"] for t in s.get("Tags", [])},
                    "ParentId": s.get("ParentId"),
                }
            )
        token = page.get("NextToken")
        if not token:
            return out
        kwargs["NextToken"] = token
