"""Runs DBOS executes while the engine is still launching find their runtime.

A worker restarted under its name (``--id``) gets its previous incarnation's
runs back from DBOS's start-up recovery, which may execute them before
``Engine.start_process`` has returned. They used to fail for good with "runs
only in a launched cfnops.durable.Engine" (seen on CI: a PostgreSQL worker took
over a killed one's runs and one of three ended FAILED). Here the window is
widened on purpose: the restarted worker sleeps 2 s inside launch, after DBOS
has started, before its own recovery sweep.
"""

from __future__ import annotations

import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from durable_test_workflows import count
from tests._runtime import database_for
from tests._subprocess import wait_for, worker_env

from cfnops.config import load_settings
from cfnops.durable import RunStore

HERE = Path(__file__).resolve().parent
pytestmark = [pytest.mark.slow]

RUNS = 3
ENDED = ("SUCCEEDED", "FAILED", "CANCELLED")
# the worker, with its launch held open between DBOS.launch() and its own recovery
SLOW_LAUNCH = """
import sys, time
from cfnops.durable import _engine
recover = _engine.Engine.recover
def held_open(self):
    time.sleep(2)
    recover(self)
_engine.Engine.recover = held_open
from cfnops.cli.main import run
sys.exit(run(sys.argv[1:]))
"""


def _worker(env: dict[str, str], *prefix: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, *prefix, "worker", "--id", "restarted", "--concurrency", str(RUNS)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 90)
    assert ready and proc.stdout.readline().startswith("cfnops worker"), "worker did not start"
    return proc


def test_runs_recovered_during_launch_finish(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    env = worker_env(
        db,
        modules=["durable_test_workflows"],
        path=[HERE],
        CFNOPS_WORKER__LEASE_SECONDS="600",  # only start-up recovery hands the runs back
    )
    logs = [str(tmp_path / f"log-{n}") for n in range(RUNS)]
    first = _worker(env, "-m", "cfnops")
    second: subprocess.Popen[str] | None = None
    try:
        with RunStore(database_for(load_settings(database_url=f"sqlite:///{db}"))) as store:
            for n, log in enumerate(logs):
                event = {"log": log, "wait_seconds": 1, "step2_seconds": 4}
                store.enqueue("test.three-steps", event, run_id=f"launch-{n}")
        wait_for(lambda: all(count(log, "step2-start") == 1 for log in logs), 90, "step2")
        first.send_signal(signal.SIGKILL)
        first.communicate(timeout=10)
        second = _worker(env, "-c", SLOW_LAUNCH)
        with RunStore(database_for(load_settings(database_url=f"sqlite:///{db}"))) as store:
            ids = [f"launch-{n}" for n in range(RUNS)]
            wait_for(
                lambda: all(store.get(r).status in ENDED for r in ids),
                120,
                "the recovered runs to end",
            )
            ended = {r: (store.get(r).status, store.get(r).error) for r in ids}
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                proc.communicate(timeout=60)
    assert ended == {r: ("SUCCEEDED", None) for r in ids}
    for log in logs:
        assert count(log, "step1") == 1  # finished before the kill: not again
