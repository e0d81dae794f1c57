"""A run remembers the modules it was started with: redrive and recovery find its functions."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest
from jobs_test_functions import count
from tests._subprocess import cfnops, wait_for, worker_env

from cfnops.config import load_settings
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
    store = JobStore(load_settings(database_url=f"sqlite:///{db}"))
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
    store = JobStore(load_settings(database_url=f"sqlite:///{db}"))
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
    store = JobStore(load_settings(database_url=f"sqlite:///{db}"))
    assert store.get_run("slow-1").status == "RUNNING"

    worker = cfnops(_env(db), "worker")  # no workflow modules configured
    try:
        wait_for(lambda: store.get_run("slow-1").status != "RUNNING", timeout=90, what="recovery")
    finally:
        worker.send_signal(signal.SIGTERM)
        _out, err = worker.communicate(timeout=30)
    assert worker.returncode == 0, err
    row = store.get_run("slow-1")
    assert (row.status, row.output) == ("SUCCEEDED", {"mark": "t2"}), (row.error, row.cause)
    assert count(str(log), "t2-end") == 1
