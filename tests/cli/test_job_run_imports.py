"""A ``job run --output json`` loads no Rich: nothing it prints is drawn by it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests._subprocess import worker_env

PASS = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}


def test_a_json_job_run_imports_no_rich(tmp_path: Path) -> None:
    definition = tmp_path / "pass.json"
    definition.write_text(json.dumps(PASS), encoding="utf-8")
    argv = ["-X", "importtime", "-m", "cfnops", "--output", "json", "job", "run", str(definition)]
    done = subprocess.run(
        [sys.executable, *argv],
        env=worker_env(tmp_path / "db.sqlite"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["status"] == "SUCCEEDED"
    loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert not sorted(m for m in loaded if m.split(".")[0] == "rich")


def test_a_text_job_run_still_draws_its_result(tmp_path: Path) -> None:
    definition = tmp_path / "pass.json"
    definition.write_text(json.dumps(PASS), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "cfnops", "job", "run", str(definition)],
        env=worker_env(tmp_path / "db.sqlite"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "SUCCEEDED" in done.stdout
