"""What ``runs show`` prints of a run: JSON (never Python reprs), secrets redacted."""

from __future__ import annotations

import json

from cfnops.cli.runs import _shown
from cfnops.durable import StepRecord, redacted


def _step(result: object) -> StepRecord:
    return StepRecord(1, "detect", "step", None, None, result, None)


def test_a_step_result_is_json_not_a_python_repr() -> None:
    text = _step({"ok": True, "none": None, "ids": ["a"]}).summary(200)
    assert json.loads(text) == {"ok": True, "none": None, "ids": ["a"]}
    assert "True" not in text and "None" not in text


def test_secret_looking_keys_are_redacted_at_any_depth() -> None:
    value = {
        "StackName": "web",
        "notify": {"slack_webhook_url": "https://hooks.slack.com/services/T/B/x"},
        "items": [{"ApiKey": "k-123", "name": "a"}, {"password": ""}],
        "ParameterKey": "ImageId",
    }
    shown = redacted(value)
    assert shown["notify"]["slack_webhook_url"] == "***"
    assert shown["items"][0] == {"ApiKey": "***", "name": "a"}
    assert shown["items"][1] == {"password": ""}  # nothing to hide
    assert shown["StackName"] == "web" and shown["ParameterKey"] == "ImageId"
    assert value["notify"]["slack_webhook_url"].startswith("https://")  # the input is untouched


def test_the_recorded_settings_are_summarised_in_text() -> None:
    text = _shown({"StackName": "web", "Settings": {"a": 1, "b": 2, "console_token": "t"}})
    assert json.loads(text) == {"StackName": "web", "Settings": "<3 settings: -o json shows them>"}


def test_an_input_of_the_wrong_kind_is_refused_before_a_run_exists(tmp_path: object) -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    db = Path(str(tmp_path)) / "runs.sqlite"
    env = {
        **os.environ,
        "CFNOPS_DATABASE_URL": f"sqlite:///{db}",
        "CFNOPS_WORKER__WORKFLOW_MODULES": '["cfnops.demo.workflows"]',
    }
    args = [sys.executable, "-m", "cfnops"]
    done = subprocess.run(
        [*args, "runs", "start", "cfnops.sample", "--input", "[1]"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "takes a JSON object as input, not a JSON array" in done.stderr
    listed = subprocess.run(
        [*args, "-o", "json", "runs", "list"], env=env, capture_output=True, text=True, timeout=120
    )
    assert listed.returncode == 0 and json.loads(listed.stdout) == []  # nothing was created
