"""A worker without a run's workflow leaves it alone; a worker with it completes it.

Module X (``durable_test_workflows``) registers ``test.three-steps``. A worker with X
starts a run and is killed with SIGKILL mid-run; a second run is queued while no worker
with X is alive. A worker WITHOUT X then runs for 10 s: it must neither fail nor claim
either run (the queued one it dequeues is handed over, untouched, to the queue of the
workers that have X). A worker with X then completes both; finished steps are not
repeated.
"""

from __future__ import annotations

import json
import select
import signal
import subprocess
import time
from pathlib import Path

import pytest
from durable_test_workflows import count
from tests._runtime import database_for
from tests._subprocess import cfnops, wait_for, worker_env

from cfnops.config import load_settings
from cfnops.durable import RunStore

HERE = Path(__file__).resolve().parent
DURABLE = HERE.parent / "durable"
pytestmark = [pytest.mark.faults, pytest.mark.slow]
X = "durable_test_workflows"


def _worker(db: Path, *, with_x: bool) -> subprocess.Popen[str]:
    env = worker_env(db, modules=[X] if with_x else [], path=[DURABLE])
    proc = cfnops(env, "worker")
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 90)
    assert ready and proc.stdout.readline().startswith("cfnops worker"), "worker did not start"
    return proc


def _stop(proc: subprocess.Popen[str]) -> tuple[str, str]:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    return proc.communicate(timeout=60)


def test_a_worker_without_the_workflow_leaves_its_runs_to_one_with_it(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    settings = load_settings(database_url=f"sqlite:///{db}")
    interrupted, queued = str(tmp_path / "interrupted.log"), str(tmp_path / "queued.log")
    with_x = _worker(db, with_x=True)
    with RunStore(database_for(settings)) as store:
        store.enqueue(
            "test.three-steps",
            {"log": interrupted, "wait_seconds": 1, "step2_seconds": 30},
            run_id="needs-x-1",
        )
    wait_for(lambda: count(interrupted, "step2-start") == 1, 90, "step2 of the first run")
    with_x.send_signal(signal.SIGKILL)
    with_x.communicate(timeout=30)
    with RunStore(database_for(settings)) as store:
        store.enqueue("test.three-steps", {"log": queued, "wait_seconds": 1}, run_id="needs-x-2")

    without_x = _worker(db, with_x=False)
    try:
        time.sleep(10)
        with RunStore(database_for(settings)) as store:
            first, second = store.get("needs-x-1"), store.get("needs-x-2")
    finally:
        _out, err_without = _stop(without_x)
    assert first.status == "RUNNING", first
    assert second.status == "QUEUED", second
    assert second.needs == "workflow test.three-steps"
    assert "cfnops worker" in second.runs_on
    assert count(queued, "step1") == 0  # the foreign worker ran nothing of it
    assert "needs-x-2 needs workflow test.three-steps" in err_without, err_without
    assert without_x.returncode == 0, err_without

    shown = subprocess.run(
        [*_cli(), "runs", "show", "needs-x-2", "--output", "json"],
        env=worker_env(db),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert json.loads(shown.stdout)["needs"] == "workflow test.three-steps", shown.stderr

    finisher = _worker(db, with_x=True)
    try:
        with RunStore(database_for(settings)) as store:
            deadline = time.monotonic() + 120
            while not all(store.get(r).status == "SUCCEEDED" for r in ("needs-x-1", "needs-x-2")):
                assert time.monotonic() < deadline, "the worker with X did not finish them"
                time.sleep(0.3)
    finally:
        _stop(finisher)
    # step1 finished before the kill: never again; step2 was in flight: once more
    assert [count(interrupted, "step1"), count(interrupted, "step2-start")] == [1, 2]
    assert [count(queued, "step1"), count(queued, "step3")] == [1, 1]


def _cli() -> list[str]:
    import sys

    return [sys.executable, "-m", "cfnops"]
