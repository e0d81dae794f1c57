"""kill -9 at any point: finished steps are not repeated, waits end on time.

Each test runs ``cfnops`` in subprocesses sharing one SQLite database, kills a
process with SIGKILL at a chosen moment and lets another process recover.
"""

from __future__ import annotations

import json
import select
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from durable_test_workflows import count, times
from tests._subprocess import cfnops, wait_for, worker_env

HERE = Path(__file__).resolve().parent
pytestmark = pytest.mark.slow


def _cfnops(db: Path, *args: str) -> subprocess.Popen[str]:
    return cfnops(worker_env(db, modules=["durable_test_workflows"], path=[HERE]), *args)


def _wait_for(predicate: Callable[[], bool], timeout: float = 30) -> None:
    wait_for(predicate, timeout)


def _start(db: Path, run_id: str, event: dict[str, object]) -> subprocess.Popen[str]:
    return _cfnops(
        db, "runs", "start", "test.three-steps", "--run-id", run_id, "--input", json.dumps(event)
    )


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=10)  # reap it and close its pipes


def test_sigkill_during_wait_then_worker_resumes_at_the_deadline(tmp_path: Path) -> None:
    db, log = tmp_path / "db.sqlite", str(tmp_path / "log")
    first = _start(db, "crash-wait", {"log": log, "wait_seconds": 8})
    _wait_for(lambda: count(log, "step1") == 1)
    time.sleep(1.0)  # well inside the 8 s wait
    _kill(first)
    worker = _cfnops(db, "worker", "--concurrency", "2")
    try:
        assert worker.stdout is not None
        ready, _, _ = select.select([worker.stdout], [], [], 60)
        assert ready and worker.stdout.readline().startswith("cfnops worker")
        worker_up = time.time()
        _wait_for(lambda: count(log, "step3") == 1, timeout=60)
    finally:
        worker.send_signal(signal.SIGTERM)
        _out, err = worker.communicate(timeout=30)
    assert worker.returncode == 0, err
    assert [count(log, s) for s in ("step1", "step2-start", "step2-end", "step3")] == [1, 1, 1, 1]
    step1_done, step2_began = times(log, "step1")[0], times(log, "step2-start")[0]
    deadline = step1_done + 8
    assert step2_began >= deadline, "the wait ended before its deadline"
    # Resumed at the deadline, or at once if the worker came up after it (a loaded
    # machine may take seconds to start Python): never a poll interval later.
    assert step2_began <= max(deadline, worker_up) + 3, "the wait ended long after its deadline"


def test_sigkill_during_a_step_reruns_only_that_step(tmp_path: Path) -> None:
    db, log = tmp_path / "db.sqlite", str(tmp_path / "log")
    first = _start(db, "crash-step", {"log": log, "wait_seconds": 1, "step2_seconds": 5})
    _wait_for(lambda: count(log, "step2-start") == 1)
    _kill(first)
    assert count(log, "step2-end") == 0
    # The same command again (same run id) continues the run its killed process left.
    again = _start(db, "crash-step", {"log": log, "wait_seconds": 1, "step2_seconds": 0})
    out, err = again.communicate(timeout=60)
    assert again.returncode == 0, err
    assert '"three"' in out
    assert count(log, "step1") == 1  # finished before the kill: never repeated
    assert count(log, "step2-start") == 2  # in flight at the kill: runs again
    assert [count(log, "step2-end"), count(log, "step3")] == [1, 1]


def test_a_live_process_keeps_its_run_while_a_worker_starts(tmp_path: Path) -> None:
    db, log = tmp_path / "db.sqlite", str(tmp_path / "log")
    owner = _start(db, "shared", {"log": log, "wait_seconds": 5})
    _wait_for(lambda: count(log, "step1") == 1)
    worker = _cfnops(db, "worker")
    try:
        _out, err = owner.communicate(timeout=60)
        assert owner.returncode == 0, err
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.communicate(timeout=30)
    # The worker swept for dead executors every 0.5 s while the owner waited:
    # had it taken the run over, step2 and step3 would have run twice.
    assert [count(log, s) for s in ("step1", "step2-end", "step3")] == [1, 1, 1]
