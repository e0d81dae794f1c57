"""Drift reports (``cfnops drift``): detect, wait, read every resource, follow nested stacks.

Not durable: a report is read-only and cheap to repeat. Behaviour follows the
User Guide, "Detect drift on an entire stack"
(https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/detect-drift-stack.html):
only stacks in a checkable status are examined; NOT_CHECKED resources (types
drift detection does not support) are listed, never hidden.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from cfnops import logcontext, tracing
from cfnops.config import IgnoreRule
from cfnops.heal import _cfn
from cfnops.heal._accepted import AcceptedDrift, mark
from cfnops.heal._attribution import attribute, parse_time
from cfnops.heal._ignore import apply_ignore
from cfnops.heal._model import ResourceDrift, StackDriftReport
from cfnops.heal.errors import StackNotFound, WaitTimedOut

if TYPE_CHECKING:
    from mypy_boto3_cloudformation import CloudFormationClient
    from mypy_boto3_cloudtrail import CloudTrailClient


class DetectionPacer:
    """When to look at a drift detection first: when recent ones had ended.

    Polling ``DescribeStackDriftDetectionStatus`` from the first second costs a call
    per poll while nothing can have changed (a detection takes seconds on the
    sandbox, often tens of seconds on AWS). Each report records how long its
    detection took (the send time of the poll that saw it end); later reports wait
    98 % of the median of the last 16 before their first poll. A first poll that
    finds the detection still running is followed by one 10 % of that wait later
    (then every ``poll_seconds``) and records at most 1.2 times the wait, so the
    coarse poll grid never inflates the estimate; a first poll that finds it ended
    records the wait itself, and the 2 % keeps probing downwards.

    Until one has ended, the first report polls at once, then every 10 % of the
    time elapsed (at least 0.1 s, at most ``poll_seconds``), so the first estimate
    is within about 10 % of the true time; the others wait for it (at most three
    poll intervals, then they poll every ``poll_seconds``). Thread-safe: one pacer per scan.

    Why the median and the fine first estimate (wave simulation of 600 stacks at
    concurrency 48, polls per stack and mean time past each detection's end):
    2 s detections: 1.2 polls, 0.09 s, where the first report polling every
    second left 0.6 s when its second poll came just too early; 30 s varying by
    10 s (poll 5 s): 1.5 polls, 10.6 s, against 1.2 and 20 s waiting for the
    90th percentile; a fleet of 80 % 5 s and 20 % 40 s detections: 2.6 polls,
    5 s, against 1.8 and 18 s (small stacks no longer wait for the large ones).
    Polling every 5 s from the start costs ~7 polls for 2.5 s.
    """

    def __init__(
        self, window: int = 16, quantile: float = 0.5, factor: float = 0.98, up: float = 1.2
    ) -> None:
        self._seen: deque[float] = deque(maxlen=window)
        self._quantile, self._factor, self._up = quantile, factor, up
        self._cond = threading.Condition()
        self._scouting = False
        self._scout: int | None = None  # the thread of the report that polls first

    def first_wait(self) -> float:
        """The detection time to wait for (0 without history)."""
        with self._cond:
            if not self._seen:
                return 0.0
            ordered = sorted(self._seen)
        return self._factor * ordered[min(len(ordered) - 1, int(self._quantile * len(ordered)))]

    def before_first_poll(self, started: float, poll_seconds: float) -> float:
        """Seconds still to wait before polling a detection started at ``started``
        (``time.monotonic()``); may block while the first report finds out."""
        with self._cond:
            if not self._seen and not self._scouting:
                self._scouting = True
                self._scout = threading.get_ident()
                return 0.0  # this report polls at once and teaches the others
            if not self._seen:
                self._cond.wait_for(lambda: bool(self._seen), timeout=3 * poll_seconds)
        return max(0.0, self.first_wait() - (time.monotonic() - started))

    def unpaced_gap(self, elapsed: float, poll_seconds: float) -> float:
        """The pause between polls of an unpaced detection ``elapsed`` s old: for the
        first report (called from its thread), 10 % of that age until a detection has
        ended; for the others (those that stopped waiting for it), ``poll_seconds``:
        dozens of reports on the fine grid would be dozens of calls a second."""
        with self._cond:
            learning = not self._seen and self._scout == threading.get_ident()
        return min(poll_seconds, max(0.1, 0.1 * elapsed)) if learning else poll_seconds

    def after_first_poll(self, paced: float, poll_seconds: float) -> float:
        """The pause after a paced first poll (at ``paced`` s) found the detection running."""
        return min(poll_seconds, max(0.1, 0.1 * paced))

    def record(self, seconds: float, paced_miss: float | None = None) -> None:
        """A detection ended ``seconds`` after it started; ``paced_miss``: when the paced
        first poll was sent, if it found the detection still running."""
        if paced_miss is not None:
            seconds = min(seconds, self._up * paced_miss)
        with self._cond:
            self._seen.append(seconds)
            self._cond.notify_all()


def drift_report(
    cfn: CloudFormationClient,
    stack: str,
    *,
    ignore: tuple[IgnoreRule, ...] = (),
    poll_seconds: float = 2.0,
    max_attempts: int = 150,
    sleep: Callable[[float], None] = time.sleep,
    follow_nested: bool = True,
    cloudtrail: CloudTrailClient | None = None,
    accepted: Sequence[AcceptedDrift] = (),
    region: str | None = None,
    known: dict[str, Any] | None = None,
    pacer: DetectionPacer | None = None,
    account: str | None = None,
) -> StackDriftReport:
    """Detect drift on ``stack`` (and its nested stacks) and report every resource.

    ``known`` (``StackName``, ``StackId``, ``StackStatus`` from a listing just
    made) saves the DescribeStacks call. ``pacer`` (shared by the reports of a
    fleet) delays the first detection poll to when detections have been ending.

    With a ``cloudtrail`` client, each drifted resource says who changed it
    (:mod:`cfnops.heal._attribution`), looking back to the stack's last deployment.
    Active ``accepted`` drift of the stack (in ``region``, of ``account``: ``None``
    when unknown) is marked ``ACCEPTED``.
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
    state = _wait_for_detection(cfn, name, detection_id, pacer, poll_seconds, max_attempts, sleep)
    summaries = _cfn.stack_resources(cfn, stack_id)
    resources = None
    if state.get("StackDriftStatus") == "IN_SYNC":
        resources = in_sync_from_summaries(summaries)
    if resources is None:
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
                    pacer=pacer,
                    account=account,
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
        report = mark(report, accepted, dt.datetime.now(dt.UTC), region, account)
    if cloudtrail is None:
        return report
    return with_attribution(report, cloudtrail, parse_time(info.get("DeployedAt")))


def _wait_for_detection(
    cfn: CloudFormationClient,
    name: str,
    detection_id: str,
    pacer: DetectionPacer | None,
    poll_seconds: float,
    max_attempts: int,
    sleep: Callable[[float], None],
) -> dict[str, Any]:
    """Poll the detection until it ends (paced by ``pacer``); its last status."""
    started = time.monotonic()
    wait = pacer.before_first_poll(started, poll_seconds) if pacer is not None else 0.0
    paced = wait > 0
    if paced:
        sleep(wait)
    state: dict[str, Any] = {}
    first = 0.0  # when the first poll was sent (at least the wait: ``sleep`` may be a fake)
    for attempt in range(1, max_attempts + 1):
        sent = time.monotonic() - started
        first = first or max(sent, wait)
        state = _cfn.detection_status(cfn, detection_id)
        if state["DetectionStatus"] != "DETECTION_IN_PROGRESS":
            if pacer is not None:
                pacer.record(sent, first if paced and attempt > 1 else None)
            break
        if attempt == max_attempts:
            raise WaitTimedOut(name, "DescribeStackDriftDetectionStatus", attempt, state)
        sleep(_poll_gap(pacer, paced, attempt, first, started, poll_seconds))
    return state


def _poll_gap(
    pacer: DetectionPacer | None,
    paced: bool,
    attempt: int,
    first: float,
    started: float,
    poll_seconds: float,
) -> float:
    """The pause before the next poll of a detection still running."""
    if pacer is None:
        return poll_seconds
    if paced and attempt == 1:
        return pacer.after_first_poll(first, poll_seconds)
    if paced:
        return poll_seconds
    return pacer.unpaced_gap(time.monotonic() - started, poll_seconds)


def with_attribution(
    report: StackDriftReport, cloudtrail: CloudTrailClient, since: dt.datetime | None
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


def in_sync_from_summaries(
    summaries: Sequence[Mapping[str, Any]],
) -> tuple[ResourceDrift, ...] | None:
    """Every resource IN_SYNC, read from ListStackResources alone; ``None`` if not sure.

    Each ``StackResourceSummary`` carries its ``DriftInformation``
    (``StackResourceDriftStatus``, ``LastCheckTimestamp``; API reference,
    https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_StackResourceDriftInformationSummary.html).
    When the detection found the stack IN_SYNC and every resource there says
    IN_SYNC, DescribeStackResourceDrifts would only repeat it: its call is saved
    (most stacks of a fleet). Anything else — a resource NOT_CHECKED, whose reason
    only DescribeStackResourceDrifts gives, or no drift information — returns
    ``None`` and the caller reads the drifts.
    """
    out: list[ResourceDrift] = []
    for s in summaries:
        if s.get("ResourceType") == _cfn.NESTED_STACK:
            continue  # reported in the nested stack's own report
        info = s.get("DriftInformation") or {}
        if info.get("StackResourceDriftStatus") != "IN_SYNC" or not info.get("LastCheckTimestamp"):
            return None
        out.append(
            ResourceDrift(
                logical_id=str(s["LogicalResourceId"]),
                resource_type=str(s.get("ResourceType", "")),
                status="IN_SYNC",
                physical_id=s.get("PhysicalResourceId"),
            )
        )
    return tuple(out)


def with_unsupported(
    resources: tuple[ResourceDrift, ...], summaries: Sequence[Mapping[str, Any]]
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
    cfn: CloudFormationClient,
    stacks: Sequence[str],
    *,
    ignore: tuple[IgnoreRule, ...] = (),
    poll_seconds: float = 2.0,
    concurrency: int = 8,
    cloudtrail: CloudTrailClient | None = None,
    accepted: Sequence[AcceptedDrift] = (),
    region: str | None = None,
    account: str | None = None,
) -> list[StackDriftReport]:
    """Reports for several stacks, detected concurrently, in the order given."""
    pacer = DetectionPacer()

    def one(s: str) -> StackDriftReport:
        return drift_report(
            cfn,
            s,
            ignore=ignore,
            poll_seconds=poll_seconds,
            cloudtrail=cloudtrail,
            accepted=accepted,
            region=region,
            pacer=pacer,
            account=account,
        )

    if len(stacks) <= 1:
        return [one(s) for s in stacks]
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        # each stack's AWS calls under the caller's span, with its log fields
        return list(pool.map(tracing.carry(logcontext.carry(one)), stacks))


def list_stacks(cfn: CloudFormationClient) -> list[dict[str, Any]]:
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
