"""Suite 1 (step): handlers written from the requirements' words."""

from __future__ import annotations

import contextlib
import sys
from typing import Any

from aws_durable_execution_sdk_python import DurableContext, StepContext, durable_execution
from aws_durable_execution_sdk_python.config import Duration, StepConfig, StepSemantics
from aws_durable_execution_sdk_python.retries import (
    JitterStrategy,
    RetryDecision,
    RetryPresets,
    RetryStrategyConfig,
    create_retry_strategy,
)
from aws_durable_execution_sdk_python.serdes import SerDes, SerDesContext

from cfnops.durable import lambda_function

NO_RETRY = StepConfig(retry_strategy=RetryPresets.none())


class TransientError(Exception):
    pass


@lambda_function("conf-1-1")
@durable_execution
def h1_1(event: Any, context: DurableContext) -> Any:
    def greet(_: StepContext) -> str:
        return f"Hello, {event}!"

    return context.step(greet)


@lambda_function("conf-1-2")
@durable_execution
def h1_2(event: Any, context: DurableContext) -> Any:
    return context.step(lambda _: f"Hello, {event}!", name="custom_step_name")


@lambda_function("conf-1-3")
@durable_execution
def h1_3(event: Any, context: DurableContext) -> Any:
    first = context.step(lambda _: "first")
    return context.step(lambda _: f"{first}_second")


@lambda_function("conf-1-4")
@durable_execution
def h1_4(event: Any, context: DurableContext) -> Any:
    return context.step(
        lambda _: {
            "user": {"name": event["name"], "tags": event["tags"]},
            "count": len(event["tags"]),
        }
    )


@lambda_function("conf-1-5")
@durable_execution
def h1_5(event: Any, context: DurableContext) -> Any:
    return context.step(lambda _: None)


class UppercaseSerDes(SerDes[Any]):
    def serialize(self, value: Any, serdes_context: SerDesContext) -> str:
        import json

        return json.dumps(value.upper() if isinstance(value, str) else value)

    def deserialize(self, data: str, serdes_context: SerDesContext) -> Any:
        import json

        return json.loads(data)


@lambda_function("conf-1-6")
@durable_execution
def h1_6(event: Any, context: DurableContext) -> Any:
    return context.step(lambda _: event, config=StepConfig(serdes=UppercaseSerDes()))


@lambda_function("conf-1-7")
@durable_execution
def h1_7(event: Any, context: DurableContext) -> Any:
    def greet(step_context: StepContext) -> str:
        step_context.logger.info(f"Greeting step started for: {event}")
        result = f"Hello, {event}!"
        step_context.logger.info(f"Greeting step completed with: {result}")
        return result

    return context.step(greet)


@lambda_function("conf-1-8")
@durable_execution
def h1_8(event: Any, context: DurableContext) -> Any:
    result = context.step(lambda _: "computed")
    context.wait(Duration.from_seconds(2))
    return result


@lambda_function("conf-1-9")
@durable_execution
def h1_9(event: Any, context: DurableContext) -> Any:
    def func(step_context: StepContext) -> str:
        step_context.logger.info("step executed")
        return "cached_value"

    result = context.step(func)
    context.wait(Duration.from_seconds(1))
    return result


@lambda_function("conf-1-10")
@durable_execution
def h1_10(event: Any, context: DurableContext) -> Any:
    def func(step_context: StepContext) -> str:
        step_context.logger.info("step executed")
        raise RuntimeError("permanent failure")

    with contextlib.suppress(Exception):
        context.step(func, config=NO_RETRY)
    context.wait(Duration.from_seconds(1))
    return None


def _fixed(max_attempts: int, delay: int = 1, backoff: float = 1.0) -> Any:
    return create_retry_strategy(
        RetryStrategyConfig(
            max_attempts=max_attempts,
            initial_delay=Duration.from_seconds(delay),
            backoff_rate=backoff,
            jitter_strategy=JitterStrategy.NONE,
        )
    )


