"""Long waits report each phase change on a non-terminal stderr (``runs start``)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from tests._subprocess import cfnops, worker_env

from cfnops.cli._progress import PhaseLines


def test_runs_start_writes_a_line_per_step_on_piped_stderr(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    env = worker_env(db, modules=["cfnops.demo.workflows"])
    args = ["-o", "json", "runs", "start", "cfnops.sample", "--input", '{"wait_seconds": 2}']
    proc = cfnops(env, *[*args, "--run-id", "progress-1"])
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert json.loads(out)["runId"] == "progress-1"
    lines = [line for line in err.splitlines() if "run progress-1: " in line]
    assert any(": RUNNING" in line for line in lines), err
    assert any(": RUNNING wait" in line for line in lines), err  # the durable sleep
    assert ": SUCCEEDED" in lines[-1], err
    assert len(lines) == len(set(lines)), "a phase reported twice"


def test_phase_lines_only_on_change_and_never_on_a_terminal() -> None:
    out = io.StringIO()
    lines = PhaseLines(out)
    for phase in ("RUNNING", "RUNNING", "SUCCEEDED"):
        lines.note("run r1", phase)
    assert [line.split(" ", 1)[1] for line in out.getvalue().splitlines()] == [
        "run r1: RUNNING",
        "run r1: SUCCEEDED",
    ]

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Tty()
    PhaseLines(tty).note("run r1", "RUNNING")
    assert tty.getvalue() == ""


def test_job_run_writes_state_changes_on_piped_stderr(tmp_path: Path) -> None:
    definition = {
        "StartAt": "Prepare",
        "States": {
            "Prepare": {"Type": "Pass", "Next": "Settle"},
            "Settle": {"Type": "Wait", "Seconds": 1, "End": True},
        },
    }
    (tmp_path / "def.asl.json").write_text(json.dumps(definition))
    env = worker_env(tmp_path / "db.sqlite")
    proc = cfnops(env, "-o", "json", "job", "run", str(tmp_path / "def.asl.json"))
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    run_id = json.loads(out)["runId"]
    lines = [line.split(" ", 1)[1] for line in err.splitlines() if f"job {run_id}" in line]
    assert f"job {run_id} state Prepare: SUCCEEDED" in lines, err
    assert f"job {run_id} state Settle: SUCCEEDED" in lines, err
    assert lines[-1] == f"job {run_id}: SUCCEEDED", err
