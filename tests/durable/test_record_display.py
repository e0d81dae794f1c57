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
