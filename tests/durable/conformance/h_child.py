"""Suite 3 (child context): handlers written from the requirements' words."""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from typing import Any

from aws_durable_execution_sdk_python import DurableContext, StepContext, durable_execution
from aws_durable_execution_sdk_python.config import ChildConfig, Duration, StepConfig
from aws_durable_execution_sdk_python.retries import (
    JitterStrategy,
    RetryPresets,
    RetryStrategyConfig,
    create_retry_strategy,
)
from aws_durable_execution_sdk_python.serdes import SerDes, SerDesContext

from cfnops.durable import lambda_function

NO_RETRY = StepConfig(retry_strategy=RetryPresets.none())
# Inputs whose step has already crashed the "Lambda runtime" once (3-12).
_crashed: set[str] = set()
_crashed_lock = threading.Lock()


def _retry(max_attempts: int) -> StepConfig:
    return StepConfig(
        retry_strategy=create_retry_strategy(
            RetryStrategyConfig(
                max_attempts=max_attempts,
                initial_delay=Duration.from_seconds(1),
                jitter_strategy=JitterStrategy.NONE,
            )
        )
    )


@lambda_function("conf-3-1")
@durable_execution
def h3_1(event: Any, context: DurableContext) -> Any:
    def child(ctx: DurableContext) -> Any:
        return ctx.step(lambda _: event)

    return context.run_in_child_context(child)


@lambda_function("conf-3-2")
@durable_execution
def h3_2(event: Any, context: DurableContext) -> Any:
    def child(ctx: DurableContext) -> Any:
        return ctx.step(lambda _: event["value"])

    return context.run_in_child_context(child, name=event["name"])


@lambda_function("conf-3-3")
@durable_execution
def h3_3(event: Any, context: DurableContext) -> Any:
    def two_steps(ctx: DurableContext) -> Any:
        first = ctx.step(lambda _: event)
        return ctx.step(lambda _: first)

    return context.run_in_child_context(two_steps, name="two-steps")


def _fail(_: StepContext) -> Any:
    raise RuntimeError("child step failed")


@lambda_function("conf-3-4")
@durable_execution
def h3_4(event: Any, context: DurableContext) -> Any:
    def failing_child(ctx: DurableContext) -> Any:
        return ctx.step(_fail, config=NO_RETRY)

    return context.run_in_child_context(failing_child, name="failing-child")


@lambda_function("conf-3-5")
@durable_execution
def h3_5(event: Any, context: DurableContext) -> Any:
    def failing_child(ctx: DurableContext) -> Any:
        return ctx.step(_fail, config=NO_RETRY)

    with contextlib.suppress(Exception):
        context.run_in_child_context(failing_child, name="failing-child")
    return context.step(lambda _: event)


@lambda_function("conf-3-6")
@durable_execution
def h3_6(event: Any, context: DurableContext) -> Any:
    def inner(ctx: DurableContext) -> Any:
        return ctx.step(lambda _: event)

    def outer(ctx: DurableContext) -> Any:
        ctx.step(lambda _: event)
        return ctx.run_in_child_context(inner, name="inner")

    return context.run_in_child_context(outer, name="outer")


@lambda_function("conf-3-7")
@durable_execution
def h3_7(event: Any, context: DurableContext) -> Any:
    def retrying_child(ctx: DurableContext) -> Any:
        def flaky(step_context: StepContext) -> Any:
            if step_context.attempt == 1:
                raise RuntimeError("first attempt fails")
            return event

        return ctx.step(flaky, config=_retry(3))

    return context.run_in_child_context(retrying_child, name="retrying-child")


@lambda_function("conf-3-8")
@durable_execution
def h3_8(event: Any, context: DurableContext) -> Any:
    def exhausted_child(ctx: DurableContext) -> Any:
        return ctx.step(_fail, config=_retry(2))

    return context.run_in_child_context(exhausted_child, name="exhausted-child")


