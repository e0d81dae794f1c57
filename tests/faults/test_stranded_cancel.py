"""``runs cancel`` and ``job stop`` end a stranded run for good, through the CLI.

Stranded: its owner was killed and no live process can recover it, or it waits on the
queue of a capability (a workflow, a job-net's ``--import`` module) that no worker has.
The command exits 0 saying what it did, the run ends CANCELLED (``runs``) or ABORTED
(``job``), the action is audited, and a worker that has what the run needs, started
afterwards, leaves it alone: none of its steps runs again.
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
from durable_test_workflows import count
from faults_functions import attempts, three_states
from tests._runtime import database_for, runtime_for
from tests._subprocess import cfnops, wait_for, worker_env

from cfnops.config import load_settings
from cfnops.durable import AuditLog, RunStore, needs_queue
from cfnops.jobs import JobService

HERE = Path(__file__).resolve().parent
DURABLE = HERE.parent / "durable"
pytestmark = [pytest.mark.faults, pytest.mark.slow]
X = "durable_test_workflows"
M = "faults_functions"


def _env(db: Path, *modules: str) -> dict[str, str]:
    """Only a process given ``modules`` can import them (a foreign worker cannot)."""
    return worker_env(db, modules=list(modules), path=[HERE, DURABLE] if modules else [])


def _worker(db: Path, *modules: str) -> subprocess.Popen[str]:
    proc = cfnops(_env(db, *modules), "worker")
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 90)
    assert ready and proc.stdout.readline().startswith("cfnops worker"), "worker did not start"
    return proc


def _stop(proc: subprocess.Popen[str]) -> str:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    return err


def _cli(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cfnops", *args],
        env=_env(db),
        capture_output=True,
        text=True,
        timeout=120,
    )


def _audited(db: Path, action: str, target: str) -> list[str]:
    with AuditLog(database_for(load_settings(database_url=f"sqlite:///{db}"))) as audit:
        return [e.actor for e in audit.list(target=target, action=action)]


def _leaves_alone(db: Path, *modules: str, seconds: float = 4.0) -> None:
    """A worker with ``modules`` runs for ``seconds`` (eight recovery sweeps) and stops."""
    worker = _worker(db, *modules)
    try:
        time.sleep(seconds)
    finally:
        _stop(worker)


def test_runs_cancel_ends_a_run_whose_owner_is_gone(tmp_path: Path) -> None:
    db, log = tmp_path / "db.sqlite", str(tmp_path / "steps.log")
    settings = load_settings(database_url=f"sqlite:///{db}")
    owner = _worker(db, X)
    with RunStore(database_for(settings)) as store:
        store.enqueue(
            "test.three-steps",
            {"log": log, "wait_seconds": 1, "step2_seconds": 30},
            run_id="gone-1",
        )
    wait_for(lambda: count(log, "step2-start") == 1, 90, "step2 of the run")
    owner.send_signal(signal.SIGKILL)
    owner.communicate(timeout=30)

    done = _cli(db, "runs", "cancel", "gone-1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("gone-1: CANCELLED (its executor "), done.stdout
    assert "is gone and no process had taken it over; no process will start" in done.stdout
    assert _audited(db, "cancel", "gone-1")
    _leaves_alone(db, X)  # it has the workflow, and the owner is dead
    shown = _cli(db, "runs", "show", "gone-1", "--output", "json")
    assert json.loads(shown.stdout)["status"] == "CANCELLED", shown.stdout
    assert [count(log, s) for s in ("step1", "step2-start", "step3")] == [1, 1, 0]


def test_runs_cancel_ends_a_run_waiting_for_a_workflow_no_worker_has(tmp_path: Path) -> None:
    db, log = tmp_path / "db.sqlite", str(tmp_path / "steps.log")
    settings = load_settings(database_url=f"sqlite:///{db}")
    _stop(_worker(db))  # the database's tables
    with RunStore(database_for(settings)) as store:  # where a worker without X hands it over
        store.enqueue(
            "test.three-steps",
            {"log": log, "wait_seconds": 1},
            run_id="needs-1",
            queue=needs_queue("workflow test.three-steps"),
        )
    listed = _cli(db, "runs", "show", "needs-1", "--output", "json")
    assert json.loads(listed.stdout)["needs"] == "workflow test.three-steps", listed.stdout

    done = _cli(db, "runs", "cancel", "needs-1", "--output", "json")
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert (said["status"], said["previousStatus"]) == ("CANCELLED", "QUEUED"), said
    assert said["detail"].startswith("it waited on its queue for a worker with workflow test")
    assert _audited(db, "cancel", "needs-1")
    _leaves_alone(db, X)
    with RunStore(database_for(settings)) as store:
        assert store.get("needs-1").status == "CANCELLED"
    assert count(log, "step1") == 0


def _job(db: Path, log: Path, name: str) -> JobService:
    jobs = JobService(runtime_for(load_settings(database_url=f"sqlite:///{db}")))
    jobs.start(
        three_states(log, 30.0),
        {},
        machine_name="stranded",
        name=name,
        queue="cfnops",
        modules=[M],
    )
    return jobs


def test_job_stop_ends_a_job_run_waiting_for_a_module_no_worker_has(tmp_path: Path) -> None:
    db, log = tmp_path / "db.sqlite", tmp_path / "effects.log"
    foreign = _worker(db)  # lacks M: hands the run over to the workers that have it
    jobs = _job(db, log, "needs-m-1")
    try:
        with RunStore(jobs.runtime.database) as runs:
            deadline = time.monotonic() + 60
            while runs.get("needs-m-1").needs != f"module {M}":
                assert time.monotonic() < deadline, "the foreign worker did not hand it over"
                time.sleep(0.2)
    finally:
        _stop(foreign)

    done = _cli(db, "job", "stop", "needs-m-1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("needs-m-1: ABORTED (stopped before any process"), done.stdout
    assert f"waited on its queue for a worker with module {M}" in done.stdout
    assert _audited(db, "stop", "needs-m-1")
    _leaves_alone(db, M)
    row = jobs.store.get_run("needs-m-1")
    assert (row.status, row.error) == ("ABORTED", "States.Aborted")
    assert attempts(log, "effect") == []


def test_job_stop_ends_a_job_run_whose_owner_is_gone(tmp_path: Path) -> None:
    db, log = tmp_path / "db.sqlite", tmp_path / "effects.log"
    # the Task runs 30 s: the run is mid-Task, PENDING under the owner, when it is killed
    owner = _worker(db, M)
    jobs = _job(db, log, "gone-m-1")
    with RunStore(jobs.runtime.database) as runs:
        wait_for(lambda: runs.get("gone-m-1").status == "RUNNING", 90, "the owner to start it")
    owner.send_signal(signal.SIGKILL)
    owner.communicate(timeout=30)

    done = _cli(db, "job", "stop", "gone-m-1", "--output", "json")
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said["status"] == "ABORTED", said
    assert said["cause"].endswith("is gone and no process had taken it over"), said
    assert _audited(db, "stop", "gone-m-1")
    _leaves_alone(db, M)
    row = jobs.store.get_run("gone-m-1")
    assert (row.status, row.error) == ("ABORTED", "States.Aborted")
    with RunStore(jobs.runtime.database) as runs:
        assert runs.get("gone-m-1").status == "CANCELLED"
    assert attempts(log, "effect") == []


def test_job_run_name_of_a_run_no_worker_can_take_exits_2(tmp_path: Path) -> None:
    """``job run --name N`` of a run that needs a module no live process has: it says so
    and exits 2 after ``stranded_after_seconds`` (it used to wait forever)."""
    db, log = tmp_path / "db.sqlite", tmp_path / "effects.log"
    definition = tmp_path / "net.asl.json"
    definition.write_text(json.dumps(three_states(log, 30.0)))
    first = cfnops(_env(db, M), "job", "run", str(definition), "--import", M, "--name", "att-1")
    jobs = JobService(runtime_for(load_settings(database_url=f"sqlite:///{db}")))

    def in_task() -> bool:
        try:
            return any(e["type"] == "TaskStateEntered" for e in jobs.store.history("att-1"))
        except Exception:  # not stored yet
            return False

    wait_for(in_task, 90, "the run to enter its Task")
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=30)

    env = {**_env(db), "CFNOPS_WORKER__STRANDED_AFTER_SECONDS": "3"}  # no module M here
    again = subprocess.run(
        [sys.executable, "-m", "cfnops", "job", "run", str(definition), "--name", "att-1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 2, again.stderr
    assert f"run att-1 needs module {M}, which this process lacks" in again.stderr
    assert f"'cfnops worker --import {M}'" in again.stderr
    assert "cfnops job stop att-1" in again.stderr and "Traceback" not in again.stderr
    with RunStore(jobs.runtime.database) as runs:
        assert (runs.get("att-1").status, runs.get("att-1").needs) == ("QUEUED", f"module {M}")
    assert jobs.store.get_run("att-1").status == "RUNNING"  # kept, not failed

    # attached again once it is on that queue: the same answer, not an endless wait
    again = subprocess.run(
        [sys.executable, "-m", "cfnops", "job", "run", str(definition), "--name", "att-1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 2, again.stderr
    assert f"needs module {M}" in again.stderr
    assert attempts(log, "effect") == []
