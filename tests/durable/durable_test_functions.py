"""Lambda durable functions used by the kill -9 and sandbox-CLI tests (in subprocesses).

Side effects append ``<name> <time>`` lines to the file named in the event, so a test
can count how often a step really ran (see durable_test_workflows.record/count).
"""

from __future__ import annotations

import time
from typing import Any

from aws_durable_execution_sdk_python import DurableContext, StepContext, durable_execution
from aws_durable_execution_sdk_python.config import Duration, MapConfig
from durable_test_workflows import record

from cfnops.durable import lambda_function


@lambda_function("crash-approval")
@durable_execution
def approval(event: Any, context: DurableContext) -> Any:
    def prepare(_: StepContext) -> str:
        record(event["log"], "prepare")
        return "prepared"

    context.step(prepare, name="prepare")
    answer = context.create_callback(name="approve").result()
    return {"answer": answer}


@lambda_function("crash-chain-child")
@durable_execution
def chain_child(event: Any, context: DurableContext) -> Any:
    def begin(_: StepContext) -> None:
        record(event["log"], "child-begin")

    context.step(begin, name="begin")
    context.wait(Duration.from_seconds(event["wait"]))

    def double(_: StepContext) -> int:
        record(event["log"], "child-end")
        return int(event["n"]) * 2

    return context.step(double, name="double")


@lambda_function("crash-chain-parent")
@durable_execution
def chain_parent(event: Any, context: DurableContext) -> Any:
    doubled = context.invoke("crash-chain-child", event, name="child")
    return context.step(lambda _: doubled + 1, name="plus-one")


@lambda_function("crash-map")
@durable_execution
def concurrent_map(event: Any, context: DurableContext) -> Any:
    def item(ctx: DurableContext, n: int, index: int, items: Any) -> int:
        def work(_: StepContext) -> int:
            record(event["log"], f"start-{n}")
            time.sleep(event["seconds"])
            record(event["log"], f"end-{n}")
            return n * n

        return ctx.step(work, name=f"work-{n}")

    config = MapConfig(max_concurrency=event["concurrency"])
    return context.map(
        list(range(event["items"])), item, name="squares", config=config
    ).get_results()
