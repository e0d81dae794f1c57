"""A fresh database, and run ids that cannot be ids."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cfnops.config import load_settings
from cfnops.durable import InvalidRunId, RunStore
from cfnops.durable._engine import check_run_id
from cfnops.jobs import JobService
from cfnops.runtime import Runtime

PASS = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}


def test_queueing_a_job_run_on_a_fresh_database_creates_what_it_needs(tmp_path: Path) -> None:
    runtime = Runtime.from_settings(load_settings(database_url=f"sqlite:///{tmp_path / 'new.db'}"))
    try:
        run_id = JobService(runtime).start(PASS, {}, machine_name="fresh", queue="cfnops")
        with RunStore(runtime.database) as runs:
            assert runs.get(run_id).status == "QUEUED"
    finally:
        runtime.close()


@pytest.mark.parametrize("bad", ["", "   ", "a\nb", "tab\there", "x" * 201, "nul\x00"])
def test_empty_or_control_character_run_ids_are_refused(bad: str) -> None:
    with pytest.raises(InvalidRunId) as caught:
        check_run_id(bad)
    assert "control character" in caught.value.message


def test_runs_start_with_an_empty_run_id_exits_2(tmp_path: Path) -> None:
    env = {
        **dict(__import__("os").environ),
        "CFNOPS_DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite'}",
    }
    done = subprocess.run(
        [sys.executable, "-m", "cfnops", "runs", "start", "cfnops.jobs.execution", "--run-id", ""],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "invalid run id ''" in done.stderr
    assert "report it" not in done.stderr
