"""Suite 2 (wait): handlers written from the requirements' words."""

from __future__ import annotations

from typing import Any

from aws_durable_execution_sdk_python import DurableContext, durable_execution
from aws_durable_execution_sdk_python.config import Duration

from cfnops.durable import lambda_function


@lambda_function("conf-2-1")
@durable_execution
def h2_1(event: Any, context: DurableContext) -> Any:
    context.wait(Duration.from_seconds(2))
    return None


@lambda_function("conf-2-2")
@durable_execution
def h2_2(event: Any, context: DurableContext) -> Any:
    context.wait(Duration.from_seconds(2), name="custom_wait_name")
    return None


@lambda_function("conf-2-3")
@durable_execution
def h2_3(event: Any, context: DurableContext) -> Any:
    context.wait(Duration.from_seconds(2), name="wait-1")
    context.wait(Duration.from_seconds(2), name="wait-2")
    return {"completedWaits": 2}


@lambda_function("conf-2-4")
@durable_execution
def h2_4(event: Any, context: DurableContext) -> Any:
    context.wait(Duration.from_minutes(1))
    return None


@lambda_function("conf-2-5")
@durable_execution
def h2_5(event: Any, context: DurableContext) -> Any:
    context.wait(Duration.from_hours(1))
    return None
