"""A job run left RUNNING with no execution behind it has a way out.

The state a full disk leaves (the job row written, the durable run never created):
``job stop`` ends it ABORTED saying why, ``job redrive`` runs it (it used to be refused
as RUNNING, and ``job stop`` only set a flag nobody read).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests._runtime import database_for
from tests._subprocess import worker_env

from cfnops.config import load_settings
from cfnops.jobs import JobStore

pytestmark = pytest.mark.slow
DEFINITION = {
    "StartAt": "A",
    "States": {"A": {"Type": "Pass", "Result": {"ok": True}, "End": True}},
}


def _cli(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cfnops", *args],
        env=worker_env(db),
        capture_output=True,
        text=True,
        timeout=120,
    )


def _stranded(db: Path, run_id: str) -> JobStore:
    store = JobStore(database_for(load_settings(database_url=f"sqlite:///{db}")))
    assert store.create_run(run_id, "net", DEFINITION, {})  # no durable run launched
    return store


def test_job_stop_ends_a_run_nothing_executes(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    store = _stranded(db, "orphan-1")
    done = _cli(db, "job", "stop", "orphan-1")
    assert done.returncode == 0, done.stderr
    assert "orphan-1: ABORTED (the run had no durable execution behind it" in done.stdout
    row = store.get_run("orphan-1")
    assert (row.status, row.error) == ("ABORTED", "States.Aborted")


def test_job_redrive_runs_a_run_nothing_executes(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    store = _stranded(db, "orphan-2")
    done = _cli(db, "job", "redrive", "orphan-2", "--output", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "SUCCEEDED", done.stdout
    assert store.get_run("orphan-2").output == {"ok": True}


def test_job_run_name_of_a_run_nothing_executes_exits_2_with_the_fix(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    _stranded(db, "orphan-3")
    definition = tmp_path / "net.asl.json"
    definition.write_text(json.dumps(DEFINITION))
    done = _cli(db, "job", "run", str(definition), "--name", "orphan-3")
    assert done.returncode == 2, done.stderr
    assert "job run 'orphan-3' is RUNNING but nothing executes it any more" in done.stderr
    assert "cfnops job redrive orphan-3" in done.stderr
