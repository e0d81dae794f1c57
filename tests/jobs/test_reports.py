"""The example job-nets' Slack report (2,000 characters, balanced fences) and run notifications."""

from __future__ import annotations

import copy
import time
from typing import Any

from cfnops.config import load_settings
from cfnops.durable import Mark, Position
from cfnops.jobs import CapturingTransport, JobService
from cfnops.jobs._definition import load_definition
from cfnops.runtime import Runtime
from conftest import EXAMPLES

HOOK = "https://hooks.slack.test/report"


def _notify_failure_machine(cause: str) -> dict[str, Any]:
    """The stop net's own NotifyFailure/Failed states, fed through an Init state."""
    states = load_definition(EXAMPLES / "webapp-stop.asl.json")["States"]
    return {
        "QueryLanguage": "JSONata",
        "StartAt": "Init",
        "States": {
            "Init": {
                "Type": "Pass",
                "Next": "NotifyFailure",
                "Assign": {
                    "slack": {"endpoint": HOOK, "connectionArn": "arn:aws:events:x"},
                    "failedState": "StopInstances",
                    "failure": {"Error": "ApacheStopFailed", "Cause": cause},
                },
            },
            "NotifyFailure": copy.deepcopy(states["NotifyFailure"]),
            "Failed": copy.deepcopy(states["Failed"]),
        },
    }


def test_long_failure_report_is_cut_with_balanced_fences(
    jobs: JobService, slack: CapturingTransport
) -> None:
    cause = "journal: " + "x" * 3000
    run_id = jobs.start(_notify_failure_machine(cause), {}, machine_name="webapp-stop")
    result = jobs.wait(run_id, timeout=60)
    assert (result.status, result.error) == ("FAILED", "ApacheStopFailed")
    text = slack.json_bodies()[0]["text"]
    assert len(text) <= 2000
    assert text.count("```") % 2 == 0
    assert text.endswith("(the rest is omitted)")
    assert f"execution:webapp-stop:{run_id}" in text


def test_short_failure_report_is_whole(jobs: JobService, slack: CapturingTransport) -> None:
    run_id = jobs.start(_notify_failure_machine("exit code 1"), {}, machine_name="webapp-stop")
    jobs.wait(run_id, timeout=60)
    text = slack.json_bodies()[0]["text"]
    assert "ApacheStopFailed: exit code 1\n```" in text
    assert "omitted" not in text


def test_runs_started_with_notify_send_one_notification(jobs: JobService) -> None:
    # the console channel on, whatever settings the engine a sibling suite started has
    # (the heal suite's turn it off): the run executes with the runtime its start hands over
    settings = load_settings(database_url=jobs.settings.database_url, notify={"console": True})
    jobs = JobService(Runtime.from_settings(settings, database=jobs.runtime.database))
    definition = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}
    run_id = jobs.start(definition, {"x": 1}, machine_name="notified", options={"notify": True})
    assert jobs.wait(run_id, timeout=60).status == "SUCCEEDED"
    deadline = time.monotonic() + 30  # sent right after the run's status is stored
    notify = Position.of(Mark("notify"))
    while not (sent := [s for s in jobs.store.list_steps(run_id) if s.position == notify]):
        assert time.monotonic() < deadline, "no notification"
        time.sleep(0.05)
    [sent] = sent
    assert {"channel": "console", "ok": True} in sent.result
    quiet = jobs.start(definition, {}, machine_name="quiet")
    jobs.wait(quiet, timeout=60)
    time.sleep(0.5)
    assert [s for s in jobs.store.list_steps(quiet) if s.position == notify] == []


def _notified(jobs: JobService, monkeypatch: Any, definition: dict[str, Any]) -> Any:
    import cfnops.notify

    sent: list[Any] = []
    monkeypatch.setattr(cfnops.notify, "notify_all", lambda note, *a, **k: sent.append(note) or [])
    run_id = jobs.start(definition, {}, machine_name="failing", options={"notify": True})
    jobs.wait(run_id, timeout=60)
    deadline = time.monotonic() + 30
    while not sent:
        assert time.monotonic() < deadline, "no notification"
        time.sleep(0.05)
    return sent[0]


def test_a_fail_state_without_error_or_cause_reads_cleanly(
    jobs: JobService, monkeypatch: Any
) -> None:
    definition = {
        "StartAt": "Check",
        "States": {"Check": {"Type": "Pass", "Next": "Stop"}, "Stop": {"Type": "Fail"}},
    }
    note = _notified(jobs, monkeypatch, definition)
    assert "None" not in note.message
    assert "state Stop failed without an error name" in note.message
    assert note.message.count("```") == 2


def test_a_fail_state_with_only_an_error_names_it(jobs: JobService, monkeypatch: Any) -> None:
    definition = {"StartAt": "Stop", "States": {"Stop": {"Type": "Fail", "Error": "Bad.Input"}}}
    note = _notified(jobs, monkeypatch, definition)
    assert "state Stop failed: Bad.Input\n" in note.message
    assert "None" not in note.message
