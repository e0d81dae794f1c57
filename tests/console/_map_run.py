"""A caught Map of 50 iterations on local functions: ``python _map_run.py DB RUN_ID [LOG]``.

A subprocess of the console tests (DBOS is one per process). Each item says
how its ``Work`` Task behaves: ``ok``; ``flaky`` fails once (``Flaky``) and
succeeds on the retry; ``bad`` fails twice (``Boom``: one retry) and is caught
inside the iteration (``Recover``); ``fatal`` fails twice (``Fatal``) uncaught,
which fails its iteration. Two fatal iterations pass ``ToleratedFailureCount``
(1), so the Map fails and its Catch sends the run to ``Report`` (a Fail state):
the run ends FAILED with a CAUGHT Map. Every call is logged as ``INDEX MODE`` in
LOG, the oracle of the tests' retry counts.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

from cfnops.asl import LambdaError, TaskContext
from cfnops.config import load_settings
from cfnops.durable import Engine
from cfnops.jobs import JobService, register_function
from cfnops.runtime import Runtime

MODES = {3: "flaky", 7: "bad", 11: "flaky", 17: "bad", 23: "fatal", 29: "flaky", 31: "bad",
         41: "fatal", 44: "bad"}  # fmt: skip
ITEMS = [{"index": i, "mode": MODES.get(i, "ok")} for i in range(50)]
FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:console-map-work"
RETRY = {"IntervalSeconds": 1, "BackoffRate": 1.0, "MaxAttempts": 1}
DEFINITION: dict[str, Any] = {
    "Comment": "A caught Map: some iterations retry, some are caught inside, two fail",
    "StartAt": "Prepare",
    "States": {
        "Prepare": {"Type": "Pass", "Next": "Fan"},
        "Fan": {
            "Type": "Map",
            "ItemsPath": "$.items",
            "MaxConcurrency": 8,
            "ToleratedFailureCount": 1,
            "ItemProcessor": {
                "StartAt": "Work",
                "States": {
                    "Work": {
                        "Type": "Task",
                        "Resource": FUNCTION,
                        "Retry": [{"ErrorEquals": ["Flaky", "Boom", "Fatal"], **RETRY}],
                        "Catch": [{"ErrorEquals": ["Boom"], "Next": "Recover"}],
                        "Next": "Done",
                    },
                    "Recover": {"Type": "Pass", "Result": "recovered", "Next": "Done"},
                    "Done": {"Type": "Succeed"},
                },
            },
            "Catch": [{"ErrorEquals": ["States.ALL"], "Next": "Report"}],
            "Next": "Finish",
        },
        "Finish": {"Type": "Succeed"},
        "Report": {"Type": "Fail", "Error": "Batch.Failed", "Cause": "too many items failed"},
    },
}


def main(db: str, run_id: str, log: str) -> int:
    lock = threading.Lock()
    calls: dict[int, int] = {}

    def work(payload: Any, ctx: TaskContext) -> Any:
        index, mode = int(payload["index"]), str(payload["mode"])
        with lock:
            calls[index] = calls.get(index, 0) + 1
            attempt = calls[index]
            with Path(log).open("a") as fh:
                fh.write(f"{index} {mode}\n")
        if mode == "flaky" and attempt == 1:
            raise LambdaError("Flaky", "first call fails")
        if mode == "bad":
            raise LambdaError("Boom", f"item {index} is bad")
        if mode == "fatal":
            raise LambdaError("Fatal", f"item {index} cannot be done")
        return {"index": index, "done": True}

    register_function("console-map-work", work)
    settings = load_settings(database_url=f"sqlite:///{db}")
    runtime = Runtime.from_settings(settings)  # a program: it builds its one runtime
    engine = Engine.start_process(runtime)
    try:
        jobs = JobService(runtime)
        jobs.start(DEFINITION, {"items": ITEMS}, machine_name="caught-map", name=run_id)
        result = jobs.wait(run_id, timeout=300)
        print(json.dumps({"status": result.status}), flush=True)
    finally:
        engine.shutdown(grace_seconds=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3]))
