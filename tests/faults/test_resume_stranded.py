"""``runs resume`` of a run no process here can run exits 2 within
``worker.stranded_after_seconds``, naming what the run needs; the run is kept."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from tests._runtime import database_for
from tests._subprocess import cfnops, worker_env

from cfnops.config import load_settings
from cfnops.durable import RunStore

HERE = Path(__file__).resolve().parent
DURABLE = HERE.parent / "durable"
pytestmark = [pytest.mark.faults, pytest.mark.slow]


def test_resume_of_a_run_needing_a_module_no_process_here_has_exits_2(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with_x = worker_env(db, modules=["durable_test_workflows"], path=[DURABLE])
    event = json.dumps({"log": str(tmp_path / "log"), "wait_seconds": 1})
    started = cfnops(
        with_x, "runs", "start", "test.three-steps", "--run-id", "needs-x", "--input", event,
        "--no-wait",
    )  # fmt: skip
    _out, err = started.communicate(timeout=120)
    assert started.returncode == 0, err
    cancelled = cfnops(with_x, "runs", "cancel", "needs-x")
    _out, err = cancelled.communicate(timeout=120)
    assert cancelled.returncode == 0, err

    without_x = worker_env(db, CFNOPS_WORKER__STRANDED_AFTER_SECONDS="3")
    began = time.monotonic()
    resumed = cfnops(without_x, "runs", "resume", "needs-x")
    _out, err = resumed.communicate(timeout=120)
    took = time.monotonic() - began
    assert resumed.returncode == 2, err
    assert "test.three-steps" in err, err
    print(f"runs resume exited 2 after {took:.1f} s (stranded_after_seconds 3)")
    with RunStore(database_for(load_settings(database_url=f"sqlite:///{db}"))) as store:
        record = store.get("needs-x")
    assert record.status == "QUEUED" and record.needs == "workflow test.three-steps", record
