"""The calls a drift report makes (botocore Stubber: shapes checked against the model):
the first detection poll paced by earlier detections, DescribeStackResourceDrifts
skipped when ListStackResources already says every resource is IN_SYNC."""

from __future__ import annotations

import datetime as dt
import threading
import time
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from cfnops.heal._report import DetectionPacer, drift_report

STACK_ID = "arn:aws:cloudformation:us-east-1:123456789012:stack/web/0a1b2c3d"
NOW = dt.datetime(2026, 11, 24, 22, 0, tzinfo=dt.UTC)
KNOWN = {"StackName": "web", "StackId": STACK_ID, "StackStatus": "CREATE_COMPLETE"}


def _cfn() -> Any:
    return boto3.session.Session(
        aws_access_key_id="k", aws_secret_access_key="s", region_name="us-east-1"
    ).client("cloudformation")


def _status(stub: Stubber, detection: str, drift: str | None) -> None:
    answer: dict[str, Any] = {
        "StackId": STACK_ID,
        "StackDriftDetectionId": "d-1",
        "DetectionStatus": detection,
        "Timestamp": NOW,
    }
    if drift is not None:
        answer.update(StackDriftStatus=drift, DriftedStackResourceCount=0)
    stub.add_response(
        "describe_stack_drift_detection_status", answer, {"StackDriftDetectionId": "d-1"}
    )


def _resources(stub: Stubber, drift_status: str) -> None:
    stub.add_response(
        "list_stack_resources",
        {
            "StackResourceSummaries": [
                {
                    "LogicalResourceId": "P",
                    "PhysicalResourceId": "/web/p",
                    "ResourceType": "AWS::SSM::Parameter",
                    "LastUpdatedTimestamp": NOW,
                    "ResourceStatus": "CREATE_COMPLETE",
                    "DriftInformation": {
                        "StackResourceDriftStatus": drift_status,
                        "LastCheckTimestamp": NOW,
                    },
                }
            ]
        },
        {"StackName": STACK_ID},
    )


def test_first_poll_waits_for_when_detections_ended_and_in_sync_needs_no_drift_read() -> None:
    cfn, slept = _cfn(), []
    pacer = DetectionPacer()
    pacer.record(2.0)
    pacer.record(2.4)
    with Stubber(cfn) as stub:
        stub.add_response(
            "detect_stack_drift", {"StackDriftDetectionId": "d-1"}, {"StackName": STACK_ID}
        )
        _status(stub, "DETECTION_COMPLETE", "IN_SYNC")  # one poll: no second status call
        _resources(stub, "IN_SYNC")  # and no DescribeStackResourceDrifts
        report = drift_report(cfn, "web", known=KNOWN, pacer=pacer, sleep=slept.append)
        stub.assert_no_pending_responses()
    assert slept == [pytest.approx(0.98 * 2.4, abs=0.05)]  # 98 % of the median
    assert report.effective_status == "IN_SYNC"
    assert [(r.logical_id, r.status) for r in report.resources] == [("P", "IN_SYNC")]
    assert report.coverage.checked == 1 and report.coverage.complete


def test_without_history_it_polls_at_once_and_a_not_checked_resource_reads_the_drifts() -> None:
    cfn, slept = _cfn(), []
    pacer = DetectionPacer()
    with Stubber(cfn) as stub:
        stub.add_response(
            "detect_stack_drift", {"StackDriftDetectionId": "d-1"}, {"StackName": STACK_ID}
        )
        _status(stub, "DETECTION_IN_PROGRESS", None)
        _status(stub, "DETECTION_COMPLETE", "IN_SYNC")
        _resources(stub, "NOT_CHECKED")  # why? only DescribeStackResourceDrifts says
        stub.add_response(
            "describe_stack_resource_drifts",
            {
                "StackResourceDrifts": [
                    {
                        "StackId": STACK_ID,
                        "LogicalResourceId": "P",
                        "PhysicalResourceId": "/web/p",
                        "ResourceType": "AWS::SSM::Parameter",
                        "StackResourceDriftStatus": "NOT_CHECKED",
                        "DriftStatusReason": "the value is a secure string",
                        "Timestamp": NOW,
                    }
                ]
            },
            {"StackName": STACK_ID},
        )
        report = drift_report(cfn, "web", known=KNOWN, pacer=pacer, sleep=slept.append)
        stub.assert_no_pending_responses()
    # nothing before the first poll; then, while no detection has ended, 10 % of the
    # detection's age (at least 0.1 s) rather than poll_seconds: the first estimate
    # the others wait for is within ~10 % of the detection's time
    assert slept == [pytest.approx(0.1)]
    assert pacer.first_wait() > 0  # this detection taught the pacer
    assert report.coverage.not_checked == 1 and report.coverage.checked == 0


