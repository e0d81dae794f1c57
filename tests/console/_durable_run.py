"""A Lambda durable execution with markup everywhere: ``python _durable_run.py DB STEPS``.

A subprocess of the console tests (DBOS is one per process). The function's step
names, results, child context and input all carry :data:`MARK`, markup that sets
``window.__xss`` if a page ever runs it; one step returns a result larger than the
run page's detail cap. Prints ``{"arn", "run_id", "status", "events"}`` as JSON.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from aws_durable_execution_sdk_python import DurableContext, durable_execution

from cfnops.config import load_settings
from cfnops.durable import Engine, lambda_function
from cfnops.runtime import Runtime

MARK = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'
BIG = 30_000  # characters of the big step's result: past the page's detail cap


@lambda_function("console-markup")
@durable_execution
def markup(event: Any, context: DurableContext) -> Any:
    for i in range(event["steps"]):
        context.step(lambda _, i=i: {"i": i, "note": event["mark"]}, name=f"step-{i} {MARK}")
    context.step(lambda _: MARK + "y" * BIG, name="big")

    def inner(child: DurableContext) -> Any:
        return child.step(lambda _: {"inner": MARK}, name=f"inner {MARK}")

    context.run_in_child_context(inner, name=f"child {MARK}")
    return {"done": MARK}


def main(db: str, steps: int) -> None:
    engine = Engine.start_process(
        Runtime.from_settings(load_settings(database_url=f"sqlite:///{db}"))
    )
    try:
        backend = engine.local_lambda()
        arn = backend.start_execution(
            "console-markup", {"steps": steps, "mark": MARK}, name="markup-1"
        )
        record = backend.wait(arn, 120)
        answer = {
            "arn": arn,
            "run_id": arn.rsplit("/", 1)[-1],
            "status": record["status"],
            "events": len(record["events"]),
        }
        print(json.dumps(answer))
    finally:
        engine.shutdown(grace_seconds=1)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
