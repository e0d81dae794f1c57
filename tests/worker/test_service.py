"""The worker service run from Python, as a container's entry point would, no CLI: it
executes a queued run and returns once its stop event is set."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
from tests._runtime import database_for
from tests._subprocess import wait_for, worker_env

from cfnops.config import load_settings
from cfnops.durable import RunStore

DURABLE_TESTS = Path(__file__).resolve().parents[1] / "durable"
pytestmark = pytest.mark.slow

# The embedding docs/architecture.md shows: a stop event set by SIGTERM, the service run.
EMBEDDED = """
import signal, threading
from cfnops.runtime import Runtime
from cfnops.worker import Worker, WorkerOptions

stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
say = lambda line: print(line, flush=True)
Worker(Runtime.from_environment(), WorkerOptions(grace=1), say=say).run(stop)
print("run returned", flush=True)
"""


def test_the_service_runs_a_queued_run_and_stops_on_its_event(tmp_path: Path) -> None:
    db, log = tmp_path / "runs.sqlite", tmp_path / "steps.log"
    env = worker_env(db, modules=["durable_test_workflows"], path=[DURABLE_TESTS])
    store = RunStore(database_for(load_settings(database_url=f"sqlite:///{db}")))
    try:
        run_id = store.enqueue(
            "test.three-steps", {"log": str(log), "wait_seconds": 1}, run_id="embedded-1"
        )
        proc = subprocess.Popen(
            [sys.executable, "-c", EMBEDDED],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            wait_for(
                lambda: store.get(run_id).status not in ("QUEUED", "PENDING", "RUNNING"),
                timeout=90,
                what="the queued run to end",
            )
        finally:
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=60)
        assert store.get(run_id).status == "SUCCEEDED", (out, err)
    finally:
        store.close()
    assert proc.returncode == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("cfnops worker ") and "queue 'cfnops'" in lines[0]
    assert f"run {run_id} (test.three-steps): picked up" in lines
    assert lines[-2:] == ["stopped", "run returned"]
    steps = [line.split()[0] for line in log.read_text().splitlines()]
    assert steps == ["step1", "step2-start", "step2-end", "step3"]
