"""``cfnops diff`` end to end, in process (exit codes, formats, bad input)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfnops.cli.main import run

OLD = """\
Resources:
  Bucket:
    Type: AWS::S3::Bucket
    Properties: {BucketName: one}
  Queue:
    Type: AWS::SQS::Queue
    Properties: {QueueName: !Sub '${Bucket}-q', VisibilityTimeout: 30}
  Gone:
    Type: AWS::SNS::Topic
"""
NEW = """\
Resources:
  Bucket:
    Type: AWS::S3::Bucket
    Properties: {BucketName: two}
  Queue:
    Type: AWS::SQS::Queue
    Properties: {QueueName: !Sub '${Bucket}-q', VisibilityTimeout: 60}
  Web:
    Type: AWS::EC2::Instance
    Properties: {ImageId: ami-1, InstanceType: t3.micro}
"""


@pytest.fixture
def pair(tmp_path: Path) -> tuple[str, str]:
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(OLD, encoding="utf-8")
    new.write_text(NEW, encoding="utf-8")
    return str(old), str(new)


def test_json_output(pair: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["diff", *pair, "--output", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["differenceCount"] == 4
    assert {k: v["impact"] for k, v in doc["resources"].items()} == {
        "Bucket": "WILL_REPLACE",
        "Queue": "WILL_REPLACE",
        "Gone": "WILL_DESTROY",
        "Web": "WILL_CREATE",
    }
    assert doc["resources"]["Queue"]["properties"]["VisibilityTimeout"]["old"] == 30


def test_text_output_reads_without_colour(
    pair: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["diff", *pair]) == 0
    out = capsys.readouterr().out
    assert "\x1b[" not in out  # not a terminal: no colour codes
    assert "[~] AWS::S3::Bucket Bucket (requires replacement)" in out
    assert "QueueName refers to Bucket" in out
    assert "[-] AWS::SNS::Topic Gone (destroy)" in out


def test_markdown_output(pair: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--output", "markdown", "diff", *pair]) == 0
    out = capsys.readouterr().out
    assert out.startswith("### Template diff: 4 differences")
    assert "| `Bucket` | `AWS::S3::Bucket` | 🔴 requires replacement |" in out


@pytest.mark.parametrize(("level", "code"), [("replace", 1), ("destroy", 1), ("any", 1)])
def test_fail_on_trips(
    pair: tuple[str, str], level: str, code: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["diff", *pair, "--fail-on", level, "-o", "json"]) == code
    captured = capsys.readouterr()
    assert json.loads(captured.out)["differenceCount"] == 4  # report printed before the gate
    assert f"--fail-on {level} tripped" in captured.err


def test_fail_on_passes_for_identical(
    pair: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["diff", pair[0], pair[0], "--fail-on", "any"]) == 0
    assert "no differences" in capsys.readouterr().out


def test_region_selects_the_schema_table(
    pair: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["diff", *pair, "--region", "eu-west-1", "-o", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["schema"]["region"] == "eu-west-1"


@pytest.mark.parametrize(
    "argv",
    [
        ["diff", "only-one.yaml"],
        ["diff", "a.yaml", "b.yaml", "--fail-on", "sometimes"],
        ["diff", "a.yaml", "b.yaml", "-o", "xml"],
        ["diff", "a.yaml", "b.yaml", "--change-set"],
        ["diff", "a.yaml", "b.yaml", "--parameters", "novalue"],
    ],
    ids=["one-template", "bad-fail-on", "bad-output", "change-set-without-stack", "bad-param"],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(argv) == 2
    assert "error:" in capsys.readouterr().err


def test_invalid_template_exits_2_with_location(
    tmp_path: Path, pair: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("Resources:\n  A: [\n", encoding="utf-8")
    assert run(["diff", pair[0], str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:" in err and "invalid YAML/JSON" in err
