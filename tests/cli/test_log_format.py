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


def test_json_mode_turns_every_stderr_line_into_an_object(
    template: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    from cfnops.logcontext import bound

    assert run(["--log-format", "json", "diff", template, template]) == 0
    capsys.readouterr()
    try:
        with bound(run_id="r-7"):
            sys.stderr.write("╭─ panel ─╮\n│ \x1b[1mbold\x1b[0m │\n╰─────────╯\n\n")
            sys.stderr.write("half a ")
            sys.stderr.write("line\n")
        sys.stderr.write('{"already": "json"}\n')
        sys.stderr.write("no newline yet")
        sys.stderr.flush()
        lines = capsys.readouterr().err.splitlines()
        records = [json.loads(line) for line in lines]
        assert [r.get("message") for r in records] == [
            "╭─ panel ─╮\n│ bold │\n╰─────────╯",  # one write, one record, no colour codes
            "half a line",
            None,
            "no newline yet",
        ]
        assert [r.get("run_id") for r in records] == ["r-7", "r-7", None, None]
        assert records[2] == {"already": "json"}
        assert {r.get("logger") for r in records} == {"cfnops.stderr", None}
    finally:
        run(["diff", template, template])  # back to text: stderr is the plain stream again
        capsys.readouterr()
    from cfnops.cli._json_stderr import installed

    assert not installed()


def test_json_mode_reports_errors_and_usage_errors_as_one_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "nope.yaml")
    try:
        code = run(["--log-format", "json", "diff", missing, missing])
        err = capsys.readouterr().err
        assert code != 0
        (record,) = [json.loads(line) for line in err.splitlines()]
        assert record["level"] == "ERROR" and record["logger"] == "cfnops.cli"
        assert "nope.yaml" in record["message"] and record["exit_code"] == code
        assert run(["--log-format", "json", "diff", "--no-such-flag"]) == 2
        (usage,) = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
        assert usage["level"] == "ERROR" and "--no-such-flag" in usage["message"]
    finally:
        run(["diff", missing, missing])
        capsys.readouterr()


def test_text_lines_name_the_run_a_record_is_about() -> None:
    from cfnops.cli._logging import OneLineFormatter

    formatter = OneLineFormatter("%(levelname)s %(name)s: %(message)s")
    record = logging.LogRecord(
        "dbos", logging.ERROR, __file__, 1, "Exception encountered:", (), None
    )
    assert formatter.format(record) == "ERROR dbos: Exception encountered:"
    record.run_id = "heal-web-1"
    assert formatter.format(record) == "ERROR dbos: Exception encountered: [run heal-web-1]"
    named = logging.LogRecord("x", logging.WARNING, __file__, 1, "run %s stopped", ("r-1",), None)
    named.run_id = "r-1"
    assert formatter.format(named) == "WARNING x: run r-1 stopped"  # named once only
