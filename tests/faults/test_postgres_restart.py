"""PostgreSQL restarted (``pg_ctl stop -m immediate``) under two workers, one killed.

60 short job runs (Pass → Task 0.3 s → Pass) are queued for two workers on one
PostgreSQL server. At ~30 % done one worker is killed with SIGKILL; at ~60 % the server
is stopped in immediate mode (every connection cut) and started again. Every run must
end SUCCEEDED within three minutes of the restart, each Task's side effect applied once.

"Applied once": the database outage repeats no Task. Only a Task in flight in the worker
killed with SIGKILL may run a second time (its result was never recorded); it carries the
same idempotency token both times, so a receiver applies it once.
"""

from __future__ import annotations

import json
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from faults_functions import attempts, three_states
from pg_server import PostgresCluster
from tests._runtime import runtime_for
from tests._subprocess import worker_env

from cfnops.config import load_settings
from cfnops.jobs import JobService

HERE = Path(__file__).resolve().parent
pytestmark = [pytest.mark.faults, pytest.mark.slow, pytest.mark.postgres]

RUNS = 60
# down long enough that runs meet the outage mid-step (an "immediate" restart is ~1 s)
OUTAGE_SECONDS = 3.0


def _worker(url: str, log: Path) -> subprocess.Popen[str]:
    env = worker_env(url, modules=["faults_functions"], path=[HERE])
    # stderr to a file: an outage makes DBOS log a lot, and a full pipe nobody reads
    # would block the worker's threads (the fault would then be the test's)
    with log.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cfnops", "worker", "--concurrency", "6"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 120)
    assert ready and proc.stdout.readline().startswith("cfnops worker"), "worker did not start"
    return proc


def _statuses(jobs: JobService) -> dict[str, str]:
    found: dict[str, str] = {}
    for n in range(RUNS):
        try:
            found[f"pg-{n}"] = jobs.store.get_run(f"pg-{n}").status
        except Exception:  # the database restarting: read again next time
            return {}
    return found


def _wait_done(jobs: JobService, at_least: int, timeout: float) -> dict[str, str]:
    deadline = time.monotonic() + timeout
    while True:
        found = _statuses(jobs)
        if sum(1 for s in found.values() if s == "SUCCEEDED") >= at_least:
            return found
        assert time.monotonic() < deadline, f"not {at_least} done in {timeout} s: {found}"
        time.sleep(0.2)


def test_sixty_runs_survive_a_killed_worker_and_a_database_restart(
    pg_cluster: PostgresCluster, tmp_path: Path
) -> None:
    url = pg_cluster.url
    jobs = JobService(runtime_for(load_settings(database_url=url)))
    logs = [tmp_path / f"effects-{n}.log" for n in range(RUNS)]
    errs = [tmp_path / "worker-0.err", tmp_path / "worker-1.err"]
    workers = [_worker(url, errs[0]), _worker(url, errs[1])]
    try:
        for n, log in enumerate(logs):
            jobs.start(
                three_states(log, 0.3),
                {},
                machine_name="fault-pg",
                name=f"pg-{n}",
                queue="cfnops",
                modules=["faults_functions"],
            )
        _wait_done(jobs, RUNS * 30 // 100, 120)
        workers[0].send_signal(signal.SIGKILL)
        workers[0].communicate(timeout=30)
        _wait_done(jobs, RUNS * 60 // 100, 120)
        pg_cluster.stop_immediate()
        time.sleep(OUTAGE_SECONDS)
        pg_cluster.start()
        restarted = time.monotonic()
        final = _wait_done(jobs, RUNS, 180)
        assert time.monotonic() - restarted < 180
    finally:
        for proc in workers:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in workers:
            proc.communicate(timeout=60)
    survivor = errs[1].read_text()
    assert set(final.values()) == {"SUCCEEDED"}, final
    killed = workers[0].pid
    done = {log.name: attempts(log, "effect") for log in logs}
    assert all(done.values()), {k: v for k, v in done.items() if not v}  # none lost
    # one token per run: every attempt at a Task is the same effect (idempotent receivers)
    assert all(len({token for _, token in v}) == 1 for v in done.values()), done
    repeated = {
        name: found
        for name, found in done.items()
        if len(found) > 1 and not (len(found) == 2 and found[0][0] == killed)
    }
    assert not repeated, (repeated, survivor[-3000:])
    assert workers[1].returncode == 0, survivor[-3000:]


def test_job_run_waits_through_a_database_restart_and_reports_the_real_end(
    pg_cluster: PostgresCluster, tmp_path: Path
) -> None:
    """A blip during ``job run``: the run's id first, then its real end (exit 0), once."""
    log = tmp_path / "effects.log"
    definition = three_states(log, 0.3)
    definition["States"]["Before"] = {"Type": "Wait", "Seconds": 4, "Next": "Effect"}
    path = tmp_path / "blip.asl.json"
    path.write_text(json.dumps(definition))
    env = worker_env(pg_cluster.url, modules=["faults_functions"], path=[HERE])
    with (tmp_path / "client.err").open("w") as err:
        client = subprocess.Popen(
            [sys.executable, "-m", "cfnops", "job", "run", str(path), "--name", "blip-1"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
    try:
        deadline = time.monotonic() + 60
        while "blip-1" not in (tmp_path / "client.err").read_text():
            assert time.monotonic() < deadline, "the client did not start the run"
            time.sleep(0.1)
        pg_cluster.stop_immediate()
        time.sleep(OUTAGE_SECONDS)
        pg_cluster.start()
        out, _ = client.communicate(timeout=120)
    finally:
        if client.poll() is None:
            client.kill()
    err = (tmp_path / "client.err").read_text()
    assert client.returncode == 0, err[-3000:]
    assert "blip-1: SUCCEEDED" in out
    assert len(attempts(log, "effect")) == 1
