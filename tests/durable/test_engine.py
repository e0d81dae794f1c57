"""In-process behaviour of the durable engine (one DBOS engine for the module)."""

from __future__ import annotations

import itertools
import json
import threading
import time
import uuid
from pathlib import Path

import pytest
from durable_test_workflows import count

from cfnops.durable import DEFAULT_QUEUE, Engine, RunFailed, RunStore, UnknownWorkflow
from cfnops.durable._executors import Recovery
from cfnops.durable._leases import LeaseObserver, LeaseTable


def _run_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def test_steps_run_exactly_once_and_rerun_returns_the_same_run(
    engine: Engine, tmp_path: Path
) -> None:
    log = str(tmp_path / "log")
    run_id = _run_id("once")
    event = {"log": log, "wait_seconds": 1}
    first = engine.start("test.three-steps", event, run_id=run_id)
    assert engine.result(first.run_id, timeout=30) == {"results": ["one", "two", "three"]}
    again = engine.start("test.three-steps", event, run_id=run_id)
    assert again.existed and again.run_id == run_id
    assert engine.result(run_id, timeout=30) == {"results": ["one", "two", "three"]}
    assert [count(log, s) for s in ("step1", "step2-end", "step3")] == [1, 1, 1]


def test_step_retries_follow_the_strategy_and_are_recorded(engine: Engine, tmp_path: Path) -> None:
    log = str(tmp_path / "log")
    run_id = _run_id("flaky")
    engine.start("test.flaky", {"log": log, "fail_times": 2, "max_attempts": 3}, run_id=run_id)
    assert engine.result(run_id, timeout=30) == 3
    assert count(log, "attempt") == 3
    with RunStore(engine.runtime.database) as store:
        steps = store.steps(run_id)
    # The pause before a retry is part of the failed attempt's checkpoint (no
    # separate wait), and the next attempt starts no earlier than it says.
    assert [s.name for s in steps] == ["flaky", "flaky (attempt 2)", "flaky (attempt 3)"]
    for before, after in itertools.pairwise(steps):
        assert before.ended is not None and after.started is not None
        assert (after.started - before.ended).total_seconds() >= 0.9


def test_step_failure_after_retries_fails_the_run(engine: Engine, tmp_path: Path) -> None:
    run_id = _run_id("fails")
    engine.start(
        "test.flaky",
        {"log": str(tmp_path / "log"), "fail_times": 5, "max_attempts": 2},
        run_id=run_id,
    )
    with pytest.raises(RunFailed, match="boom 2"):
        engine.result(run_id, timeout=30)
    with RunStore(engine.runtime.database) as store:
        record = store.get(run_id)
        steps = store.steps(run_id)
    assert record.status == "FAILED"
    assert steps[-1].error is not None and "RuntimeError: boom 2" in steps[-1].error


def test_non_json_step_result_fails_naming_the_step(engine: Engine) -> None:
    run_id = _run_id("notjson")
    engine.start("test.not-json", {}, run_id=run_id)
    with pytest.raises(RunFailed, match=r"returns-a-set.*not JSON-serialisable"):
        engine.result(run_id, timeout=30)


def test_unknown_workflow_and_non_json_input_are_refused(engine: Engine) -> None:
    with pytest.raises(UnknownWorkflow, match="nope"):
        engine.start("nope", {})
    with pytest.raises(Exception, match="not JSON-serialisable"):
        engine.start("test.three-steps", {"log": object()})


def test_map_and_parallel_results(engine: Engine) -> None:
    run_id = _run_id("fanout")
    engine.start("test.fanout", {"items": [1, 2, 3]}, run_id=run_id)
    assert engine.result(run_id, timeout=30) == {"mapped": [2, 4, 6], "parallel": ["a", "b"]}
    with RunStore(engine.runtime.database) as store:
        names = [s.name for s in store.steps(run_id)]
    assert names[:2] == ["doubles[0]/double", "doubles[1]/double"]
    assert names[-1] == "letters[1]/b"


def test_callback_waits_durably_for_an_answer(engine: Engine, tmp_path: Path) -> None:
    log = tmp_path / "log"
    run_id = _run_id("callback")
    engine.start("test.callback", {"log": str(log)}, run_id=run_id)
    deadline = time.monotonic() + 10
    while not (log.exists() and log.read_text()):
        assert time.monotonic() < deadline, "the submitter never ran"
        time.sleep(0.05)
    callback_id = log.read_text().split()[0].split("=", 1)[1]
    assert callback_id.startswith(run_id + ":")
    with RunStore(engine.runtime.database) as store:
        assert store.get(run_id).status == "RUNNING"
    engine.send_callback(callback_id, {"approved": True, "by": "ops"})
    assert engine.result(run_id, timeout=30) == {"answer": {"approved": True, "by": "ops"}}


