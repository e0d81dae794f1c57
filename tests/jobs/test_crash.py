"""kill -9 during a Task and during a Wait: the run resumes in a worker, nothing repeats."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from jobs_test_functions import count, times
from tests._runtime import database_for, runtime_for
from tests._subprocess import cfnops, wait_for, worker_env

from cfnops.config import load_settings
from cfnops.jobs import JobStore

HERE = Path(__file__).resolve().parent
pytestmark = pytest.mark.slow


def _definition(log: str, wait_seconds: int, task_sleep: float) -> dict[str, object]:
    def task(mark: str, sleep: float, nxt: str | None) -> dict[str, object]:
        state: dict[str, object] = {
            "Type": "Task",
            "Resource": "arn:aws:states:::lambda:invoke",
            "Parameters": {
                "FunctionName": "jobs-test-logged",
                "Payload": {"log": log, "mark": mark, "sleep": sleep},
            },
            "ResultSelector": {"mark.$": "$.Payload.mark"},
        }
        state.update({"Next": nxt} if nxt else {"End": True})
        return state

    return {
        "StartAt": "T1",
        "States": {
            "T1": task("t1", 0, "T2"),
            "T2": task("t2", task_sleep, "W"),
            "W": {"Type": "Wait", "Seconds": wait_seconds, "Next": "T3"},
            "T3": task("t3", 0, None),
        },
    }


def _cfnops(db: Path, *args: str) -> subprocess.Popen[str]:
    return cfnops(worker_env(db, modules=["jobs_test_functions"], path=[HERE]), *args)


def _wait_for(predicate: Callable[[], bool], timeout: float = 60) -> None:
    wait_for(predicate, timeout)


def _kill_then_resume(
    tmp_path: Path, kill_when: Callable[[str], bool], wait_seconds: int, task_sleep: float
) -> tuple[str, JobStore]:
    db, log = tmp_path / "db.sqlite", str(tmp_path / "log")
    definition = tmp_path / "crash.asl.json"
    definition.write_text(json.dumps(_definition(log, wait_seconds, task_sleep)))
    first = _cfnops(db, "-o", "json", "job", "run", str(definition), "--name", "crash-1")
    _wait_for(lambda: kill_when(log))
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=10)
    store = JobStore(database_for(load_settings(database_url=f"sqlite:///{db}")))
    assert store.get_run("crash-1").status == "RUNNING"
    worker = _cfnops(db, "worker")
    try:
        _wait_for(lambda: store.get_run("crash-1").status != "RUNNING", timeout=90)
    finally:
        worker.send_signal(signal.SIGTERM)
        _out, err = worker.communicate(timeout=30)
    assert worker.returncode == 0, err
    return log, store


def test_sigkill_during_a_task_reruns_only_that_task(tmp_path: Path) -> None:
    log, store = _kill_then_resume(
        tmp_path, lambda log: count(log, "t2-start") == 1, wait_seconds=1, task_sleep=3
    )
    run = store.get_run("crash-1")
    assert run.status == "SUCCEEDED", (run.error, run.cause)
    assert run.output == {"mark": "t3"}
    # T1 had finished: never again. T2 was in flight: it runs again (at least once).
    assert [count(log, m) for m in ("t1-end", "t2-start", "t2-end", "t3-end")] == [1, 2, 1, 1]
    assert store.history("crash-1")[-1]["type"] == "ExecutionSucceeded"


def test_sigkill_during_a_wait_resumes_at_its_deadline(tmp_path: Path) -> None:
    def in_the_wait(log: str) -> bool:
        ended = times(log, "t2-end")
        return bool(ended) and time.time() > ended[0] + 1.0

    log, store = _kill_then_resume(tmp_path, in_the_wait, wait_seconds=5, task_sleep=0)
    run = store.get_run("crash-1")
    assert run.status == "SUCCEEDED", (run.error, run.cause)
    assert [count(log, m) for m in ("t1-end", "t2-end", "t3-start")] == [1, 1, 1]
    t2_done, t3_began = times(log, "t2-end")[0], times(log, "t3-start")[0]
    assert t3_began >= t2_done + 5, "the wait ended before its deadline"
    waits = [s for s in store.list_steps("crash-1") if s.kind == "wait"]
    assert len(waits) == 1 and waits[0].result <= t2_done + 5.5  # the original deadline


def test_sigkill_during_a_rerun_resumes_the_rerun(tmp_path: Path) -> None:
    """A rerun --from T2 (edited: T2 sleeps) is killed in T2; a worker finishes the rerun,
    T1 never runs again and T3 runs once for the rerun."""
    db, log = tmp_path / "db.sqlite", str(tmp_path / "log")
    original = tmp_path / "net.asl.json"
    original.write_text(json.dumps(_definition(log, wait_seconds=0, task_sleep=0)))
    first = _cfnops(db, "-o", "json", "job", "run", str(original), "--name", "origin-1")
    _out, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    edited = tmp_path / "edited.asl.json"
    edited.write_text(json.dumps(_definition(log, wait_seconds=0, task_sleep=3)))
    rerun = _cfnops(
        db, "-o", "json", "job", "rerun", "origin-1", "--from", "T2",
        "--definition", str(edited), "--name", "rerun-1",
    )  # fmt: skip
    _wait_for(lambda: count(log, "t2-start") == 2)
    rerun.send_signal(signal.SIGKILL)
    rerun.communicate(timeout=10)
    store = JobStore(database_for(load_settings(database_url=f"sqlite:///{db}")))
    assert store.get_run("rerun-1").status == "RUNNING"
    worker = _cfnops(db, "worker")
    try:
        _wait_for(lambda: store.get_run("rerun-1").status != "RUNNING", timeout=90)
    finally:
        worker.send_signal(signal.SIGTERM)
        _out, err = worker.communicate(timeout=30)
    assert worker.returncode == 0, err
    run = store.get_run("rerun-1")
    assert run.status == "SUCCEEDED", (run.error, run.cause)
    assert [count(log, m) for m in ("t1-end", "t2-start", "t2-end", "t3-end")] == [1, 3, 2, 2]
    assert store.lineage_of("rerun-1").origin_run_id == "origin-1"  # type: ignore[union-attr]
    entered = [e["details"]["name"] for e in store.history("rerun-1") if "Entered" in e["type"]]
    assert entered == ["T2", "W", "T3"]


def test_hold_and_skip_survive_sigkill(tmp_path: Path) -> None:
    """Hold and skip are asked while T1 runs, then the process dies: the worker that
    resumes the run keeps it held, and once released passes T2 without calling it."""
    from cfnops.jobs import JobService

    db, log = tmp_path / "db.sqlite", str(tmp_path / "log")
    definition = _definition(log, wait_seconds=0, task_sleep=0)
    states = definition["States"]
    assert isinstance(states, dict)
    states["T1"]["Parameters"]["Payload"]["sleep"] = 2  # type: ignore[index]
    path = tmp_path / "held.asl.json"
    path.write_text(json.dumps(definition))
    first = _cfnops(db, "-o", "json", "job", "run", str(path), "--name", "held-1")
    _wait_for(lambda: count(log, "t1-start") == 1)
    jobs = JobService(runtime_for(load_settings(database_url=f"sqlite:///{db}")))
    jobs.hold("held-1", actor="ops", reason="crash test")
    jobs.skip("held-1", "T2", {"mark": "skipped"}, actor="ops")
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=10)
    worker = _cfnops(db, "worker")
    try:
        _wait_for(lambda: count(log, "t1-end") >= 1, timeout=90)
        time.sleep(2.0)  # held: nothing after T1 starts
        assert jobs.store.get_run("held-1").status == "RUNNING"
        assert count(log, "t3-start") == 0
        jobs.release("held-1", actor="ops")
        _wait_for(lambda: jobs.store.get_run("held-1").status != "RUNNING", timeout=60)
    finally:
        worker.send_signal(signal.SIGTERM)
        _out, err = worker.communicate(timeout=30)
    assert worker.returncode == 0, err
    run = jobs.store.get_run("held-1")
    assert run.status == "SUCCEEDED", (run.error, run.cause)
    assert run.output == {"mark": "t3"}
    assert [count(log, m) for m in ("t2-start", "t3-end")] == [0, 1]
    types = [e["type"] for e in jobs.store.history("held-1")]
    assert {"OperatorHold", "OperatorRelease", "StateSkipped"} <= set(types)
