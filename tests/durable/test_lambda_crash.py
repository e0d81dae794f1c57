"""kill -9 and the Lambda durable backend: callbacks, chained invokes, concurrent map.

Each test starts executions in a ``cfnops sandbox up --functions …`` process (through
boto3, as a client of the Lambda API would), kills it with SIGKILL at a chosen moment,
and lets a ``cfnops worker`` on the same database finish them: the SDK replays from the
checkpoints the dead process wrote, so finished steps never run again.
"""

from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from durable_test_workflows import count
from tests._runtime import runtime_for
from tests._subprocess import cfnops, wait_for, worker_env

from cfnops.config import load_settings
from cfnops.durable import LocalLambda

HERE = Path(__file__).resolve().parent
MODULE = "durable_test_functions"
pytestmark = pytest.mark.slow


def _env(db: Path) -> dict[str, str]:
    return worker_env(db, modules=[MODULE], path=[HERE])


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=10)


class _Sandbox:
    def __init__(self, db: Path) -> None:
        self.proc = cfnops(
            _env(db), "-o", "json", "sandbox", "up", "--port", "0", "--functions", MODULE
        )
        assert self.proc.stdout is not None
        lines: list[str] = []
        while not lines or lines[-1] != "}":
            line = self.proc.stdout.readline()
            assert line, self.proc.stderr.read() if self.proc.stderr else "sandbox exited"
            lines.append(line.rstrip("\n"))
        self.url = json.loads("\n".join(lines))["endpoint_url"]
        self.lam = boto3.client(
            "lambda",
            endpoint_url=self.url,
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )

    def start(self, function: str, name: str, event: dict[str, Any]) -> str:
        answer = self.lam.invoke(
            FunctionName=function,
            InvocationType="Event",
            DurableExecutionName=name,
            Payload=json.dumps(event).encode(),
        )
        return str(answer["DurableExecutionArn"])


@pytest.fixture
def backend(tmp_path: Path) -> Iterator[tuple[Path, LocalLambda]]:
    db = tmp_path / "db.sqlite"
    # Reads and answers the database directly: no engine runs in this process.
    yield db, LocalLambda(runtime_for(load_settings(database_url=f"sqlite:///{db}")))


def _finish_with_worker(db: Path, local: LocalLambda, arn: str) -> dict[str, Any]:
    worker = cfnops(_env(db), "worker", "--concurrency", "4")
    try:
        wait_for(lambda: local.record(arn)["status"] != "RUNNING", 90, "the recovered execution")
    finally:
        worker.send_signal(signal.SIGTERM)
        _out, err = worker.communicate(timeout=30)
    assert worker.returncode == 0, err
    return local.record(arn)


def _has(local: LocalLambda, arn: str, event_type: str) -> bool:
    return any(e["EventType"] == event_type for e in local.record(arn)["events"])


def test_callback_sent_while_no_process_runs_is_delivered_after_restart(
    backend: tuple[Path, LocalLambda], tmp_path: Path
) -> None:
    db, local = backend
    log = str(tmp_path / "log")
    sandbox = _Sandbox(db)
    arn = sandbox.start("crash-approval", "approval-1", {"log": log})
    wait_for(lambda: _has(local, arn, "CallbackStarted"), 60, "the callback")
    _kill(sandbox.proc)
    callback = next(
        op["CallbackDetails"]["CallbackId"]
        for op in local.record(arn)["ops"].values()
        if op["Type"] == "CALLBACK"
    )
    local.send_callback(callback, "success", result='"yes"')  # nobody is running
    record = _finish_with_worker(db, local, arn)
    assert record["status"] == "SUCCEEDED", record["error"]
    assert json.loads(record["result"]) == {"answer": '"yes"'}
    assert count(log, "prepare") == 1  # the finished step did not run again


def test_invoke_chain_survives_kill_during_the_child(
    backend: tuple[Path, LocalLambda], tmp_path: Path
) -> None:
    db, local = backend
    log = str(tmp_path / "log")
    sandbox = _Sandbox(db)
    arn = sandbox.start("crash-chain-parent", "chain-1", {"log": log, "n": 20, "wait": 3})
    wait_for(lambda: count(log, "child-begin") == 1, 60, "the chained child")
    _kill(sandbox.proc)
    assert count(log, "child-end") == 0
    record = _finish_with_worker(db, local, arn)
    assert record["status"] == "SUCCEEDED", record["error"]
    assert json.loads(record["result"]) == 41
    assert (count(log, "child-begin"), count(log, "child-end")) == (1, 1)
    kinds = [e["EventType"] for e in record["events"]]
    assert kinds.count("ChainedInvokeStarted") == 1
    assert kinds.count("ChainedInvokeSucceeded") == 1


def test_concurrent_map_survives_kill_and_does_not_repeat_finished_items(
    backend: tuple[Path, LocalLambda], tmp_path: Path
) -> None:
    db, local = backend
    log = str(tmp_path / "log")
    sandbox = _Sandbox(db)
    event = {"log": log, "items": 8, "concurrency": 3, "seconds": 0.6}
    arn = sandbox.start("crash-map", "map-1", event)

    def finished() -> set[int]:
        return {
            n
            for n in range(8)
            for op in local.record(arn)["ops"].values()
            if op.get("Name") == f"work-{n}" and op["Status"] == "SUCCEEDED"
        }

    wait_for(lambda: len(finished()) >= 3, 60, "three checkpointed items")
    _kill(sandbox.proc)
    done_before = finished()
    assert len(done_before) < 8, "the map ended before the kill"
    started_before = {n for n in range(8) if count(log, f"start-{n}")}
    # Several items ran at the same time (real concurrency, bounded by 3).
    assert len(started_before) >= 3
    record = _finish_with_worker(db, local, arn)
    assert record["status"] == "SUCCEEDED", record["error"]
    assert json.loads(record["result"]) == [n * n for n in range(8)]
    for n in done_before:
        assert count(log, f"start-{n}") == 1, f"item {n} finished before the kill but ran again"
