"""``job run --name X``: the same definition and input attach to the existing run; another
definition or input is refused with exit 2 (unless --reuse), never answered with the old
run's result."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def job(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cfnops", "-o", "json", "job", "run", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_name_is_idempotent_and_refuses_another_definition(tmp_path: Path) -> None:
    env = {**os.environ, "CFNOPS_DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite'}"}
    first = tmp_path / "a.asl.json"
    first.write_text(json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}))
    other = tmp_path / "b.asl.json"
    other.write_text(
        json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "Result": 1, "End": True}}})
    )
    made = job(env, str(first), "--name", "X", "--input", '{"a": 1}')
    assert made.returncode == 0, made.stderr
    again = job(env, str(first), "--name", "X", "--input", '{"a": 1}')
    assert again.returncode == 0 and json.loads(again.stdout)["runId"] == "X"

    refused = job(env, str(other), "--name", "X", "--input", '{"a": 1}')
    assert refused.returncode == 2
    assert "already exists (SUCCEEDED) with another definition" in refused.stderr
    assert "--reuse" in refused.stderr and refused.stdout == ""

    other_input = job(env, str(first), "--name", "X", "--input", '{"a": 2}')
    assert other_input.returncode == 2 and "another input" in other_input.stderr

    reused = job(env, str(other), "--name", "X", "--input", '{"a": 1}', "--reuse")
    assert reused.returncode == 0 and json.loads(reused.stdout)["output"] == {"a": 1}
