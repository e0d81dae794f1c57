"""Suite 6 (wait_for_condition): handlers written from the requirements' words."""

from __future__ import annotations

import json
from typing import Any

from aws_durable_execution_sdk_python import DurableContext, durable_execution
from aws_durable_execution_sdk_python.config import Duration, JitterStrategy
from aws_durable_execution_sdk_python.serdes import SerDes, SerDesContext
from aws_durable_execution_sdk_python.waits import (
    WaitForConditionConfig,
    WaitForConditionDecision,
    WaitStrategyConfig,
    create_wait_strategy,
)

from cfnops.durable import lambda_function


def _until(stop: Any, delay: int = 1) -> Any:
    """Continue (after ``delay`` s) until ``stop(state)``."""

    def strategy(state: Any, attempt: int) -> WaitForConditionDecision:
        if stop(state):
            return WaitForConditionDecision.stop_polling()
        return WaitForConditionDecision.continue_waiting(Duration.from_seconds(delay))

    return strategy


def _count_to(
    context: DurableContext, threshold: int, start: int = 0, name: str | None = None
) -> Any:
    config = WaitForConditionConfig(
        wait_strategy=_until(lambda s: s >= threshold), initial_state=start
    )
    return context.wait_for_condition(lambda state, _: state + 1, config, name=name)


@lambda_function("conf-6-1")
@durable_execution
def h6_1(event: Any, context: DurableContext) -> Any:
    return _count_to(context, event)


@lambda_function("conf-6-2")
@durable_execution
def h6_2(event: Any, context: DurableContext) -> Any:
    config = WaitForConditionConfig(wait_strategy=_until(lambda s: s >= 5), initial_state=5)
    return context.wait_for_condition(lambda state, _: state, config)


@lambda_function("conf-6-3")
@durable_execution
def h6_3(event: Any, context: DurableContext) -> Any:
    return _count_to(context, 2, name="poll-status")


@lambda_function("conf-6-4")
@durable_execution
def h6_4(event: Any, context: DurableContext) -> Any:
    return _count_to(context, event, start=5)


@lambda_function("conf-6-5")
@durable_execution
def h6_5(event: Any, context: DurableContext) -> Any:
    strategy = create_wait_strategy(
        WaitStrategyConfig(
            should_continue_polling=lambda s: s < event,
            initial_delay=Duration.from_seconds(2),
            backoff_rate=1,
            jitter_strategy=JitterStrategy.NONE,
        )
    )
    config = WaitForConditionConfig(wait_strategy=strategy, initial_state=0)
    return context.wait_for_condition(lambda state, _: state + 1, config)


@lambda_function("conf-6-6")
@durable_execution
def h6_6(event: Any, context: DurableContext) -> Any:
    strategy = create_wait_strategy(
        WaitStrategyConfig(
            should_continue_polling=lambda s: True,
            max_attempts=3,
            initial_delay=Duration.from_seconds(1),
            backoff_rate=1,
            jitter_strategy=JitterStrategy.NONE,
        )
    )
    config = WaitForConditionConfig(wait_strategy=strategy, initial_state=0)
    return context.wait_for_condition(lambda state, _: state + 1, config)


def _raising(state: Any, _: Any) -> Any:
    raise RuntimeError("check failed")


@lambda_function("conf-6-7")
@durable_execution
def h6_7(event: Any, context: DurableContext) -> Any:
    config = WaitForConditionConfig(wait_strategy=_until(lambda s: True), initial_state=0)
    return context.wait_for_condition(_raising, config)


@lambda_function("conf-6-8")
@durable_execution
def h6_8(event: Any, context: DurableContext) -> Any:
    config = WaitForConditionConfig(wait_strategy=_until(lambda s: True), initial_state=0)
    try:
        return context.wait_for_condition(_raising, config)
    except Exception:
        return "recovered"


@lambda_function("conf-6-9")
@durable_execution
def h6_9(event: Any, context: DurableContext) -> Any:
    def check(state: Any, _: Any) -> Any:
        attempts = state["attempts"] + 1
        return {"status": "DONE" if attempts >= 2 else "PENDING", "attempts": attempts}

    config = WaitForConditionConfig(
        wait_strategy=_until(lambda s: s["status"] != "PENDING"),
        initial_state={"status": "PENDING", "attempts": 0},
    )
    return context.wait_for_condition(check, config)


@lambda_function("conf-6-10")
@durable_execution
def h6_10(event: Any, context: DurableContext) -> Any:
    config = WaitForConditionConfig(wait_strategy=_until(lambda s: True), initial_state=0)
    return context.wait_for_condition(lambda state, _: None, config)


class _Encoded(SerDes[Any]):
    """Checkpoints the state as ``{"encoded": ...}``."""

    def serialize(self, value: Any, serdes_context: SerDesContext) -> str:
        return json.dumps({"encoded": value})

    def deserialize(self, data: str, serdes_context: SerDesContext) -> Any:
        return json.loads(data)["encoded"]


@lambda_function("conf-6-11")
@durable_execution
def h6_11(event: Any, context: DurableContext) -> Any:
    config = WaitForConditionConfig(
        wait_strategy=_until(lambda s: len(s) >= 2), initial_state="", serdes=_Encoded()
    )
    return context.wait_for_condition(lambda state, _: state + "x", config)


@lambda_function("conf-6-12")
@durable_execution
def h6_12(event: Any, context: DurableContext) -> Any:
    final = _count_to(context, event)
    return context.step(lambda _: final * 10)


@lambda_function("conf-6-13")
@durable_execution
def h6_13(event: Any, context: DurableContext) -> Any:
    first = _count_to(context, 2)
    return _count_to(context, 4, start=first)
