"""Workflows used by the durable tests, in-process and in subprocesses.

Side effects append lines to the file named in the event, so tests can count
how often each step really ran.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from aws_durable_execution_sdk_python import DurableContext, StepContext, durable_execution
from aws_durable_execution_sdk_python.config import Duration, StepConfig
from aws_durable_execution_sdk_python.retries import RetryStrategyConfig, create_retry_strategy

from cfnops.durable import workflow


def record(path: str, line: str) -> None:
    with Path(path).open("a", encoding="utf-8") as fh:
        fh.write(f"{line} {time.time():.3f}\n")
        fh.flush()


def count(path: str, name: str) -> int:
    if not Path(path).exists():
        return 0
    return sum(1 for line in Path(path).read_text().splitlines() if line.split()[0] == name)


def times(path: str, name: str) -> list[float]:
    return [
        float(line.split()[1])
        for line in Path(path).read_text().splitlines()
        if line.split()[0] == name
    ]


@workflow("test.three-steps")
@durable_execution
def three_steps(event: dict[str, Any], context: DurableContext) -> dict[str, Any]:
    """step1 → wait → step2 (slow) → step3, each appending to event["log"]."""
    log = event["log"]

    def step1(_: StepContext) -> str:
        record(log, "step1")
        return "one"

    def step2(_: StepContext) -> str:
        record(log, "step2-start")
        time.sleep(float(event.get("step2_seconds", 0)))
        record(log, "step2-end")
        return "two"

    def step3(_: StepContext) -> str:
        record(log, "step3")
        return "three"

    a = context.step(step1, name="step1")
    context.wait(Duration.from_seconds(int(event.get("wait_seconds", 1))), name="pause")
    b = context.step(
        step2,
        name="step2",
        config=StepConfig(create_retry_strategy(RetryStrategyConfig(max_attempts=1))),
    )
    c = context.step(step3, name="step3")
    return {"results": [a, b, c]}


@workflow("test.flaky")
@durable_execution
def flaky(event: dict[str, Any], context: DurableContext) -> Any:
    """A step failing ``fail_times`` times before it succeeds (retries 1 s apart)."""
    log = event["log"]

    def attempt(step_context: StepContext) -> int:
        record(log, "attempt")
        if step_context.attempt <= int(event["fail_times"]):
            raise RuntimeError(f"boom {step_context.attempt}")
        return step_context.attempt

    strategy = create_retry_strategy(
        RetryStrategyConfig(
            max_attempts=int(event["max_attempts"]),
            initial_delay=Duration.from_seconds(1),
            backoff_rate=1,
        )
    )
    return context.step(attempt, name="flaky", config=StepConfig(strategy))


@workflow("test.not-json")
@durable_execution
def not_json(event: dict[str, Any], context: DurableContext) -> Any:
    return context.step(lambda _: {1, 2, 3}, name="returns-a-set")


@workflow("test.fanout")
@durable_execution
def fanout(event: dict[str, Any], context: DurableContext) -> Any:
    """map over items, then parallel branches, each branch a step."""
    items = event["items"]
    mapped = context.map(
        items,
        lambda ctx, item, i, _all: ctx.step(lambda _: item * 2, name="double"),
        name="doubles",
    )
    branches = context.parallel(
        [
            lambda ctx: ctx.step(lambda _: "a", name="a"),
            lambda ctx: ctx.step(lambda _: "b", name="b"),
        ],
        name="letters",
    )
    return {"mapped": mapped.get_results(), "parallel": branches.get_results()}


@workflow("test.callback")
@durable_execution
def callback(event: dict[str, Any], context: DurableContext) -> Any:
    log = event["log"]
    answer = context.wait_for_callback(
        lambda cid, _ctx: record(log, f"callback={cid}"), name="approval"
    )
    return {"answer": answer}


@workflow("test.slow")
@durable_execution
def slow(event: dict[str, Any], context: DurableContext) -> str:
    """One half-second step that logs which process ran it, and when."""
    import os

    def work(_: StepContext) -> str:
        record(event["log"], f"start:{event['n']}:{os.getpid()}")
        time.sleep(0.5)
        record(event["log"], f"end:{event['n']}:{os.getpid()}")
        return str(event["n"])

    return str(context.step(work, name="work"))


@workflow("test.poll-pause")
@durable_execution
def poll_pause(event: dict[str, Any], context: DurableContext) -> Any:
    """Poll ``polls`` times, ``pause`` seconds apart (a Duration built with a fraction)."""
    from aws_durable_execution_sdk_python.waits import (
        WaitForConditionConfig,
        WaitForConditionDecision,
    )

    polls, pause = int(event["polls"]), event["pause"]

    def check(state: dict[str, Any], _: Any) -> dict[str, Any]:
        return {"n": state["n"] + 1, "t": time.time()}

    def strategy(state: dict[str, Any], attempt: int) -> WaitForConditionDecision:
        if attempt >= polls:
            return WaitForConditionDecision.stop_polling()
        return WaitForConditionDecision.continue_waiting(Duration(seconds=pause))

    config = WaitForConditionConfig(wait_strategy=strategy, initial_state={"n": 0, "t": 0.0})
    return context.wait_for_condition(check, config, name="poll")


@workflow("test.logs")
@durable_execution
def logs(event: dict[str, Any], context: DurableContext) -> str:
    """Logs one warning inside a step (tests/durable/test_log_context.py)."""

    def say(_: StepContext) -> str:
        logging.getLogger("cfnops.test.logs").warning("inside the step")
        return "ok"

    return str(context.step(say, name="say"))
