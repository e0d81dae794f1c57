"""Suite 7 (wait_for_callback): handlers written from the requirements' words."""

from __future__ import annotations

import json
from typing import Any

from aws_durable_execution_sdk_python import DurableContext, durable_execution
from aws_durable_execution_sdk_python.config import Duration, WaitForCallbackConfig
from aws_durable_execution_sdk_python.retries import (
    JitterStrategy,
    RetryStrategyConfig,
    create_retry_strategy,
)
from aws_durable_execution_sdk_python.serdes import SerDes, SerDesContext

from cfnops.durable import lambda_function


def submit(callback_id: str, _: Any) -> None:
    """Hands the callback id to the external system (which the runner plays)."""


def _config(timeout: int = 0, heartbeat: int = 0) -> WaitForCallbackConfig:
    return WaitForCallbackConfig(
        timeout=Duration.from_seconds(timeout), heartbeat_timeout=Duration.from_seconds(heartbeat)
    )


@lambda_function("conf-7-1")
@durable_execution
def h7_1(event: Any, context: DurableContext) -> Any:
    return context.wait_for_callback(submit, name=event)


@lambda_function("conf-7-2")
@durable_execution
def h7_2(event: Any, context: DurableContext) -> Any:
    return context.wait_for_callback(submit, name="approval")


@lambda_function("conf-7-3")
@durable_execution
def h7_3(event: Any, context: DurableContext) -> Any:
    return context.wait_for_callback(lambda callback_id, _: None)


@lambda_function("conf-7-4")
@durable_execution
def h7_4(event: Any, context: DurableContext) -> Any:
    return context.wait_for_callback(submit, name=event)


@lambda_function("conf-7-5")
@durable_execution
def h7_5(event: Any, context: DurableContext) -> Any:
    return context.wait_for_callback(submit, name=event, config=_config(timeout=3))


@lambda_function("conf-7-6")
@durable_execution
def h7_6(event: Any, context: DurableContext) -> Any:
    try:
        return context.wait_for_callback(submit, name=event)
    except Exception:
        return "recovered"


@lambda_function("conf-7-7")
@durable_execution
def h7_7(event: Any, context: DurableContext) -> Any:
    def failing_submit(callback_id: str, _: Any) -> None:
        raise RuntimeError("submitter failed")

    retry = create_retry_strategy(
        RetryStrategyConfig(
            max_attempts=2,
            initial_delay=Duration.from_seconds(1),
            jitter_strategy=JitterStrategy.NONE,
        )
    )
    return context.wait_for_callback(
        failing_submit, name=event, config=WaitForCallbackConfig(retry_strategy=retry)
    )


@lambda_function("conf-7-8")
@durable_execution
def h7_8(event: Any, context: DurableContext) -> Any:
    def wrapper(ctx: DurableContext) -> Any:
        return ctx.wait_for_callback(submit, name=event)

    return context.run_in_child_context(wrapper, name="wrapper")


@lambda_function("conf-7-9")
@durable_execution
def h7_9(event: Any, context: DurableContext) -> Any:
    context.wait_for_callback(submit, name="first")
    return context.wait_for_callback(submit, name="second")


@lambda_function("conf-7-10")
@durable_execution
def h7_10(event: Any, context: DurableContext) -> Any:
    context.wait(Duration.from_seconds(1))
    context.step(lambda _: {"fixed": "data"})
    return context.wait_for_callback(submit, name=event)


class _JsonObject(SerDes[Any]):
    def serialize(self, value: Any, serdes_context: SerDesContext) -> str:
        return json.dumps(value)

    def deserialize(self, data: str, serdes_context: SerDesContext) -> Any:
        return json.loads(data)


@lambda_function("conf-7-11")
@durable_execution
def h7_11(event: Any, context: DurableContext) -> Any:
    result = context.wait_for_callback(
        submit, name=event, config=WaitForCallbackConfig(serdes=_JsonObject())
    )
    return result["status"]


@lambda_function("conf-7-12")
@durable_execution
def h7_12(event: Any, context: DurableContext) -> Any:
    return context.wait_for_callback(submit, name=event, config=_config(heartbeat=5))


@lambda_function("conf-7-13")
@durable_execution
def h7_13(event: Any, context: DurableContext) -> Any:
    return context.wait_for_callback(submit, name=event, config=_config(heartbeat=10))


@lambda_function("conf-7-14")
@durable_execution
def h7_14(event: Any, context: DurableContext) -> Any:
    try:
        return context.wait_for_callback(submit, name=event, config=_config(timeout=3))
    except Exception:
        return "timed-out-handled"


@lambda_function("conf-7-15")
@durable_execution
def h7_15(event: Any, context: DurableContext) -> Any:
    return context.wait_for_callback(submit, name=event)
