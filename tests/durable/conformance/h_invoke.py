"""Suite 5 (invoke): handlers written from the requirements' words, and their targets."""

from __future__ import annotations

import json
from typing import Any

from aws_durable_execution_sdk_python import DurableContext, durable_execution
from aws_durable_execution_sdk_python.config import Duration, InvokeConfig
from aws_durable_execution_sdk_python.serdes import SerDes, SerDesContext

from cfnops.durable import lambda_function


@lambda_function("conf-echo", durable=False)
def echo(event: Any, context: Any) -> Any:
    """A plain Lambda function that returns what it receives."""
    return event


@lambda_function("conf-fail", durable=False)
def fail(event: Any, context: Any) -> Any:
    raise RuntimeError("target function failed")


@lambda_function("conf-measure", durable=False)
def measure(event: Any, context: Any) -> Any:
    return {"received": len(json.dumps(event))}


@lambda_function("conf-5-1")
@durable_execution
def h5_1(event: Any, context: DurableContext) -> Any:
    return context.invoke("conf-echo", event)


@lambda_function("conf-5-2")
@durable_execution
def h5_2(event: Any, context: DurableContext) -> Any:
    return context.invoke("conf-echo", event["payload"], name=event["name"])


@lambda_function("conf-5-3")
@durable_execution
def h5_3(event: Any, context: DurableContext) -> Any:
    return context.invoke("conf-echo", event)


@lambda_function("conf-5-4")
@durable_execution
def h5_4(event: Any, context: DurableContext) -> Any:
    return context.invoke("conf-echo", None)


@lambda_function("conf-5-5")
@durable_execution
def h5_5(event: Any, context: DurableContext) -> Any:
    return context.invoke("conf-fail", None)


@lambda_function("conf-5-6")
@durable_execution
def h5_6(event: Any, context: DurableContext) -> Any:
    try:
        return context.invoke("conf-fail", None)
    except Exception:
        return "fallback"


@lambda_function("conf-5-7")
@durable_execution
def h5_7(event: Any, context: DurableContext) -> Any:
    large = "x" * (200 * 1024)  # near the 256 KB checkpoint payload limit
    return context.invoke("conf-measure", {"data": large})


@lambda_function("conf-5-8")
@durable_execution
def h5_8(event: Any, context: DurableContext) -> Any:
    return context.invoke(
        "conf-echo", event["payload"], config=InvokeConfig(tenant_id=event["tenantId"])
    )


@lambda_function("conf-5-9")
@durable_execution
def h5_9(event: Any, context: DurableContext) -> Any:
    result = context.invoke("conf-echo", {"value": 1})
    context.wait(Duration.from_seconds(1))
    return result


@lambda_function("conf-5-10")
@durable_execution
def h5_10(event: Any, context: DurableContext) -> Any:
    try:
        outcome = context.invoke("conf-fail", None)
    except Exception:
        outcome = "caught"
    context.wait(Duration.from_seconds(1))
    return outcome


@lambda_function("conf-5-11")
@durable_execution
def h5_11(event: Any, context: DurableContext) -> Any:
    value = context.step(lambda _: {"step": "done"})
    return context.invoke("conf-echo", value)


@lambda_function("conf-5-12")
@durable_execution
def h5_12(event: Any, context: DurableContext) -> Any:
    result = context.invoke("conf-echo", {"value": 2})
    return context.step(lambda _: {"processed": result})


@lambda_function("conf-5-13")
@durable_execution
def h5_13(event: Any, context: DurableContext) -> Any:
    return context.run_in_child_context(lambda child: child.invoke("conf-echo", {"in": "child"}))


@lambda_function("conf-5-14")
@durable_execution
def h5_14(event: Any, context: DurableContext) -> Any:
    first = context.invoke("conf-echo", {"n": 1})
    second = context.invoke("conf-echo", {"n": 2})
    return [first, second]


class _UpperPayload(SerDes[Any]):
    def serialize(self, value: Any, serdes_context: SerDesContext) -> str:
        return json.dumps({k: str(v).upper() for k, v in value.items()})

    def deserialize(self, data: str, serdes_context: SerDesContext) -> Any:
        return json.loads(data)


class _UpperResult(SerDes[Any]):
    def serialize(self, value: Any, serdes_context: SerDesContext) -> str:
        return json.dumps(value)

    def deserialize(self, data: str, serdes_context: SerDesContext) -> Any:
        return data.upper()


@lambda_function("conf-5-15")
@durable_execution
def h5_15(event: Any, context: DurableContext) -> Any:
    return context.invoke("conf-echo", event, config=InvokeConfig(serdes_payload=_UpperPayload()))


@lambda_function("conf-5-16")
@durable_execution
def h5_16(event: Any, context: DurableContext) -> Any:
    return context.invoke("conf-echo", event, config=InvokeConfig(serdes_result=_UpperResult()))
