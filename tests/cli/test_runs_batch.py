"""``cfnops runs batch``: the list first (dry run), one confirmation, per-run results, audited."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests._runtime import database_for, runtime_for
from tests._subprocess import worker_env
from tests.console.test_batch import record_failed_runs

from cfnops.config import load_settings
from cfnops.durable import AuditLog
from cfnops.jobs import JobService


def _cfnops(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cfnops", *args], env=worker_env(db),
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_batch_rerun_lists_first_asks_once_and_audits_each_run(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    record_failed_runs(db, 3, "night")
    jobs = JobService(runtime_for(load_settings(database_url=f"sqlite:///{db}")))
    select = ["--filter", "status=FAILED", "--filter", "machine=nightly-load", "--run", "night-00"]
    dry = _cfnops(db, "runs", "batch", "rerun", *select, "--dry-run", "-o", "json")
    assert dry.returncode == 0, dry.stderr
    plan = json.loads(dry.stdout)
    assert (plan["dryRun"], plan["count"]) == (True, 3)
    assert plan["consequence"].startswith("Rerun 3 runs: each starts again from its start")
    assert sorted(r["runId"] for r in plan["runs"]) == ["night-00", "night-01", "night-02"]
    assert len(jobs.store.list_runs(limit=50)) == 3  # nothing done
    unasked = _cfnops(db, "runs", "batch", "rerun", *select, "--reason", "INC-7")
    assert unasked.returncode == 2 and "--yes" in unasked.stderr  # no terminal to ask on
    assert "night-01" in unasked.stdout  # the list came first
    no_reason = _cfnops(db, "runs", "batch", "rerun", *select, "--yes")
    assert no_reason.returncode == 2 and "--reason" in no_reason.stderr
    done = _cfnops(db, "runs", "batch", "rerun", *select, "--reason", "INC-7", "--yes")
    assert done.returncode == 0, done.stderr
    assert "rerun: 3 of 3 runs done" in done.stdout
    reruns = sorted(r.run_id for r in jobs.store.list_runs(limit=50) if r.source == "rerun")
    assert reruns == ["night-00-rerun1", "night-01-rerun1", "night-02-rerun1"]
    with AuditLog(database_for(load_settings(database_url=f"sqlite:///{db}"))) as audit:
        rows = [e for e in audit.list(limit=50) if e.action == "rerun"]
    assert sorted(e.target for e in rows) == ["night-00", "night-01", "night-02"]
    assert {e.reason for e in rows} == {"INC-7"}
    # Hold applies to running runs only: to none of the failed ones (exit 0, nothing done).
    none = _cfnops(db, "runs", "batch", "hold", *select, "--reason", "x")
    assert none.returncode == 0 and "applies to none" in none.stdout
    bad = _cfnops(db, "runs", "batch", "rerun", "--filter", "colour=red", "--dry-run")
    assert bad.returncode == 2 and "KEY one of status, machine, text, since, until" in bad.stderr
