"""``--log-format json`` / ``CFNOPS_LOG_FORMAT=json``: JSON lines on stderr, stdout unchanged."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from cfnops.cli.main import run

TEMPLATE = "Resources:\n  B:\n    Type: AWS::S3::Bucket\n"


@pytest.fixture
def template(tmp_path: Path) -> str:
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE)
    return str(path)


def test_flag_turns_logs_into_json_and_leaves_stdout_alone(
    template: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["diff", template, template]) == 0
    plain = capsys.readouterr().out
    assert run(["--log-format", "json", "diff", template, template]) == 0
    assert capsys.readouterr().out == plain
    logging.getLogger("cfnops.test").warning("disk %s", "full")
    line = json.loads(capsys.readouterr().err.strip())
    assert {k: line[k] for k in ("level", "logger", "message")} == {
        "level": "WARNING",
        "logger": "cfnops.test",
        "message": "disk full",
    }
    run(["diff", template, template])  # back to text for the other tests
    capsys.readouterr()


def test_environment_variable_and_flag_after_the_command(
    template: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CFNOPS_LOG_FORMAT", "json")
    assert run(["diff", template, template]) == 0
    logging.getLogger("cfnops.test").warning("from env")
    assert json.loads(capsys.readouterr().err.strip())["message"] == "from env"
    monkeypatch.delenv("CFNOPS_LOG_FORMAT")
    assert run(["diff", template, template, "--log-format", "json"]) == 0
    logging.getLogger("cfnops.test").warning("after")
    assert json.loads(capsys.readouterr().err.strip())["message"] == "after"
    run(["diff", template, template])
    capsys.readouterr()


def test_bad_values_are_exit_2(
    template: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run(["--log-format", "xml", "diff", template, template]) == 2
    assert "--log-format" in capsys.readouterr().err
    monkeypatch.setenv("CFNOPS_LOG_FORMAT", "yaml")
    assert run(["diff", template, template]) == 2
    assert "CFNOPS_LOG_FORMAT" in capsys.readouterr().err
