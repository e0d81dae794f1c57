"""Exactly once, whoever runs it: many processes at once, kills and outages, on real processes.

Every Task effect appends a ``start`` and an ``end`` line with its pid to a log
(``faults-tracked``); :func:`faults_functions.judge` then checks, over the whole log:

- no finished effect ever starts again;
- no run is executed by two live processes (a second pid starts an effect of a run only
  after every earlier one was killed);
- nothing is lost (every effect of every run ended).

Workers here get distinct host identities (``worker.host_id``): they judge each other by
leases, the path where an outage longer than a lease could make a live owner look dead.
"""

from __future__ import annotations

import json
import random
import select
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from faults_functions import judge, read_lines, tracked_chain
from pg_server import PostgresCluster, PostgresUnavailable, postgres_cluster
from tests._runtime import runtime_for
from tests._subprocess import wait_for, worker_env

from cfnops.config import load_settings
from cfnops.jobs import JobService

HERE = Path(__file__).resolve().parent
pytestmark = [pytest.mark.faults, pytest.mark.slow]

LEASE = 3.0  # seconds: outages below go up to twice this


class Backend:
    """A run database a test may take down and bring back."""

    def __init__(self, url: str, cluster: PostgresCluster | None, file: Path | None) -> None:
        self.url, self.cluster, self.file = url, cluster, file

    def outage(self, seconds: float) -> None:
        """The database does not answer (PostgreSQL: stopped; SQLite: every write
        waits behind an exclusive lock) for ``seconds``."""
        if self.cluster is not None:
            self.cluster.stop_immediate()
            time.sleep(seconds)
            self.cluster.start()
            return
        assert self.file is not None
        conn = sqlite3.connect(self.file, timeout=60, isolation_level=None)
        try:
            conn.execute("BEGIN EXCLUSIVE")
            time.sleep(seconds)
            conn.execute("COMMIT")
        finally:
            conn.close()


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "sqlite":
        db = tmp_path / "runs.sqlite"
        yield Backend(f"sqlite:///{db}", None, db)
        return
    try:
        with postgres_cluster() as cluster:
            yield Backend(cluster.url, cluster, None)
    except PostgresUnavailable as exc:
        pytest.fail(f"PostgreSQL is needed for this test and could not start: {exc}")


def _env(url: str, **extra: str) -> dict[str, str]:
    return worker_env(
        url,
        modules=["faults_functions"],
        path=[HERE],
        CFNOPS_WORKER__LEASE_SECONDS=str(LEASE),
        **extra,
    )


def _job_run(env: dict[str, str], path: Path, name: str, err: Path) -> subprocess.Popen[str]:
    with err.open("w") as fh:
        return subprocess.Popen(
            [sys.executable, "-m", "cfnops", "job", "run", str(path), "--name", name],
            env=env,
            stdout=subprocess.PIPE,
            stderr=fh,
            text=True,
        )


def _worker(
    env: dict[str, str], host: str | None, err: Path, concurrency: int = 6
) -> subprocess.Popen[str]:
    if host is not None:  # another host: judged by leases, not by pids
        env = {**env, "CFNOPS_WORKER__HOST_ID": host}
    with err.open("a") as fh:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cfnops", "worker", "--concurrency", str(concurrency)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=fh,
            text=True,
        )
    return proc


