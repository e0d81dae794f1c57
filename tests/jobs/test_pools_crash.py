"""kill -9 while a Task holds a pool slot: the recovered run takes back its own slot."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest
from jobs_test_functions import count
from tests._runtime import database_for
from tests._subprocess import cfnops, wait_for, worker_env

from cfnops.config import load_settings
from cfnops.jobs import JobStore
from cfnops.jobs._pools import PoolStore

HERE = Path(__file__).resolve().parent
pytestmark = pytest.mark.slow


def test_sigkill_while_holding_a_slot(tmp_path: Path) -> None:
    db, log = tmp_path / "db.sqlite", str(tmp_path / "log")
    store = JobStore(database_for(load_settings(database_url=f"sqlite:///{db}")))
    pools = PoolStore(store.engine)
    pools.set("crash-pool", 1)
    definition = tmp_path / "pooled.asl.json"
    definition.write_text(
        json.dumps(
            {
                "StartAt": "T",
                "States": {
                    "T": {
                        "Type": "Task",
                        "Comment": "cfnops:pool=crash-pool",
                        "Resource": "arn:aws:states:::lambda:invoke",
                        "Parameters": {
                            "FunctionName": "jobs-test-logged",
                            "Payload": {"log": log, "mark": "t", "sleep": 2},
                        },
                        "End": True,
                    }
                },
            }
        )
    )
    env = worker_env(db, modules=["jobs_test_functions"], path=[HERE])
    first = cfnops(env, "-o", "json", "job", "run", str(definition), "--name", "pool-crash-1")
    wait_for(lambda: count(log, "t-start") == 1, what="the Task to start")
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=10)
    assert store.get_run("pool-crash-1").status == "RUNNING"
    (holder,) = pools.get("crash-pool").holders
    assert holder[0] == "pool-crash-1"  # the slot outlived the process
    worker = cfnops(env, "worker")
    try:
        wait_for(
            lambda: store.get_run("pool-crash-1").status != "RUNNING",
            timeout=90,
            what="the recovered run",
        )
    finally:
        worker.send_signal(signal.SIGTERM)
        _out, err = worker.communicate(timeout=30)
    assert worker.returncode == 0, err
    run = store.get_run("pool-crash-1")
    assert run.status == "SUCCEEDED", (run.error, run.cause)
    # in flight at the crash, the Task ran again, in the slot it already held (no wait)
    assert [count(log, "t-start"), count(log, "t-end")] == [2, 1]
    assert "ResourcePoolWaitStarted" not in [e["type"] for e in store.history("pool-crash-1")]
    assert pools.get("crash-pool").in_use == 0
