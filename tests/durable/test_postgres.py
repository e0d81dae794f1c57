"""Two workers on one PostgreSQL queue: nothing runs twice, limits hold."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests._runtime import database_for

from cfnops.config import load_settings
from cfnops.durable import RunStore

HERE = Path(__file__).resolve().parent
pytestmark = [pytest.mark.slow, pytest.mark.postgres]

RUNS, PER_WORKER, GLOBAL = 20, 3, 4


def _intervals(log: Path) -> dict[str, tuple[float, float, str]]:
    starts: dict[str, tuple[float, str]] = {}
    spans: dict[str, tuple[float, float, str]] = {}
    for line in log.read_text().splitlines():
        tag, stamp = line.split()
        kind, n, pid = tag.split(":")
        if kind == "start":
            starts[n] = (float(stamp), pid)
        else:
            spans[n] = (starts[n][0], float(stamp), pid)
    return spans


def _max_overlap(spans: list[tuple[float, float]]) -> int:
    events = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans])
    best = cur = 0
    for _, delta in events:
        cur += delta
        best = max(best, cur)
    return best


def test_two_workers_share_a_queue_without_running_anything_twice(
    pg_url: str, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    env = dict(
        os.environ,
        CFNOPS_DATABASE_URL=pg_url,
        CFNOPS_WORKER__WORKFLOW_MODULES='["durable_test_workflows"]',
        PYTHONPATH=os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
    )
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "cfnops",
                "worker",
                "--concurrency",
                str(PER_WORKER),
                "--global-concurrency",
                str(GLOBAL),
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    try:
        for w in workers:  # each prints its identity once it is up and listening
            assert w.stdout is not None
            ready, _, _ = select.select([w.stdout], [], [], 90)
            assert ready and w.stdout.readline().startswith("cfnops worker"), "worker did not start"
        with RunStore(database_for(load_settings(database_url=pg_url))) as store:
            for n in range(RUNS):
                store.enqueue("test.slow", {"log": str(log), "n": n}, run_id=f"pg-{n}")
            deadline = time.monotonic() + 120
            ours = {f"pg-{n}" for n in range(RUNS)}  # the session's server has other runs
            while sum(store.get(r).status == "SUCCEEDED" for r in ours) < RUNS:
                assert time.monotonic() < deadline, "runs did not finish"
                time.sleep(0.5)
    finally:
        for w in workers:
            w.send_signal(signal.SIGTERM)
        outputs = [w.communicate(timeout=60) for w in workers]
    assert all(w.returncode == 0 for w in workers), outputs
    lines = log.read_text().splitlines()
    assert sum(line.startswith("start:") for line in lines) == RUNS, "a run executed twice"
    spans = _intervals(log)
    assert sorted(spans, key=int) == [str(n) for n in range(RUNS)]
    pids = {pid for _, _, pid in spans.values()}
    assert len(pids) == 2, "both workers should have taken runs"
    assert _max_overlap([(s, e) for s, e, _ in spans.values()]) <= GLOBAL
    for pid in pids:
        assert _max_overlap([(s, e) for s, e, p in spans.values() if p == pid]) <= PER_WORKER
