"""The notification of a stack rotation that left its stack drifted, or not known in sync."""

from __future__ import annotations

from typing import Any

import pytest

from cfnops.ami._notes import drift_note
from cfnops.notify import DriftRow


def _result(outcome: str, **extra: Any) -> dict[str, Any]:
    return {"pattern": "stack-parameter", "outcome": outcome, "StackName": "web",
            "ParameterKey": "ImageId", "ImageId": "ami-new", "PreviousImageId": "ami-old",
            **extra}  # fmt: skip


def test_drifted_names_each_property_and_deleted_resource() -> None:
    still = [
        {"LogicalResourceId": "Extra", "ResourceType": "AWS::SSM::Parameter",
         "Status": "MODIFIED", "Properties": [
             {"Path": "/Value", "Expected": "declared", "Actual": "changed",
              "DifferenceType": "NOT_EQUAL"}]},
        {"LogicalResourceId": "Queue", "ResourceType": "AWS::SQS::Queue",
         "Status": "DELETED", "Properties": []},
    ]  # fmt: skip
    note = drift_note(_result("DRIFTED", Drift="DRIFTED", StillDrifted=still), "ami-rotate-1")
    assert note is not None
    assert (note.outcome, note.severity, note.stack, note.run_id) == (
        "DRIFTED", "error", "web", "ami-rotate-1"
    )  # fmt: skip
    assert note.subject == "cfnops AMI rotation: stack web DRIFTED"
    assert note.details == (
        ("Extra /Value", "expected 'declared', actual 'changed'"),
        ("Queue", "DELETED"),
    )
    assert note.drifted == (
        DriftRow("Extra", "AWS::SSM::Parameter", "MODIFIED", ("/Value",)),
        DriftRow("Queue", "AWS::SQS::Queue", "DELETED", ()),
    )
    assert note.message.splitlines() == [
        "AMI rotation of stack web set ImageId to ami-new (previous ami-old), but drift "
        "detection afterwards finds the stack still drifted.",
        "Extra /Value: expected 'declared', actual 'changed'",
        "Queue: DELETED",
    ]
    assert note.idempotency_key == "ami-rotate-1:drifted"  # one per run and outcome


def test_drift_unknown_says_why_detection_did_not_complete() -> None:
    detection = {"Status": "DETECTION_IN_PROGRESS", "Reason": "still in progress after the wait"}
    note = drift_note(_result("DRIFT_UNKNOWN", Drift="UNKNOWN", DriftDetection=detection), "r-2")
    assert note is not None
    assert (note.outcome, note.severity, note.details) == ("DRIFT_UNKNOWN", "warning", ())
    assert note.message == (
        "AMI rotation of stack web set ImageId to ami-new (previous ami-old), but drift "
        "detection afterwards did not complete (DETECTION_IN_PROGRESS: still in progress "
        "after the wait): the stack is not known to be in sync."
    )


@pytest.mark.parametrize("outcome", ["UPDATED", "UNCHANGED", "ROLLED_BACK", "STACK_NOT_READY"])
def test_other_outcomes_send_nothing_here(outcome: str) -> None:
    assert drift_note(_result(outcome, Drift="IN_SYNC"), "r-3") is None
