"""Suite 10 (plugin): handlers and instrumentation plugins written from the requirements' words.

Plugins write their JSON records through ``logging`` with the execution's ARN, which the
runner's log sink collects per execution (as CloudWatch's execution-scoped retrieval does).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from aws_durable_execution_sdk_python import DurableContext, StepContext, durable_execution
from aws_durable_execution_sdk_python.config import Duration, StepConfig
from aws_durable_execution_sdk_python.plugin import DurableInstrumentationPlugin
from aws_durable_execution_sdk_python.retries import (
    JitterStrategy,
    RetryPresets,
    RetryStrategyConfig,
    create_retry_strategy,
)

from cfnops.durable import lambda_function

_out = logging.getLogger("conformance.plugin")


class RecordingPlugin(DurableInstrumentationPlugin):
    """Logs ``{"plugin": NAME, "hook": …}`` from the hooks it is asked to record."""

    def __init__(self, name: str, hooks: set[str], *, faulty: bool = False) -> None:
        self.name = name
        self.hooks = hooks
        self.faulty = faulty
        self.arn: str | None = None

    def _emit(self, hook: str, **fields: Any) -> None:
        if hook in self.hooks:
            record = {"plugin": self.name, "hook": hook, **fields}
            record["durableExecutionArn"] = self.arn
            _out.info(json.dumps(record), extra={"executionArn": self.arn, "conformance": record})
        if self.faulty:
            raise RuntimeError(f"{self.name} fails in {hook}")

    def on_invocation_start(self, info: Any) -> None:
        self.arn = info.execution_arn
        self._emit("invocation-start", first=info.is_first_invocation)

    def on_invocation_end(self, info: Any) -> None:
        self._emit("invocation-end", status=info.status.value)

    def on_operation_start(self, info: Any) -> None:
        if info.operation_type.value == "STEP":
            self._emit("operation-start", op=info.operation_id)

    def on_operation_end(self, info: Any) -> None:
        if info.operation_type.value == "STEP":
            self._emit("operation-end", op=info.operation_id, status=info.status.value)

    def on_user_function_start(self, info: Any) -> None:
        if info.operation_type.value == "STEP":
            self._emit("attempt-start", n=info.attempt, op=info.operation_id)

    def on_user_function_end(self, info: Any) -> None:
        if info.operation_type.value == "STEP":
            self._emit(
                "attempt-end", n=info.attempt, outcome=info.outcome.value, op=info.operation_id
            )


class Factory:
    def __init__(self, name: str, *hooks: str, faulty: bool = False) -> None:
        self.name = name
        self.hooks = set(hooks)
        self.faulty = faulty

    def create_plugin(self, info: Any) -> RecordingPlugin:
        return RecordingPlugin(self.name, self.hooks, faulty=self.faulty)


INVOCATION = ("invocation-start", "invocation-end")
EVERY = (*INVOCATION, "operation-start", "operation-end", "attempt-start", "attempt-end")


def _greet(event: Any, log: bool = False) -> Any:
    def greet(step_context: StepContext) -> str:
        if log:
            step_context.logger.info(f"Greeting step running for: {event}")
        return f"Hello, {event}!"

    return greet


@lambda_function("conf-10-1")
@durable_execution(plugins=[Factory("CONFPLUGIN", *INVOCATION)])
def h10_1(event: Any, context: DurableContext) -> Any:
    return context.step(_greet(event, log=True))


@lambda_function("conf-10-2")
@durable_execution(plugins=[Factory("CONFPLUGIN", "operation-start", "operation-end")])
def h10_2(event: Any, context: DurableContext) -> Any:
    return context.step(_greet(event))


@lambda_function("conf-10-3")
@durable_execution(plugins=[Factory("CONFPLUGIN", "attempt-start", "attempt-end")])
def h10_3(event: Any, context: DurableContext) -> Any:
    def unreliable(step_context: StepContext) -> str:
        if step_context.attempt == 1:
            raise RuntimeError("first attempt fails")
        return "Operation succeeded"

    retry = create_retry_strategy(
        RetryStrategyConfig(
            max_attempts=3,
            initial_delay=Duration.from_seconds(1),
            jitter_strategy=JitterStrategy.NONE,
        )
    )
    return context.step(unreliable, config=StepConfig(retry_strategy=retry))


@lambda_function("conf-10-4")
@durable_execution(plugins=[Factory("CONFPLUGIN-FAULTY", *EVERY, faulty=True)])
def h10_4(event: Any, context: DurableContext) -> Any:
    return context.step(_greet(event))


@lambda_function("conf-10-5")
@durable_execution(
    plugins=[Factory("CONFPLUGIN-A", *INVOCATION), Factory("CONFPLUGIN-B", *INVOCATION)]
)
def h10_5(event: Any, context: DurableContext) -> Any:
    return context.step(_greet(event))


@lambda_function("conf-10-6")
@durable_execution(plugins=[Factory("CONFPLUGIN", *INVOCATION)])
def h10_6(event: Any, context: DurableContext) -> Any:
    context.wait(Duration.from_seconds(2))
    return None


@lambda_function("conf-10-7")
@durable_execution(plugins=[Factory("CONFPLUGIN", *INVOCATION)])
def h10_7(event: Any, context: DurableContext) -> Any:
    def failing(_: StepContext) -> str:
        raise RuntimeError("always fails")

    return context.step(failing, config=StepConfig(retry_strategy=RetryPresets.none()))