@lambda_function("conf-1-11")
@durable_execution
def h1_11(event: Any, context: DurableContext) -> Any:
    def unreliable(step_context: StepContext) -> str:
        if step_context.attempt == 1:
            raise RuntimeError("first attempt fails")
        return "Operation succeeded"

    return context.step(unreliable, config=StepConfig(retry_strategy=_fixed(3)))


@lambda_function("conf-1-12")
@durable_execution
def h1_12(event: Any, context: DurableContext) -> Any:
    def always_fail(_: StepContext) -> str:
        raise RuntimeError("always fails")

    return context.step(always_fail, config=StepConfig(retry_strategy=_fixed(4)))


@lambda_function("conf-1-13")
@durable_execution
def h1_13(event: Any, context: DurableContext) -> Any:
    def unreliable(step_context: StepContext) -> str:
        if step_context.attempt < 3:
            raise RuntimeError(f"attempt {step_context.attempt} fails")
        return "succeeded"

    return context.step(unreliable)


@lambda_function("conf-1-14")
@durable_execution
def h1_14(event: Any, context: DurableContext) -> Any:
    def func(step_context: StepContext) -> str:
        if step_context.attempt < 3:
            raise RuntimeError(f"attempt {step_context.attempt} fails")
        return "succeeded"

    return context.step(func, config=StepConfig(retry_strategy=_fixed(5, 2, 3)))


def _retry_on_transient(error: Exception, attempt: int) -> RetryDecision:
    if isinstance(error, TransientError) and attempt < 3:
        return RetryDecision.retry(Duration.from_seconds(1))
    return RetryDecision.no_retry()


@lambda_function("conf-1-15")
@durable_execution
def h1_15(event: Any, context: DurableContext) -> Any:
    def func(step_context: StepContext) -> str:
        if step_context.attempt == 1:
            raise TransientError("transient")
        return "recovered"

    return context.step(func, config=StepConfig(retry_strategy=_retry_on_transient))


def _no_retry_on_transient(error: Exception, attempt: int) -> RetryDecision:
    if isinstance(error, TransientError):
        return RetryDecision.no_retry()
    return RetryDecision.retry(Duration.from_seconds(1))


@lambda_function("conf-1-16")
@durable_execution
def h1_16(event: Any, context: DurableContext) -> Any:
    def func(_: StepContext) -> str:
        raise TransientError("transient")

    return context.step(func, config=StepConfig(retry_strategy=_no_retry_on_transient))


@lambda_function("conf-1-17")
@durable_execution
def h1_17(event: Any, context: DurableContext) -> Any:
    def at_most_once_flaky_step(step_context: StepContext) -> str:
        step_context.logger.info(f"running with {event}")
        sys.exit(1)  # the Lambda runtime crashes (process.exit)

    return context.step(
        at_most_once_flaky_step,
        name="at_most_once_flaky_step",
        config=StepConfig(
            retry_strategy=RetryPresets.none(),
            step_semantics=StepSemantics.AT_MOST_ONCE_PER_RETRY,
        ),
    )


@lambda_function("conf-1-18")
@durable_execution
def h1_18(event: Any, context: DurableContext) -> Any:
    def flaky(step_context: StepContext) -> str:
        step_context.logger.info(f"running with {event}")
        if step_context.attempt == 1:
            sys.exit(1)
        return "succeeded on second attempt"

    return context.step(
        flaky,
        name="at_most_once_flaky_step",
        config=StepConfig(
            retry_strategy=_fixed(3),
            step_semantics=StepSemantics.AT_MOST_ONCE_PER_RETRY,
        ),
    )


@lambda_function("conf-1-19")
@durable_execution
def h1_19(event: Any, context: DurableContext) -> Any:
    def failing(_: StepContext) -> str:
        raise RuntimeError("step failed")

    return context.step(failing, config=NO_RETRY)


@lambda_function("conf-1-20")
@durable_execution
def h1_20(event: Any, context: DurableContext) -> Any:
    def failing(_: StepContext) -> str:
        raise RuntimeError("step failed")

    try:
        value = context.step(failing, config=NO_RETRY)
    except Exception:
        value = "fallback"
    return context.step(lambda _: f"{value}_result")
