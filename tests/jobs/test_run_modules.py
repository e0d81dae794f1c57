"""A run remembers the modules it was started with: redrive and recovery find its functions."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
from jobs_test_functions import count
from tests._runtime import database_for, runtime_for
from tests._subprocess import cfnops, wait_for, worker_env

from cfnops.config import load_settings
from cfnops.durable import Engine
from cfnops.jobs import JobStore

HERE = Path(__file__).resolve().parent
pytestmark = pytest.mark.slow


def _env(db: Path) -> dict[str, str]:
    # the module is importable (PYTHONPATH) but named by no setting: only --import names it
    return worker_env(db, path=[HERE])


def _run(db: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    proc = cfnops(_env(db), *args)
    out, err = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _gated_definition(gate: Path, log: Path) -> dict[str, object]:
    return {
        "StartAt": "Log",
        "States": {
            "Log": {
                "Type": "Task",
                "Resource": "arn:aws:states:::lambda:invoke",
                "Parameters": {
                    "FunctionName": "jobs-test-logged",
                    "Payload": {"log": str(log), "mark": "log"},
                },
                "Next": "Gate",
            },
            "Gate": {
                "Type": "Task",
                "Resource": "arn:aws:lambda:us-east-1:123456789012:function:jobs-test-gated",
                "Parameters": {"gate": str(gate)},
                "End": True,
            },
        },
    }


def test_redrive_from_a_new_process_finds_the_local_functions(tmp_path: Path) -> None:
    db, gate, log = tmp_path / "db.sqlite", tmp_path / "gate", tmp_path / "log"
    definition = tmp_path / "gated.asl.json"
    definition.write_text(json.dumps(_gated_definition(gate, log)))

    first = _run(
        db, "-o", "json", "job", "run", str(definition), "--name", "gated-1",
        "--import", "jobs_test_functions",
    )  # fmt: skip
    assert first.returncode == 1, first.stderr
    assert json.loads(first.stdout)["error"] == "Gate.Closed"
    store = JobStore(database_for(load_settings(database_url=f"sqlite:///{db}")))
    assert store.get_run("gated-1").modules == ("jobs_test_functions",)

    gate.write_text("open")
    again = _run(db, "-o", "json", "job", "redrive", "gated-1")  # no --import
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["status"] == "SUCCEEDED"
    assert json.loads(again.stdout)["output"] == {"passed": True}
    assert count(str(log), "log-end") == 1  # the finished task kept its output


def test_redrive_import_overrides_the_recorded_modules(tmp_path: Path) -> None:
    db, gate, log = tmp_path / "db.sqlite", tmp_path / "gate", tmp_path / "log"
    definition = tmp_path / "gated.asl.json"
    definition.write_text(json.dumps(_gated_definition(gate, log)))
    first = _run(
        db, "-o", "json", "job", "run", str(definition), "--name", "gated-2",
        "--import", "jobs_test_functions",
    )  # fmt: skip
    assert first.returncode == 1, first.stderr

    wrong = _run(db, "job", "redrive", "gated-2", "--import", "no_such_module_here")
    assert wrong.returncode == 2
    assert "cannot import module 'no_such_module_here'" in wrong.stderr
    assert "Traceback" not in wrong.stdout + wrong.stderr
    store = JobStore(database_for(load_settings(database_url=f"sqlite:///{db}")))
    assert store.get_run("gated-2").status == "FAILED"  # nothing half-done

    gate.write_text("open")
    again = _run(db, "-o", "json", "job", "redrive", "gated-2", "--import", "jobs_test_functions")
    assert again.returncode == 0, again.stderr
    assert store.get_run("gated-2").modules == ("jobs_test_functions",)


def test_a_worker_recovers_a_crashed_run_with_its_modules(tmp_path: Path) -> None:
    db, log = tmp_path / "db.sqlite", tmp_path / "log"
    definition = tmp_path / "slow.asl.json"

    def task(mark: str, sleep: float, nxt: str | None) -> dict[str, object]:
        state: dict[str, object] = {
            "Type": "Task",
            "Resource": "arn:aws:states:::lambda:invoke",
            "Parameters": {
                "FunctionName": "jobs-test-logged",
                "Payload": {"log": str(log), "mark": mark, "sleep": sleep},
            },
            "OutputPath": "$.Payload",
        }
        state.update({"Next": nxt} if nxt else {"End": True})
        return state

    definition.write_text(
        json.dumps(
            {"StartAt": "T1", "States": {"T1": task("t1", 3, "T2"), "T2": task("t2", 0, None)}}
        )
    )
    first = cfnops(
        _env(db), "-o", "json", "job", "run", str(definition), "--name", "slow-1",
        "--import", "jobs_test_functions",
    )  # fmt: skip
    wait_for(lambda: count(str(log), "t1-start") == 1, what="the first task")
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=10)
    store = JobStore(database_for(load_settings(database_url=f"sqlite:///{db}")))
    assert store.get_run("slow-1").status == "RUNNING"

    worker = cfnops(_env(db), "worker")  # no workflow modules configured
    try:
        wait_for(lambda: store.get_run("slow-1").status != "RUNNING", timeout=90, what="recovery")
        time.sleep(1.5)  # a poll of the worker's run lines
    finally:
        worker.send_signal(signal.SIGTERM)
        out, err = worker.communicate(timeout=30)
    assert worker.returncode == 0, err
    # one line when the worker picks the run up, one when it ends
    assert "run slow-1 (cfnops.jobs.execution): picked up" in out, out
    assert "run slow-1 (cfnops.jobs.execution): SUCCEEDED" in out, out
    row = store.get_run("slow-1")
    assert (row.status, row.output) == ("SUCCEEDED", {"mark": "t2"}), (row.error, row.cause)
    assert count(str(log), "t2-end") == 1


def test_rerun_from_a_new_process_finds_the_local_functions(tmp_path: Path) -> None:
    db, gate, log = tmp_path / "db.sqlite", tmp_path / "gate", tmp_path / "log"
    definition = tmp_path / "gated.asl.json"
    definition.write_text(json.dumps(_gated_definition(gate, log)))
    first = _run(
        db, "-o", "json", "job", "run", str(definition), "--name", "gated-3",
        "--import", "jobs_test_functions",
    )  # fmt: skip
    assert first.returncode == 1, first.stderr

    gate.write_text("open")
    # no --import: the rerun imports what gated-3 was started with (before the fix it sent
    # the local function to Lambda and failed)
    again = _run(db, "-o", "json", "job", "rerun", "gated-3", "--from", "Gate", "--name", "r3")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["status"] == "SUCCEEDED"
    store = JobStore(database_for(load_settings(database_url=f"sqlite:///{db}")))
    assert store.get_run("r3").modules == ("jobs_test_functions",)
    assert count(str(log), "log-end") == 1  # rerun from Gate: Log did not run again


def test_rerun_refuses_at_once_when_a_recorded_module_cannot_be_imported(tmp_path: Path) -> None:
    db, gate, log = tmp_path / "db.sqlite", tmp_path / "gate", tmp_path / "log"
    definition = tmp_path / "gated.asl.json"
    definition.write_text(json.dumps(_gated_definition(gate, log)))
    first = _run(
        db, "-o", "json", "job", "run", str(definition), "--name", "gated-4",
        "--import", "jobs_test_functions",
    )  # fmt: skip
    assert first.returncode == 1, first.stderr

    # a process where the module is not importable (no PYTHONPATH to it)
    proc = cfnops(worker_env(db), "job", "rerun", "gated-4", "--from", "Gate", "--name", "r4")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2, err
    assert "cannot rerun 'gated-4': it needs module 'jobs_test_functions'" in err, err
    assert "--import" not in err  # job rerun has no such option
    assert "Traceback" not in out + err and "cancelled" not in out + err
    store = JobStore(database_for(load_settings(database_url=f"sqlite:///{db}")))
    assert store.find_run("r4") is None and store.reruns_of("gated-4") == []  # nothing created
    assert store.get_run("gated-4").status == "FAILED"


def test_a_worker_given_a_missing_module_says_so_in_one_line(tmp_path: Path) -> None:
    proc = _run(tmp_path / "db.sqlite", "worker", "--import", "no.such.module", timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "no.such.module" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_schedule_records_its_modules_for_every_run(tmp_path: Path, job_engine: Engine) -> None:
    import time as _time

    from cfnops.jobs import JobService, TriggerService

    url = job_engine.settings.database_url
    env = {**_env(tmp_path / "unused.sqlite"), "CFNOPS_DATABASE_URL": url}
    gate, log = tmp_path / "gate", tmp_path / "log"
    definition = tmp_path / "gated.asl.json"
    definition.write_text(json.dumps(_gated_definition(gate, log)))

    def add(*args: str) -> subprocess.CompletedProcess[str]:
        proc = cfnops(env, "job", "schedule", "add", *args, "--cron", "cron(0 2 * * ? *)")
        out, err = proc.communicate(timeout=120)
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)

    bad = add("mods-bad", str(definition), "--import", "no_such_module_here")
    assert bad.returncode == 2 and "no_such_module_here" in bad.stderr, bad.stderr
    added = add("mods-nightly", str(definition), "--import", "jobs_test_functions")
    assert added.returncode == 0, added.stderr

    triggers = TriggerService(JobService(runtime_for(job_engine.settings)))
    store = triggers.store
    names = [r["name"] for r in store.list_schedules("schedule")]
    assert "mods-nightly" in names and "mods-bad" not in names
    due = next(r for r in store.list_schedules("schedule") if r["name"] == "mods-nightly")
    assert store.advance_schedule("mods-nightly", due["next_fire"], _time.time() - 1)
    started = [r for r in triggers.fire_due() if r.startswith("mods-nightly")]
    assert len(started) == 1
    assert store.get_run(started[0]).modules == ("jobs_test_functions",)