@lambda_function("conf-3-9")
@durable_execution
def h3_9(event: Any, context: DurableContext) -> Any:
    def child(ctx: DurableContext) -> Any:
        return ctx.step(lambda _: event)

    result = context.run_in_child_context(child)
    context.wait(Duration.from_seconds(1))
    return result


@lambda_function("conf-3-10")
@durable_execution
def h3_10(event: Any, context: DurableContext) -> Any:
    def step_and_wait(ctx: DurableContext) -> Any:
        value = ctx.step(lambda _: event)
        ctx.wait(Duration.from_seconds(1))
        return value

    return context.run_in_child_context(step_and_wait, name="step-and-wait")


@lambda_function("conf-3-11")
@durable_execution
def h3_11(event: Any, context: DurableContext) -> Any:
    def large_child(ctx: DurableContext) -> Any:
        ctx.logger.with_is_replaying(lambda: False).info(f"building from {event}")
        small = ctx.step(lambda _: "x")
        return small * (300 * 1024)

    result = context.run_in_child_context(large_child, name="large-child")
    context.wait(Duration.from_seconds(1))
    return len(result)


@lambda_function("conf-3-12")
@durable_execution
def h3_12(event: Any, context: DurableContext) -> Any:
    def crashing_child(ctx: DurableContext) -> Any:
        def crash_once(_: StepContext) -> Any:
            with _crashed_lock:
                first = event not in _crashed
                _crashed.add(event)
            if first:
                time.sleep(0.5)  # StepStarted is checkpointed, then the runtime dies
                sys.exit(1)  # the Lambda runtime crashes (process.exit)
            return event

        return ctx.step(crash_once)

    return context.run_in_child_context(crashing_child)


@lambda_function("conf-3-13")
@durable_execution
def h3_13(event: Any, context: DurableContext) -> Any:
    def waiting_child(ctx: DurableContext) -> Any:
        ctx.wait(Duration.from_seconds(1))
        return event

    context.run_in_child_context(waiting_child, name="waiting-child")
    return context.step(lambda _: event)


class _Upper(SerDes[Any]):
    def serialize(self, value: Any, serdes_context: SerDesContext) -> str:
        return str(value).upper()

    def deserialize(self, data: str, serdes_context: SerDesContext) -> Any:
        return data


@lambda_function("conf-3-14")
@durable_execution
def h3_14(event: Any, context: DurableContext) -> Any:
    def child(ctx: DurableContext) -> Any:
        return ctx.step(lambda _: event)

    # The child context's own result, as the SDK hands it back (never recomputed here).
    return context.run_in_child_context(child, name="upper", config=ChildConfig(serdes=_Upper()))


@lambda_function("conf-3-15")
@durable_execution
def h3_15(event: Any, context: DurableContext) -> Any:
    def throwing_child(ctx: DurableContext) -> Any:
        raise ValueError("thrown directly in the child body")

    return context.run_in_child_context(throwing_child, name="throwing-child")


@lambda_function("conf-3-16")
@durable_execution
def h3_16(event: Any, context: DurableContext) -> Any:
    def null_child(ctx: DurableContext) -> Any:
        return None

    return context.run_in_child_context(null_child, name="null-child")


@lambda_function("conf-3-17")
@durable_execution
def h3_17(event: Any, context: DurableContext) -> Any:
    def logging_child(ctx: DurableContext) -> Any:
        ctx.logger.with_is_replaying(lambda: False).info(f"child saw {event}")
        return event

    result = context.run_in_child_context(logging_child, name="logging-child")
    context.wait(Duration.from_seconds(1))
    return result


@lambda_function("conf-3-18")
@durable_execution
def h3_18(event: Any, context: DurableContext) -> Any:
    def step_and_wait(ctx: DurableContext) -> Any:
        value = ctx.step(lambda _: event)
        ctx.wait(Duration.from_seconds(1))
        return value

    result = context.run_in_child_context(step_and_wait, name="step-and-wait")
    outer = context.step(lambda _: result)
    context.wait(Duration.from_seconds(1))
    return json.loads(json.dumps(outer))
