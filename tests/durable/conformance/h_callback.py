"""Suite 4 (callback): handlers written from the requirements' words."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from aws_durable_execution_sdk_python import DurableContext, durable_execution
from aws_durable_execution_sdk_python.config import CallbackConfig, Duration
from aws_durable_execution_sdk_python.serdes import SerDes, SerDesContext

from cfnops.durable import lambda_function


def _seconds(timeout: int = 0, heartbeat: int = 0) -> CallbackConfig:
    return CallbackConfig(
        timeout=Duration.from_seconds(timeout), heartbeat_timeout=Duration.from_seconds(heartbeat)
    )


@lambda_function("conf-4-1")
@durable_execution
def h4_1(event: Any, context: DurableContext) -> Any:
    return context.create_callback(name=event).result()


@lambda_function("conf-4-2")
@durable_execution
def h4_2(event: Any, context: DurableContext) -> Any:
    return context.create_callback(name="approval").result()


@lambda_function("conf-4-3")
@durable_execution
def h4_3(event: Any, context: DurableContext) -> Any:
    return context.create_callback(name=event, config=_seconds(timeout=5)).result()


@lambda_function("conf-4-4")
@durable_execution
def h4_4(event: Any, context: DurableContext) -> Any:
    return context.create_callback(name=event, config=_seconds(heartbeat=5)).result()


@lambda_function("conf-4-5")
@durable_execution
def h4_5(event: Any, context: DurableContext) -> Any:
    return context.create_callback(name=event, config=_seconds(heartbeat=10)).result()


@lambda_function("conf-4-6")
@durable_execution
def h4_6(event: Any, context: DurableContext) -> Any:
    return context.create_callback(name=event).result()


@lambda_function("conf-4-7")
@durable_execution
def h4_7(event: Any, context: DurableContext) -> Any:
    callback = context.create_callback(name=event)
    context.step(lambda _: "side work")
    return callback.result()


@lambda_function("conf-4-8")
@durable_execution
def h4_8(event: Any, context: DurableContext) -> Any:
    callback = context.create_callback(name=event, config=_seconds(timeout=5))
    context.step(lambda _: "side work")
    return callback.result()


def _callback_then_wait(event: Any, context: DurableContext, wait: int, timeout: int = 0) -> Any:
    callback = context.create_callback(name=event, config=_seconds(timeout=timeout))
    context.wait(Duration.from_seconds(wait))
    return callback.result()


@lambda_function("conf-4-9")
@durable_execution
def h4_9(event: Any, context: DurableContext) -> Any:
    return _callback_then_wait(event, context, 5)


@lambda_function("conf-4-10")
@durable_execution
def h4_10(event: Any, context: DurableContext) -> Any:
    return _callback_then_wait(event, context, 5)


@lambda_function("conf-4-11")
@durable_execution
def h4_11(event: Any, context: DurableContext) -> Any:
    return _callback_then_wait(event, context, 6, timeout=3)


@lambda_function("conf-4-12")
@durable_execution
def h4_12(event: Any, context: DurableContext) -> Any:
    result = context.create_callback(name=event).result()
    context.wait(Duration.from_seconds(2))
    return result


@lambda_function("conf-4-13")
@durable_execution
def h4_13(event: Any, context: DurableContext) -> Any:
    try:
        message = context.create_callback(name=event).result()
    except Exception as exc:
        message = f"callback failed: {exc}"
    context.wait(Duration.from_seconds(2))
    return message


@lambda_function("conf-4-14")
@durable_execution
def h4_14(event: Any, context: DurableContext) -> Any:
    try:
        message = context.create_callback(name=event, config=_seconds(timeout=3)).result()
    except Exception as exc:
        message = f"callback timed out: {exc}"
    context.wait(Duration.from_seconds(2))
    return message


class _EventSerDes(SerDes[Any]):
    def serialize(self, value: Any, serdes_context: SerDesContext) -> str:
        return json.dumps(value)

    def deserialize(self, data: str, serdes_context: SerDesContext) -> Any:
        raw = json.loads(data)
        stamp = datetime.fromisoformat(raw["timestamp"].replace("Z", "+00:00"))
        return {"id": raw["id"], "message": raw["message"], "timestamp": int(stamp.timestamp())}


class _NumberSerDes(SerDes[Any]):
    def serialize(self, value: Any, serdes_context: SerDesContext) -> str:
        return json.dumps(value)

    def deserialize(self, data: str, serdes_context: SerDesContext) -> Any:
        return float(json.loads(data))


@lambda_function("conf-4-15")
@durable_execution
def h4_15(event: Any, context: DurableContext) -> Any:
    callback = context.create_callback(name=event, config=CallbackConfig(serdes=_EventSerDes()))
    return {"received": callback.result()}


@lambda_function("conf-4-16")
@durable_execution
def h4_16(event: Any, context: DurableContext) -> Any:
    callback = context.create_callback(name=event, config=CallbackConfig(serdes=_NumberSerDes()))
    count = int(callback.result() or 0)
    return {"count": count, "doubled": count * 2}


@lambda_function("conf-4-17")
@durable_execution
def h4_17(event: Any, context: DurableContext) -> Any:
    a = context.create_callback(name=event[0]).result()
    b = context.create_callback(name=event[1]).result()
    return [a, b]


@lambda_function("conf-4-18")
@durable_execution
def h4_18(event: Any, context: DurableContext) -> Any:
    a = context.create_callback(name=event[0])
    b = context.create_callback(name=event[1])
    return [a.result(), b.result()]


@lambda_function("conf-4-19")
@durable_execution
def h4_19(event: Any, context: DurableContext) -> Any:
    a = context.create_callback(name=event[0])
    b = context.create_callback(name=event[1])
    second = b.result()
    return [a.result(), second]
