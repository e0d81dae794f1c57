"""``cfnops.jobs.testing``: the pytest fixture on the webapp-stop worked example."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from cfnops.jobs import JobNetTest
from cfnops.jobs.testing import assert_passed

pytest_plugins = ["cfnops.jobs.testing"]

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "jobnets"
DEF = EXAMPLES / "webapp-stop.asl.json"
MOCKS = EXAMPLES / "webapp-stop.mocks.json"


def test_every_worked_example_case_passes(jobnet_test: Callable[..., JobNetTest]) -> None:
    test = jobnet_test(DEF, MOCKS)
    assert test.cases == ["HappyPath", "ThrottledRunCommand", "FailedDbStop"]
    for result in test.run_all():
        assert_passed(result)


def test_throttled_run_command_is_retried(jobnet_test: Callable[..., JobNetTest]) -> None:
    result = jobnet_test(DEF, MOCKS).run("ThrottledRunCommand")
    stop_apache = [
        (c.attempt, c.returned, c.error) for c in result.calls if c.state == "StopApache"
    ]
    assert stop_apache == [(0, False, "Ssm.ThrottlingException"), (1, True, None), (2, True, None)]
    assert result.status == "SUCCEEDED"


def test_failed_db_stop_is_caught_and_notified(jobnet_test: Callable[..., JobNetTest]) -> None:
    result = jobnet_test(DEF, MOCKS).run("FailedDbStop")
    assert result.states[-3:] == ("StopCluster", "NotifyFailure", "Failed")
    assert result.error == "Rds.InvalidDbClusterStateFaultException"
    notify = [e for e in result.events if e.type == "TaskScheduled"][-1]
    assert "InvalidDbClusterStateFault" in notify.details["parameters"]


def test_assert_passed_reports_every_unmet_expectation(
    jobnet_test: Callable[..., JobNetTest],
) -> None:
    import json

    mocks = json.loads(MOCKS.read_text())
    happy = mocks["cfnops"]["StateMachines"]["webapp-stop"]["TestCases"]["HappyPath"]
    happy["outputPaths"]["$.cluster.status"] = "available"
    happy["taskCalls"]["StopApache"] = 5
    result = jobnet_test(str(DEF), mocks).run("HappyPath")
    with pytest.raises(AssertionError) as info:
        assert_passed(result)
    text = str(info.value)
    assert 'output $.cluster.status: expected "available", got "stopped"' in text
    assert "task calls of 'StopApache': expected 5, got 2" in text
