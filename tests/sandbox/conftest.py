"""Helpers shared by the sandbox tests."""

from __future__ import annotations

import time
from typing import Any


def wait_for_detection(cfn: Any, stack_name: str, timeout: float = 20.0) -> dict[str, Any]:
    """Run DetectStackDrift and poll until it completes; return the final status."""
    detection_id = cfn.detect_stack_drift(StackName=stack_name)["StackDriftDetectionId"]
    deadline = time.monotonic() + timeout
    while True:
        status: dict[str, Any] = cfn.describe_stack_drift_detection_status(
            StackDriftDetectionId=detection_id
        )
        if status["DetectionStatus"] != "DETECTION_IN_PROGRESS":
            return status
        assert time.monotonic() < deadline, "drift detection did not complete"
        time.sleep(0.05)


def wait_for_change_set(cfn: Any, change_set_id: str, timeout: float = 20.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        found: dict[str, Any] = cfn.describe_change_set(ChangeSetName=change_set_id)
        if found["Status"] in ("CREATE_COMPLETE", "FAILED"):
            return found
        assert time.monotonic() < deadline, "change set creation did not finish"
        time.sleep(0.05)


def wait_for_stack(cfn: Any, stack_name: str, timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    while True:
        status: str = cfn.describe_stacks(StackName=stack_name)["Stacks"][0]["StackStatus"]
        if not status.endswith("_IN_PROGRESS"):
            return status
        assert time.monotonic() < deadline, "stack update did not finish"
        time.sleep(0.05)