def _ready(proc: subprocess.Popen[str]) -> subprocess.Popen[str]:
    """``proc`` once its banner is out: a worker still starting when a fault hits is a
    start-up failure (exit 2, as it should be), not what the test is about."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 180)
    assert ready and proc.stdout.readline().startswith("cfnops worker"), "worker did not start"
    return proc


def _stop(procs: list[subprocess.Popen[str]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


def test_sixteen_job_runs_started_together_run_every_effect_once(
    backend: Backend, tmp_path: Path
) -> None:
    """16 ``cfnops job run`` at once, 9 Task effects each, two rounds, no fault at all."""
    log = tmp_path / "effects.log"
    env = _env(backend.url)
    expected: dict[str, list[str]] = {}
    started: list[subprocess.Popen[str]] = []
    try:
        _two_rounds(env, tmp_path, log, expected, started)
    finally:  # a failed assertion leaves no job run behind
        for proc in started:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    verdict = judge(read_lines(log), expected, killed={})
    assert verdict.ok(), verdict
    # no fault: not even an in-flight effect ran twice, and each run had one process
    assert verdict.in_flight_again == 0, verdict
    starts = [line for line in read_lines(log) if line.what == "start"]
    assert len(starts) == 2 * 16 * 9


def _two_rounds(
    env: dict[str, str],
    tmp_path: Path,
    log: Path,
    expected: dict[str, list[str]],
    started: list[subprocess.Popen[str]],
) -> None:
    for rnd in range(2):
        procs = []
        for n in range(16):
            name = f"r{rnd}-{n}"
            path = tmp_path / f"{name}.asl.json"
            path.write_text(json.dumps(tracked_chain(log, name, 9, 0.02)))
            expected[name] = [f"T{k}" for k in range(1, 10)]
            procs.append((name, _job_run(env, path, name, tmp_path / f"{name}.err")))
            started.append(procs[-1][1])
        for name, proc in procs:
            try:
                out, _ = proc.communicate(timeout=300)
            except subprocess.TimeoutExpired:
                proc.kill()
                pytest.fail(
                    f"job run {name} did not exit: {(tmp_path / f'{name}.err').read_text()}"
                )
            err = (tmp_path / f"{name}.err").read_text()
            assert proc.returncode == 0, (name, out, err[-2000:])
            assert f"{name}: SUCCEEDED" in out, (name, out, err[-2000:])


def test_workers_killed_and_database_outages_repeat_nothing(
    backend: Backend, tmp_path: Path
) -> None:
    """200 job runs on three workers started together; workers killed -9 at random
    points and replaced; outages of random length (0.5 s to twice the lease)."""
    rng = random.Random(20261202)
    log = tmp_path / "effects.log"
    env = _env(backend.url)
    err = tmp_path / "workers.err"
    # PostgreSQL: workers on hosts of their own, judged by leases. SQLite is one file on
    # one machine (SQLite's own advice against network filesystems): its processes share
    # a host and are judged by their pids.
    hosts = iter(f"host-{n}" if backend.cluster is not None else None for n in range(100))
    workers = [_ready(_worker(env, next(hosts), err)) for _ in range(3)]
    killed: dict[int, float] = {}
    runs = 200
    jobs = JobService(runtime_for(load_settings(database_url=backend.url)))
    expected = {}
    try:
        for n in range(runs):
            name = f"w-{n}"
            expected[name] = ["T1", "T2"]
            jobs.start(
                tracked_chain(log, name, 2, rng.uniform(0.1, 0.5)),
                {},
                machine_name="chaos",
                name=name,
                queue="cfnops",
                modules=["faults_functions"],
            )
        faults = ["kill", "outage", "kill", "outage", "kill", "outage"]
        for fault in faults:
            _wait_started(log, rng.randint(8, 20), total=2 * runs)
            if fault == "kill":
                victim = workers.pop(rng.randrange(len(workers)))
                victim.send_signal(signal.SIGKILL)
                killed[victim.pid] = time.time()
                victim.communicate(timeout=60)
                workers.append(_ready(_worker(env, next(hosts), err)))
            else:
                backend.outage(rng.uniform(0.5, 2 * LEASE))
        wait_for(lambda: _all_ended(jobs, runs), 600, "every run's end")
    finally:
        _stop(workers)
    statuses = {n: jobs.store.get_run(f"w-{n}").status for n in range(runs)}
    assert set(statuses.values()) == {"SUCCEEDED"}, {
        k: v for k, v in statuses.items() if v != "SUCCEEDED"
    }
    verdict = judge(read_lines(log), expected, killed)
    assert verdict.ok(), (verdict, err.read_text()[-3000:])


def _wait_started(log: Path, more: int, total: int = 10**9) -> None:
    """Until ``more`` further effects have started (so the next fault meets Tasks in
    flight), or all ``total`` have."""
    before = sum(1 for line in read_lines(log) if line.what == "start")
    wait_for(
        lambda: (
            sum(1 for line in read_lines(log) if line.what == "start") >= min(before + more, total)
        ),
        300,
        f"{more} more effects",
    )


def _all_ended(jobs: JobService, runs: int) -> bool:
    try:
        return all(jobs.store.get_run(f"w-{n}").status != "RUNNING" for n in range(runs))
    except Exception:  # the database coming back: look again
        return False


def test_eighty_runs_on_two_postgres_workers_through_a_kill_a_restart_and_a_long_outage(
    tmp_path: Path,
) -> None:
    """The default 30 s lease, workers on distinct hosts: a worker killed -9, a 2 s restart
    and a 45 s outage (longer than the lease), each while Tasks are in flight."""
    try:
        cluster_cm = postgres_cluster()
        cluster = cluster_cm.__enter__()
    except PostgresUnavailable as exc:
        pytest.fail(f"PostgreSQL is needed for this test and could not start: {exc}")
    try:
        backend = Backend(cluster.url, cluster, None)
        log = tmp_path / "effects.log"
        env = worker_env(cluster.url, modules=["faults_functions"], path=[HERE])
        err = tmp_path / "workers.err"
        workers = [_ready(_worker(env, f"pg-host-{n}", err)) for n in range(2)]
        killed: dict[int, float] = {}
        jobs = JobService(runtime_for(load_settings(database_url=cluster.url)))
        runs, expected = 80, {}
        try:
            for n in range(runs):
                name = f"w-{n}"
                expected[name] = ["T1", "T2", "T3"]
                jobs.start(
                    tracked_chain(log, name, 3, 1.0),
                    {},
                    machine_name="pg80",
                    name=name,
                    queue="cfnops",
                    modules=["faults_functions"],
                )
            _wait_started(log, 8, total=3 * runs)
            victim = workers.pop(0)
            victim.send_signal(signal.SIGKILL)
            killed[victim.pid] = time.time()
            victim.communicate(timeout=60)
            workers.append(_ready(_worker(env, "pg-host-9", err)))
            _wait_started(log, 8, total=3 * runs)
            backend.outage(2.0)
            _wait_started(log, 8, total=3 * runs)
            backend.outage(45.0)
            back = time.monotonic()
            wait_for(lambda: _all_ended(jobs, runs), 180, "every run's end within 3 minutes")
            print(f"80 runs ended {time.monotonic() - back:.1f} s after the 45 s outage")
        finally:
            _stop(workers)
        unfinished = {
            n: s for n in range(runs) if (s := jobs.store.get_run(f"w-{n}").status) != "SUCCEEDED"
        }
        assert not unfinished, (unfinished, err.read_text()[-3000:])
        verdict = judge(read_lines(log), expected, killed)
        assert verdict.ok(), (verdict, err.read_text()[-3000:])
    finally:
        cluster_cm.__exit__(None, None, None)


def test_a_foreground_job_run_never_executes_a_killed_job_runs_run(tmp_path: Path) -> None:
    """A job run killed -9 mid-Task; another ``job run`` on the same database finishes its
    own run and leaves the killed one alone; a worker then finishes the killed one."""
    db = tmp_path / "runs.sqlite"
    url = f"sqlite:///{db}"
    log = tmp_path / "effects.log"
    env = _env(url)
    first = tmp_path / "first.asl.json"
    first.write_text(json.dumps(tracked_chain(log, "first", 3, 2.0)))
    victim = _job_run(env, first, "first", tmp_path / "first.err")
    wait_for(lambda: any(line.run == "first" for line in read_lines(log)), 120, "first's Task")
    victim.send_signal(signal.SIGKILL)
    killed = {victim.pid: time.time()}
    victim.communicate(timeout=60)
    second = tmp_path / "second.asl.json"
    second.write_text(json.dumps(tracked_chain(log, "second", 2, 0.5)))
    other = _job_run(env, second, "second", tmp_path / "second.err")
    out, _ = other.communicate(timeout=300)
    assert other.returncode == 0 and "second: SUCCEEDED" in out, out
    foreground = {line.pid for line in read_lines(log) if line.run == "first"}
    assert other.pid not in foreground  # it never touched the killed run
    jobs = JobService(runtime_for(load_settings(database_url=url)))
    assert jobs.store.get_run("first").status == "RUNNING"
    worker = _worker(env, None, tmp_path / "worker.err")  # this host: the pid is dead
    try:
        wait_for(lambda: jobs.store.get_run("first").status != "RUNNING", 180, "the worker")
    finally:
        _stop([worker])
    assert jobs.store.get_run("first").status == "SUCCEEDED"
    by_worker = {line.pid for line in read_lines(log) if line.run == "first"} - foreground
    assert by_worker == {worker.pid}
    verdict = judge(read_lines(log), {"first": ["T1", "T2", "T3"], "second": ["T1", "T2"]}, killed)
    assert verdict.ok(), verdict