def test_runs_show_names_a_callback_answer_and_lists_steps_as_they_started(
    engine: Engine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from cfnops.cli.main import run

    log = tmp_path / "log"
    run_id = _run_id("callback-show")
    engine.start("test.callback", {"log": str(log)}, run_id=run_id)
    deadline = time.monotonic() + 10
    while not (log.exists() and log.read_text()):
        assert time.monotonic() < deadline, "the submitter never ran"
        time.sleep(0.05)
    time.sleep(0.2)  # the answer arrives after the callback's timeout has started
    engine.send_callback(log.read_text().split()[0].split("=", 1)[1], {"ok": True})
    engine.result(run_id, timeout=30)
    with RunStore(engine.runtime.database) as store:
        names = [s.name for s in store.steps(run_id)]
    assert "DBOS.recv" not in names and "approval answer" in names, names
    monkeypatch.setenv("CFNOPS_DATABASE_URL", engine.settings.database_url)
    monkeypatch.setenv("COLUMNS", "200")
    capsys.readouterr()
    assert run(["-o", "json", "runs", "show", run_id]) == 0
    shown = json.loads(capsys.readouterr().out)["steps"]
    starts = [s["started"] for s in shown]
    assert starts == sorted(starts), shown  # as they started, not by checkpoint number
    assert run(["runs", "show", run_id]) == 0
    text = capsys.readouterr().out
    assert "approval answer" in text and "DBOS" not in text


def test_cancel_then_resume_keeps_finished_steps(engine: Engine, tmp_path: Path) -> None:
    log = str(tmp_path / "log")
    run_id = _run_id("cancel")
    engine.start("test.three-steps", {"log": log, "wait_seconds": 3}, run_id=run_id)
    deadline = time.monotonic() + 10
    while count(log, "step1") == 0:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    with RunStore(engine.runtime.database) as store:
        assert store.cancel(run_id).status == "CANCELLED"
        store.resume(run_id, queue=engine.listen_own_queue())  # continued here, nowhere else
    assert engine.result(run_id, timeout=30) == {"results": ["one", "two", "three"]}
    assert count(log, "step1") == 1


def test_concurrent_starts_of_one_id_make_one_run(engine: Engine, tmp_path: Path) -> None:
    log = str(tmp_path / "log")
    run_id = _run_id("race")
    barrier = threading.Barrier(4)

    def go() -> None:
        barrier.wait()
        engine.start("test.three-steps", {"log": log, "wait_seconds": 1}, run_id=run_id)

    threads = [threading.Thread(target=go) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    engine.result(run_id, timeout=30)
    assert count(log, "step1") == 1


def test_runs_of_another_version_are_reported_not_resumed(
    engine: Engine, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import sqlalchemy as sa

    run_id = _run_id("oldversion")
    engine.start("test.callback", {"log": str(tmp_path / "log")}, run_id=run_id)
    with RunStore(engine.runtime.database) as store:
        deadline = time.monotonic() + 10
        while not store.steps(run_id):
            assert time.monotonic() < deadline
            time.sleep(0.05)
    # Pretend a crashed process of cfnops 0.0.1 left this run behind.
    db = sa.create_engine(engine.settings.database_url)
    with db.begin() as conn:
        conn.execute(
            sa.text(
                "UPDATE workflow_status SET application_version = '0.0.1', "
                "executor_id = 'gone:1:dead' WHERE workflow_uuid = :id"
            ),
            {"id": run_id},
        )
    db.dispose()
    # a worker's recovery (this engine is a command's: it recovers nothing)
    assert engine.recover() == []
    leases = LeaseTable(engine.runtime.database.engine, 30, create=False)
    observer = LeaseObserver(30)
    observer.connected_now()
    recovery = Recovery(leases, "a-worker", DEFAULT_QUEUE, observer)
    with caplog.at_level("WARNING", logger="cfnops.durable"):
        assert run_id not in recovery.recover()
    assert f"run {run_id} was recorded by cfnops 0.0.1" in caplog.text
    with RunStore(engine.runtime.database) as store:
        record = store.get(run_id)
        assert record.version == "0.0.1" and not record.compatible
        store.cancel(run_id)
    # Release this process's thread, still waiting in the callback, so that it ends.
    engine.send_callback(f"{run_id}:approval", None)