def test_until_a_detection_has_ended_the_others_wait_for_the_first() -> None:
    pacer = DetectionPacer()
    started = time.monotonic()
    assert pacer.before_first_poll(started, poll_seconds=5) == 0.0  # the first one polls
    waits: list[float] = []
    other = threading.Thread(target=lambda: waits.append(pacer.before_first_poll(started, 5)))
    other.start()
    time.sleep(0.2)
    assert waits == []  # blocked until the first detection is seen to end
    pacer.record(3.0)
    other.join(timeout=5)
    assert waits == [pytest.approx(0.98 * 3.0 - (time.monotonic() - started), abs=0.2)]


def test_repeated_scans_leave_no_throttling_handler_behind() -> None:
    from cfnops.aws import AwsClients
    from cfnops.config import AwsSettings
    from cfnops.heal._scan import scan

    cfn = _cfn()
    clients = AwsClients(AwsSettings(region="us-east-1"), clients={"cloudformation": cfn})

    def handlers() -> int:
        return len(
            list(
                cfn.meta.events._emitter._handlers.prefix_search(
                    "needs-retry.cloudformation.DescribeStacks"
                )
            )
        )

    before = handlers()
    with Stubber(cfn) as stub:
        for _ in range(3):  # as a schedule would, in one process
            stub.add_response("describe_stacks", {"Stacks": []}, {})
            stub.add_response("list_stack_sets", {"Summaries": []}, {"Status": "ACTIVE"})
            result = scan({"123456789012": clients}, ["us-east-1"])
            assert result.rows == ()
            assert handlers() == before
        stub.assert_no_pending_responses()


def test_a_paced_poll_that_is_too_early_is_followed_soon_and_does_not_inflate_the_pace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from cfnops.heal import _report

    clock = [1000.0]

    class FakeTime:
        @staticmethod
        def monotonic() -> float:
            return clock[0]

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += seconds

    monkeypatch.setattr(_report, "time", FakeTime)
    cfn, slept = _cfn(), []
    pacer = DetectionPacer()
    pacer.record(2.0)
    with Stubber(cfn) as stub:
        stub.add_response(
            "detect_stack_drift", {"StackDriftDetectionId": "d-1"}, {"StackName": STACK_ID}
        )
        _status(stub, "DETECTION_IN_PROGRESS", None)  # at 1.96 s
        _status(stub, "DETECTION_IN_PROGRESS", None)  # at 2.156 s: this one takes long
        _status(stub, "DETECTION_COMPLETE", "IN_SYNC")  # at 7.156 s
        _resources(stub, "IN_SYNC")
        drift_report(cfn, "web", known=KNOWN, pacer=pacer, sleep=sleep, poll_seconds=5)
        stub.assert_no_pending_responses()
    assert slept == [pytest.approx(1.96), pytest.approx(0.196), 5]  # soon after, then every 5 s
    # 7.156 s is recorded as 1.2 x 1.96 = 2.352 s: the 5 s grid does not move the pace to 7 s.
    assert pacer.first_wait() == pytest.approx(0.98 * 2.352)


def test_the_pacer_waits_for_the_median_and_learns_finely_until_one_ended() -> None:
    pacer = DetectionPacer()
    assert pacer.before_first_poll(time.monotonic(), 5) == 0.0  # this thread scouts
    gaps: list[float] = []
    other = threading.Thread(target=lambda: gaps.append(pacer.unpaced_gap(20.0, 5)))
    other.start()
    other.join()
    assert gaps == [5]  # a report that gave up waiting for the scout: poll_seconds
    assert pacer.unpaced_gap(0.0, 5) == pytest.approx(0.1)  # the scout: 10 % of the age
    assert pacer.unpaced_gap(20.0, 5) == pytest.approx(2.0)
    assert pacer.unpaced_gap(80.0, 5) == 5  # never longer than poll_seconds
    for seconds in (5.0, 5.2, 5.4, 40.0, 44.0):  # most detections short, a few long
        pacer.record(seconds)
    assert pacer.first_wait() == pytest.approx(0.98 * 5.4)  # the short ones do not wait 40 s
    assert pacer.unpaced_gap(20.0, 5) == 5  # once one has ended: poll_seconds
