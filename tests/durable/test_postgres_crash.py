"""kill -9 a worker on PostgreSQL mid-run: another worker resumes, nothing runs twice.

The SQLite crash tests (test_crash.py) in the multi-worker setting PostgreSQL is
for: runs are queued, a worker takes them, is killed with SIGKILL while their
second step sleeps; a second worker finds the dead executor, re-enqueues its
runs (durable/_dbos_port.py) and finishes them. Side effects are counted.
"""

from __future__ import annotations

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
pytestmark = [pytest.mark.slow, pytest.mark.postgres]

RUNS = 3


def _worker(pg_url: str) -> subprocess.Popen[str]:
    proc = cfnops(
        worker_env(pg_url, modules=["durable_test_workflows"], path=[HERE]),
        "worker",
        "--concurrency",
        str(RUNS),
    )
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 90)
    assert ready and proc.stdout.readline().startswith("cfnops worker"), "worker did not start"
    return proc


def test_sigkill_a_worker_mid_run_and_another_resumes_without_repeating(
    pg_url: str, tmp_path: Path
) -> None:
    logs = [str(tmp_path / f"log-{n}") for n in range(RUNS)]
    settings = load_settings(database_url=pg_url)
    first = _worker(pg_url)
    second: subprocess.Popen[str] | None = None
    try:
        with RunStore(database_for(settings)) as store:
            for n, log in enumerate(logs):
                event = {"log": log, "wait_seconds": 1, "step2_seconds": 6}
                store.enqueue("test.three-steps", event, run_id=f"pg-crash-{n}")
        wait_for(lambda: all(count(log, "step2-start") == 1 for log in logs), 90, "step2")
        first.send_signal(signal.SIGKILL)
        first.communicate(timeout=10)
        assert not any(count(log, "step2-end") for log in logs), "killed too late"
        second = _worker(pg_url)
        with RunStore(database_for(settings)) as store:
            deadline = time.monotonic() + 120
            while not all(store.get(f"pg-crash-{n}").status == "SUCCEEDED" for n in range(RUNS)):
                assert time.monotonic() < deadline, "the second worker did not finish: " + str(
                    [store.get(f"pg-crash-{n}") for n in range(RUNS)]
                )
                time.sleep(0.5)
            outputs = [store.get(f"pg-crash-{n}").output for n in range(RUNS)]
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                proc.communicate(timeout=60)
    assert second is not None and second.returncode == 0
    for log in logs:
        # finished before the kill: never again; in flight at the kill: once more
        assert count(log, "step1") == 1
        assert count(log, "step2-start") == 2
        assert [count(log, "step2-end"), count(log, "step3")] == [1, 1]
    assert all("three" in str(out) for out in outputs)
