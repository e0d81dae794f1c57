"""Counters from the run store never go backwards: a worker restarted twice, old runs
pruned in between, 12,000 runs later.

The 12,000 runs are written in bulk straight into DBOS's run tables (``workflow_status``,
``workflow_input``, ``workflow_output``: what a finished ``cfnops.run`` leaves), not
executed: the store-derived counters come from those tables, so what matters is that the
rows are there. A few real runs go through the worker as well.
"""

from __future__ import annotations

import itertools
import json
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
import sqlalchemy as sa
from tests._subprocess import cfnops, wait_for, worker_env
from tests.metrics.test_metrics import DURABLE, _can, _free_port, _samples

from cfnops.database import Database
from cfnops.durable import RunStore

pytestmark = pytest.mark.slow

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]
# counters and histograms the run store feeds (a process's own, such as step durations
# and notifications, start at 0 in a new process: Prometheus's reset, told by
# process_start_time_seconds)
STORE_FAMILIES = ("cfnops_runs_", "cfnops_run_duration_seconds", "cfnops_drift_")


def _bulk(database: Database, first: int, count: int) -> None:
    """``count`` finished ``cfnops.run`` rows: every 4th FAILED, the rest SUCCEEDED, each in
    0.2 s, created up to ``count`` ms ago (as runs that just finished)."""
    status, inputs, outputs = [], [], []
    now = int(time.time() * 1000)
    for n in range(first, first + count):
        run_id, created = f"bulk-{n:06d}", now - count + (n - first)
        failed = n % 4 == 0
        status.append(
            {"workflow_uuid": run_id, "status": "ERROR" if failed else "SUCCESS",
             "name": "cfnops.run", "created_at": created, "updated_at": created + 200}
        )  # fmt: skip
        args = {"namedArgs": {}, "positionalArgs": ["test.bulk", {"n": n}, {"modules": []}]}
        inputs.append({"workflow_uuid": run_id, "inputs": json.dumps(args)})
        outputs.append({"workflow_uuid": run_id, "output": None if failed else '"ok"'})
    md = sa.MetaData()
    tables = [
        sa.Table(name, md, autoload_with=database.engine)
        for name in ("workflow_status", "workflow_input", "workflow_output")
    ]
    with database.engine.begin() as conn:
        for table, rows in zip(tables, (status, inputs, outputs), strict=True):
            conn.execute(table.insert(), rows)


def _prune(database: Database, below: int) -> int:
    """Delete the bulk runs numbered below ``below`` (as a retention job would)."""
    with database.engine.begin() as conn:
        for table in ("workflow_input", "workflow_output", "workflow_status"):
            done = conn.execute(
                sa.text(f"DELETE FROM {table} WHERE workflow_uuid < :last"),
                {"last": f"bulk-{below:06d}"},
            )
    return int(done.rowcount)


def _store_counters(samples: Samples) -> Samples:
    return {
        key: value
        for key, value in samples.items()
        if key[0].startswith(STORE_FAMILIES) and not key[0].endswith("_created")
    }


def test_counters_only_go_up_across_restarts_pruning_and_12000_runs(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    database = Database.open(f"sqlite:///{db}")
    env = worker_env(db, modules=["durable_test_workflows"], path=[DURABLE])
    port = _free_port()

    def scrape() -> Samples:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as answer:
            return _samples(answer.read().decode())

    def start() -> subprocess.Popen[str]:
        worker = cfnops(env, "worker", "--metrics-port", str(port))
        wait_for(lambda: _can(scrape), timeout=60, what="the metrics endpoint")
        return worker

    def stop(worker: subprocess.Popen[str]) -> None:
        worker.send_signal(signal.SIGTERM)
        _, err = worker.communicate(timeout=60)
        assert worker.returncode == 0, err

    def real_runs(names: list[str]) -> None:
        with RunStore(database) as store:
            for name in names:
                store.enqueue("test.logs", {"stack": "web"}, run_id=name)

        def done() -> bool:
            with RunStore(database) as store:
                return all(store.get(n).status == "SUCCEEDED" for n in names)

        wait_for(done, timeout=90, what="the real runs")

    scrapes: list[Samples] = []
    starts: list[float] = []
    worker = start()
    try:
        real_runs(["real-1", "real-2"])
        scrapes.append(scrape())
        _bulk(database, 0, 6_000)
        scrapes.append(scrape())
        starts.append(scrapes[-1][("process_start_time_seconds", ())])
        stop(worker)

        assert _prune(database, 4_000) == 4_000  # the oldest runs leave the store
        worker = start()  # first restart
        scrapes.append(scrape())
        starts.append(scrapes[-1][("process_start_time_seconds", ())])
        _bulk(database, 6_000, 6_000)
        real_runs(["real-3"])
        with RunStore(database) as store:
            store.enqueue("test.logs", {}, run_id="parked-1", queue="parked")  # no consumer
        stop(worker)

        worker = start()  # second restart
        scrapes.append(scrape())
        starts.append(scrapes[-1][("process_start_time_seconds", ())])
    finally:
        if worker.poll() is None:
            stop(worker)

    counters = [_store_counters(s) for s in scrapes]
    for before, after in itertools.pairwise(counters):
        for key, value in before.items():
            assert after.get(key, -1) >= value, f"{key} went from {value} to {after.get(key)}"
    last, bulk = scrapes[-1], (("workflow", "test.bulk"),)
    assert last[("cfnops_runs_started_total", bulk)] == 12_000
    assert last[("cfnops_runs_finished_total", (("outcome", "FAILED"), *bulk))] == 3_000
    assert last[("cfnops_runs_finished_total", (("outcome", "SUCCEEDED"), *bulk))] == 9_000
    real = (("workflow", "test.logs"),)
    assert last[("cfnops_runs_started_total", real)] == 3  # parked-1 never started
    assert last[("cfnops_runs_finished_total", (("outcome", "SUCCEEDED"), *real))] == 3
    # durations below a second land in sub-second buckets (0.2 s each for the bulk runs)
    assert last[("cfnops_run_duration_seconds_bucket", (("le", "0.1"), *bulk))] == 0
    assert last[("cfnops_run_duration_seconds_bucket", (("le", "0.25"), *bulk))] == 12_000
    assert last[("cfnops_run_duration_seconds_sum", bulk)] == pytest.approx(2_400)
    assert last[("cfnops_run_duration_seconds_bucket", (("le", "1.0"), *real))] == 3
    assert last[("cfnops_queue_depth", (("queue", "parked"),))] == 1
    assert last[("cfnops_queue_oldest_age_seconds", (("queue", "parked"),))] > 0
    assert starts[0] < starts[1] < starts[2]  # process_*: each restart is a new process
    assert [k for k in last if k[0] == "cfnops_build_info"], "no build info"
    assert last[("process_resident_memory_bytes", ())] > 0
