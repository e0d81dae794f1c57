"""A worker killed with SIGKILL and restarted under the same name (``--id``).

The restarted worker owns its previous incarnation's runs: DBOS's start-up recovery
hands them back at once, so they finish without waiting for any lease (set to 10
minutes here: a run that waited for it would time the test out). Finished Tasks are
not repeated; only a Task in flight at the kill may run again, with the same
idempotency token. A second live worker asking for a name in use is refused (exit 2).
"""

from __future__ import annotations

import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from faults_functions import attempts, three_states
from tests._runtime import runtime_for
from tests._subprocess import worker_env

from cfnops.config import load_settings
from cfnops.durable import RunStore
from cfnops.jobs import JobService

HERE = Path(__file__).resolve().parent
pytestmark = [pytest.mark.faults, pytest.mark.slow]

RUNS = 12
LEASE = "600"  # no run may wait for a lease to expire


def _worker(env: dict[str, str], name: str, err: Path) -> subprocess.Popen[str]:
    with err.open("w") as fh:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cfnops", "worker", "--id", name, "--concurrency", "4"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=fh,
            text=True,
        )
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 120)
    line = proc.stdout.readline() if ready else ""
    assert line.startswith(f"cfnops worker {name}:"), (line, err.read_text()[-2000:])
    return proc


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)


def _in_flight(jobs: JobService, logs: list[Path]) -> list[str]:
    """Runs executing under fleet-1 (DBOS's record) whose Task has not been carried out."""
    with RunStore(jobs.runtime.database) as runs:
        held = [
            r.run_id for r in runs.list_runs(status="RUNNING", limit=100) if r.executor == "fleet-1"
        ]
    return sorted(r for r in held if not attempts(logs[int(r[3:])], "effect"))


def _statuses(jobs: JobService) -> dict[str, str]:
    return {f"id-{n}": jobs.store.get_run(f"id-{n}").status for n in range(RUNS)}


def test_a_worker_restarted_under_its_name_finishes_its_runs_at_once(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    env = worker_env(
        db, modules=["faults_functions"], path=[HERE], CFNOPS_WORKER__LEASE_SECONDS=LEASE
    )
    jobs = JobService(runtime_for(load_settings(database_url=f"sqlite:///{db}")))
    logs = [tmp_path / f"effects-{n}.log" for n in range(RUNS)]
    first = _worker(env, "fleet-1", tmp_path / "first.err")
    second: subprocess.Popen[str] | None = None
    try:
        for n, log in enumerate(logs):
            jobs.start(
                three_states(log, 1.0),
                {},
                machine_name="fault-id",
                name=f"id-{n}",
                queue="cfnops",
                modules=["faults_functions"],
            )
        deadline = time.monotonic() + 120
        while not (
            sum(bool(attempts(log, "effect")) for log in logs) >= 3 and _in_flight(jobs, logs)
        ):
            assert time.monotonic() < deadline, "the first worker carried out no Task"
            time.sleep(0.05)
        first.send_signal(signal.SIGKILL)  # runs of fleet-1 are between Before and After
        first.communicate(timeout=30)
        interrupted = _in_flight(jobs, logs)
        assert interrupted  # still held by fleet-1, its Task not carried out
        second = _worker(env, "fleet-1", tmp_path / "second.err")
        deadline = time.monotonic() + 120  # far below the 600 s lease
        while set(_statuses(jobs).values()) != {"SUCCEEDED"}:
            assert time.monotonic() < deadline, _statuses(jobs)
            time.sleep(0.2)
    finally:
        if first.poll() is None:
            first.kill()
            first.communicate(timeout=30)
        if second is not None:
            _stop(second)
    assert second.returncode == 0, (tmp_path / "second.err").read_text()[-3000:]
    done = {log.name: attempts(log, "effect") for log in logs}
    assert all(done.values()), done  # none lost
    assert all(len({token for _, token in found}) == 1 for found in done.values()), done
    killed = first.pid
    repeated = {
        name: found
        for name, found in done.items()
        if len(found) > 1 and not (len(found) == 2 and found[0][0] == killed)
    }
    assert not repeated, repeated  # no finished Task ran again
    # the interrupted runs' Tasks were carried out by the restarted worker
    for run in interrupted:
        assert second.pid in [pid for pid, _ in attempts(logs[int(run[3:])], "effect")], done


def test_a_second_live_worker_cannot_take_a_name_in_use(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    env = worker_env(db, modules=["faults_functions"], path=[HERE])
    first = _worker(env, "fleet-2", tmp_path / "first.err")
    try:
        other = subprocess.run(
            [sys.executable, "-m", "cfnops", "worker", "--id", "fleet-2"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        _stop(first)
    assert other.returncode == 2, other.stderr
    assert f"worker identity 'fleet-2' is held by pid {first.pid}" in other.stderr
    assert "another --id" in other.stderr
    assert "Traceback" not in other.stderr
    assert first.returncode == 0


def test_a_bad_worker_name_is_refused(tmp_path: Path) -> None:
    env = worker_env(tmp_path / "db.sqlite")
    found = subprocess.run(
        [sys.executable, "-m", "cfnops", "worker", "--id", "two words"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert found.returncode == 2
    assert "--id 'two words'" in found.stderr and "--id worker-1" in found.stderr
