"""The shipped job-net inputs carry no secret: the Slack webhook is taken by reference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "jobnets"


@pytest.mark.parametrize("name", ["webapp-stop.input.json", "webapp-start.input.json"])
def test_example_input_takes_the_webhook_by_reference(name: str) -> None:
    text = (EXAMPLES / name).read_text()
    data = json.loads(text)
    assert data["slack"]["endpoint"] == "cfnops:slack"
    assert "hooks.slack.com" not in text
