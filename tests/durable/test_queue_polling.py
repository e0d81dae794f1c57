"""How often a worker polls its queues: the default queue at ``worker.queue_poll_seconds``
(its throughput ceiling is concurrency / interval), handed-over runs' queues every 2 s."""

from __future__ import annotations

import select
import signal
import sqlite3
from pathlib import Path

from tests._subprocess import cfnops, worker_env

from cfnops.durable._engine import HANDED_OVER_POLL_SECONDS

HERE = Path(__file__).resolve().parent


def _intervals(db: Path, **extra: str) -> dict[str, float]:
    env = worker_env(db, modules=["durable_test_workflows"], path=[HERE], **extra)
    worker = cfnops(env, "worker")
    try:
        assert worker.stdout is not None
        ready, _, _ = select.select([worker.stdout], [], [], 90)
        assert ready and worker.stdout.readline().startswith("cfnops worker")
        with sqlite3.connect(db) as conn:
            rows = conn.execute("SELECT name, polling_interval_sec FROM queues").fetchall()
    finally:
        worker.send_signal(signal.SIGTERM)
        _out, err = worker.communicate(timeout=60)
    assert worker.returncode == 0, err
    return {str(name): float(seconds) for name, seconds in rows}


def test_the_default_queue_polls_at_the_setting(tmp_path: Path) -> None:
    found = _intervals(tmp_path / "a.sqlite", CFNOPS_WORKER__QUEUE_POLL_SECONDS="0.5")
    assert found["cfnops"] == 0.5
    assert found["cfnops needs workflow test.three-steps"] == HANDED_OVER_POLL_SECONDS == 2.0
    assert found["cfnops needs module durable_test_workflows"] == 2.0


def test_the_default_interval(tmp_path: Path) -> None:
    # 8 runs per look every 0.05 s: a ceiling of 160 runs/s a worker (0.2 s capped it at 40)
    assert _intervals(tmp_path / "b.sqlite")["cfnops"] == 0.05
