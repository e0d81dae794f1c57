"""``cfnops diff --git-ref REF TEMPLATE...``: each template against its content at a git ref."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cfnops.cli.main import run

BASE = "Resources:\n  Bucket:\n    Type: AWS::S3::Bucket\n    Properties: {BucketName: one}\n"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    _git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "infra").mkdir()
    (tmp_path / "infra" / "a.yaml").write_text(BASE)
    (tmp_path / "b.yaml").write_text(
        BASE.replace("Bucket", "Queue")
        .replace("S3::Queue", "SQS::Queue")
        .replace("QueueName: one", "VisibilityTimeout: 30")
    )
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "base")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_each_template_against_its_committed_content(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "infra" / "a.yaml").write_text(BASE.replace("one", "two"))
    (repo / "b.yaml").write_text((repo / "b.yaml").read_text().replace("30", "60"))
    (repo / "c.yaml").write_text("Resources:\n  T: {Type: AWS::SNS::Topic}\n")  # not in HEAD
    (repo / "workflow.yaml").write_text("on: push\njobs: {}\n")  # not a template: skipped
    argv = ["diff", "--git-ref", "HEAD", "infra/a.yaml", "b.yaml", "c.yaml", "workflow.yaml"]
    assert run([*argv, "-o", "json"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    impacts = {
        t["template"]: {k: v["impact"] for k, v in t["diff"]["resources"].items()}
        for t in doc["templates"]
    }
    assert impacts == {
        "infra/a.yaml": {"Bucket": "WILL_REPLACE"},
        "b.yaml": {"Queue": "WILL_UPDATE"},
        "c.yaml": {"T": "WILL_CREATE"},
    }
    assert "skipped workflow.yaml: not a CloudFormation template" in captured.err
    assert run([*argv, "--fail-on", "replace"]) == 1
    assert "Bucket (WILL_REPLACE)" in capsys.readouterr().err


def test_a_safe_edit_passes_the_gate(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "b.yaml").write_text((repo / "b.yaml").read_text().replace("30", "60"))
    assert run(["diff", "--git-ref", "HEAD", "b.yaml", "--fail-on", "replace"]) == 0
    assert "1 difference (1 WILL_UPDATE)" in capsys.readouterr().out


def test_unknown_ref_is_exit_2(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["diff", "--git-ref", "no-such-ref", "b.yaml"]) == 2
    err = capsys.readouterr().err
    assert "--git-ref no-such-ref" in err and "hint:" in err


def test_git_ref_and_stack_together_is_exit_2(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["diff", "--git-ref", "HEAD", "--stack", "web", "b.yaml"]) == 2


def test_sam_without_the_translator_says_which_extra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sam = Path(__file__).resolve().parents[2] / "examples" / "sam"
    monkeypatch.setitem(sys.modules, "samtranslator", None)  # as if not installed
    assert run(["diff", str(sam / "old.yaml"), str(sam / "new.yaml")]) == 2
    assert "pip install 'cfnops[sam]'" in capsys.readouterr().err
