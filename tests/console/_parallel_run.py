"""A Parallel whose branch B fails: ``python _parallel_run.py DB RUN_ID``.

A subprocess of the console tests (DBOS is one per process). Branch 0 runs
``A`` (succeeds); branch 1 runs ``B``, which fails ``DbStopFailed`` and again
after its one retry; branch 2 runs ``C``, still working when B fails, so Step
Functions' semantics abort it (``TaskStateAborted``). The run ends FAILED.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from cfnops.asl import LambdaError, TaskContext
from cfnops.config import load_settings
from cfnops.durable import Engine
from cfnops.jobs import JobService, register_function
from cfnops.runtime import Runtime

ARN = "arn:aws:lambda:us-east-1:123456789012:function:"


def _task(fn: str, **extra: Any) -> dict[str, Any]:
    return {"Type": "Task", "Resource": f"{ARN}{fn}", "End": True, **extra}


RETRY = [{"ErrorEquals": ["DbStopFailed"], "MaxAttempts": 1, "IntervalSeconds": 1}]
DEFINITION: dict[str, Any] = {
    "Comment": "Stop the web system: A | B (fails) | C (aborted)",
    "StartAt": "Stop",
    "States": {
        "Stop": {
            "Type": "Parallel",
            "End": True,
            "Branches": [
                {"StartAt": "A", "States": {"A": _task("par-ok")}},
                {"StartAt": "B", "States": {"B": _task("par-fail", Retry=RETRY)}},
                {"StartAt": "C", "States": {"C": _task("par-slow")}},
            ],
        }
    },
}


def _ok(payload: Any, ctx: TaskContext) -> Any:
    return {"stopped": ctx.state_name}


def _fail(payload: Any, ctx: TaskContext) -> Any:
    raise LambdaError("DbStopFailed", json.dumps({"errorMessage": "the database is busy"}))


def _slow(payload: Any, ctx: TaskContext) -> Any:
    time.sleep(6)  # longer than B's two attempts (~1 s): C is running when B fails
    return {"stopped": "C"}


def main(db: str, run_id: str) -> int:
    for name, fn in (("par-ok", _ok), ("par-fail", _fail), ("par-slow", _slow)):
        register_function(name, fn)
    settings = load_settings(database_url=f"sqlite:///{db}")
    runtime = Runtime.from_settings(settings)  # a program: it builds its one runtime
    engine = Engine.start_process(runtime)
    try:
        jobs = JobService(runtime)
        jobs.start(DEFINITION, {}, machine_name="stop-web", name=run_id)
        result = jobs.wait(run_id, timeout=300)
        print(json.dumps({"status": result.status}), flush=True)
    finally:
        engine.shutdown(grace_seconds=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
