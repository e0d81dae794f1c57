"""Two workers on one PostgreSQL database: pools never exceed their capacity; a dependent
job-net starts once."""

from __future__ import annotations

import importlib.util
import select
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_pools import max_overlap, pooled_definition
from tests._runtime import runtime_for
from tests._subprocess import cfnops, worker_env

from cfnops.config import load_settings
from cfnops.jobs import JobService
from cfnops.jobs._dependencies import add_dependency
from cfnops.jobs._pools import PoolStore
from cfnops.jobs._starts import monitor_options

HERE = Path(__file__).resolve().parent
pytestmark = [pytest.mark.slow, pytest.mark.postgres]
RUNS, CAPACITY = 20, 3
PASS = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}


def _pg_module() -> object:
    spec = importlib.util.spec_from_file_location(
        "pg_server", HERE.parent / "durable" / "pg_server.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    pg = _pg_module()
    try:
        with pg.postgres_server() as url:  # type: ignore[attr-defined]
            yield url
    except pg.PostgresUnavailable as exc:  # type: ignore[attr-defined]
        pytest.skip(f"PostgreSQL test skipped: {exc}")


def _workers(url: str, n: int = 2) -> list[subprocess.Popen[str]]:
    env = worker_env(url, modules=["jobs_test_functions"], path=[HERE])
    workers = [cfnops(env, "worker", "--concurrency", "10") for _ in range(n)]
    for w in workers:  # each prints its identity once it is up
        assert w.stdout is not None
        ready, _, _ = select.select([w.stdout], [], [], 90)
        assert ready and w.stdout.readline().startswith("cfnops worker"), "worker did not start"
    return workers


def _stop(workers: list[subprocess.Popen[str]]) -> None:
    for w in workers:
        w.send_signal(signal.SIGTERM)
    outputs = [w.communicate(timeout=60) for w in workers]
    assert all(w.returncode == 0 for w in workers), outputs


def test_two_workers_never_exceed_a_pool_capacity(pg_url: str, tmp_path: Path) -> None:
    settings = load_settings(database_url=pg_url)
    jobs = JobService(runtime_for(settings))
    PoolStore(jobs.store.engine).set("pg-db", CAPACITY)
    log = tmp_path / "log"
    definition = pooled_definition(str(log), "pg-db", sleep=0.4)
    workers = _workers(pg_url)
    try:
        for n in range(RUNS):
            jobs.start(
                definition,
                {"items": [f"r{n}"]},
                machine_name="pool-pg",
                name=f"pool-pg-{n}",
                queue="cfnops",
            )
        deadline = time.monotonic() + 180
        while any(jobs.store.get_run(f"pool-pg-{n}").status == "RUNNING" for n in range(RUNS)):
            assert time.monotonic() < deadline, "runs did not finish"
            time.sleep(0.5)
    finally:
        _stop(workers)
    statuses = {jobs.store.get_run(f"pool-pg-{n}").status for n in range(RUNS)}
    assert statuses == {"SUCCEEDED"}
    lines = log.read_text().splitlines()
    assert sum(line.split()[0].endswith("-start") for line in lines) == RUNS
    assert len({line.split()[2] for line in lines}) == 2, "both workers should have run Tasks"
    overlap = max_overlap(log)
    assert overlap <= CAPACITY, f"{overlap} Tasks ran at once in a pool of {CAPACITY}"
    assert overlap >= 2, "the runs never overlapped: the test did not exercise the pool"
    waits = sum(
        e["type"] == "ResourcePoolWaitStarted"
        for n in range(RUNS)
        for e in jobs.store.history(f"pool-pg-{n}")
    )
    assert waits >= 1, "no run waited for the pool"
    assert PoolStore(jobs.store.engine).get("pg-db").in_use == 0


def _logged_task(log: str, mark: str) -> dict[str, Any]:
    return {
        "StartAt": "T",
        "States": {
            "T": {
                "Type": "Task",
                "Resource": "arn:aws:states:::lambda:invoke",
                "Parameters": {
                    "FunctionName": "jobs-test-logged",
                    "Payload": {"log": log, "mark": mark, "sleep": 0.2},
                },
                "End": True,
            }
        },
    }


def test_two_workers_start_a_dependent_job_net_once_per_set(pg_url: str, tmp_path: Path) -> None:
    jobs = JobService(runtime_for(load_settings(database_url=pg_url)))
    log = tmp_path / "log"
    for machine in ("pg-dep-a1", "pg-dep-a2"):  # known job-nets
        jobs.store.create_run(f"{machine}-old", machine, PASS, {})
        jobs.store.finish_run(f"{machine}-old", "SUCCEEDED", {}, None, None)
    add_dependency(
        jobs,
        "pg-after",
        "pg-dep-b.asl.json",
        _logged_task(str(log), "b"),
        ["pg-dep-a1", "pg-dep-a2"],
        {},
        monitor_options(),
    )

    def b_runs() -> list[str]:
        return [r.run_id for r in jobs.store.list_runs(limit=500) if r.machine_name == "pg-dep-b"]

    workers = _workers(pg_url)
    try:
        for cycle in (1, 2):
            for machine in ("pg-dep-a1", "pg-dep-a2"):
                jobs.start(
                    PASS, {}, machine_name=machine, name=f"{machine}-{cycle}", queue="cfnops"
                )
            deadline = time.monotonic() + 90
            while len(b_runs()) < cycle or any(
                jobs.store.get_run(r).status == "RUNNING" for r in b_runs()
            ):
                assert time.monotonic() < deadline, f"cycle {cycle}: B did not run"
                time.sleep(0.3)
            time.sleep(3)  # several more ticks of both workers
            assert len(b_runs()) == cycle
    finally:
        _stop(workers)
    assert {jobs.store.get_run(r).status for r in b_runs()} == {"SUCCEEDED"}
    starts = [line for line in log.read_text().splitlines() if line.startswith("b-start")]
    assert len(starts) == 2, "the dependent job-net ran more than once per set"
