"""Suite 9 (map): handlers written from the requirements' words."""

from __future__ import annotations

import json
from typing import Any

from aws_durable_execution_sdk_python import DurableContext, durable_execution
from aws_durable_execution_sdk_python.config import (
    CompletionConfig,
    Duration,
    MapConfig,
    NestingType,
)
from aws_durable_execution_sdk_python.serdes import JsonSerDes, SerDes, SerDesContext

from cfnops.durable import lambda_function


def _one_at_a_time(**kw: Any) -> MapConfig[Any]:
    return MapConfig(max_concurrency=1, **kw)


def projection(batch: Any, *keys: str) -> dict[str, Any]:
    values = {
        "completionReason": batch.completion_reason.value,
        "status": batch.status.value,
        "successCount": batch.success_count,
        "failureCount": batch.failure_count,
        "totalCount": batch.total_count,
    }
    return {k: values[k] for k in keys}


ALL = ("completionReason", "status", "successCount", "failureCount", "totalCount")


@lambda_function("conf-9-1")
@durable_execution
def h9_1(event: Any, context: DurableContext) -> Any:
    def greet(ctx: DurableContext, item: Any, index: int, items: Any) -> Any:
        return ctx.step(lambda _: f"Hello, {item}!")

    return context.map(event, greet, name="map", config=_one_at_a_time()).get_results()


@lambda_function("conf-9-2")
@durable_execution
def h9_2(event: Any, context: DurableContext) -> Any:
    return context.map(
        event, lambda ctx, item, i, items: item * 2, config=_one_at_a_time()
    ).get_results()


@lambda_function("conf-9-3")
@durable_execution
def h9_3(event: Any, context: DurableContext) -> Any:
    return context.map(
        event, lambda ctx, item, i, items: item + i, config=_one_at_a_time()
    ).get_results()


@lambda_function("conf-9-4")
@durable_execution
def h9_4(event: Any, context: DurableContext) -> Any:
    return context.map(event, lambda ctx, item, i, items: item).get_results()


def _fail_at(*bad: int) -> Any:
    def fn(ctx: DurableContext, item: Any, index: int, items: Any) -> Any:
        if index in bad:
            raise RuntimeError(f"item {index} failed")
        return "ok"

    return fn


@lambda_function("conf-9-5")
@durable_execution
def h9_5(event: Any, context: DurableContext) -> Any:
    config = _one_at_a_time(completion_config=CompletionConfig(tolerated_failure_count=0))
    return projection(context.map(["a", "b", "c"], _fail_at(1), config=config), *ALL)


@lambda_function("conf-9-6")
@durable_execution
def h9_6(event: Any, context: DurableContext) -> Any:
    config = _one_at_a_time(completion_config=CompletionConfig(tolerated_failure_count=0))
    batch = context.map(["a", "b"], _fail_at(0), config=config)
    batch.throw_if_error()
    return batch.get_results()


@lambda_function("conf-9-7")
@durable_execution
def h9_7(event: Any, context: DurableContext) -> Any:
    config = _one_at_a_time(completion_config=CompletionConfig(min_successful=2))
    batch = context.map(["a", "b", "c", "d"], lambda ctx, item, i, items: "done", config=config)
    return projection(batch, "completionReason", "successCount", "totalCount")


@lambda_function("conf-9-8")
@durable_execution
def h9_8(event: Any, context: DurableContext) -> Any:
    config = _one_at_a_time(completion_config=CompletionConfig(tolerated_failure_count=1))
    return projection(context.map(["a", "b", "c"], _fail_at(1), config=config), *ALL)


@lambda_function("conf-9-9")
@durable_execution
def h9_9(event: Any, context: DurableContext) -> Any:
    config = _one_at_a_time(completion_config=CompletionConfig(tolerated_failure_count=1))
    batch = context.map(["a", "b", "c"], _fail_at(0, 1, 2), config=config)
    return projection(batch, "completionReason", "successCount", "failureCount", "totalCount")


@lambda_function("conf-9-10")
@durable_execution
def h9_10(event: Any, context: DurableContext) -> Any:
    config = _one_at_a_time(completion_config=CompletionConfig(tolerated_failure_percentage=25))
    batch = context.map(["a", "b", "c", "d"], _fail_at(0, 1, 2, 3), config=config)
    return projection(batch, "completionReason", "successCount", "failureCount", "totalCount")


@lambda_function("conf-9-11")
@durable_execution
def h9_11(event: Any, context: DurableContext) -> Any:
    return context.map(
        ["i0", "i1", "i2"],
        lambda ctx, item, i, items: f"r{i}",
        name="concurrent",
        config=MapConfig(max_concurrency=2),
    ).get_results()


@lambda_function("conf-9-12")
@durable_execution
def h9_12(event: Any, context: DurableContext) -> Any:
    def fn(ctx: DurableContext, item: Any, index: int, items: Any) -> Any:
        return ctx.step(lambda _: item)

    config = _one_at_a_time(nesting_type=NestingType.FLAT)
    return context.map(["fa", "fb"], fn, config=config).get_results()


@lambda_function("conf-9-13")
@durable_execution
def h9_13(event: Any, context: DurableContext) -> Any:
    config = _one_at_a_time(item_namer=lambda item, index: f"item-{item}")
    return context.map(event, lambda ctx, item, i, items: item * 10, config=config).get_results()


class _Wrapped(SerDes[Any]):
    def serialize(self, value: Any, serdes_context: SerDesContext) -> str:
        return f"wrapped:{value}"

    def deserialize(self, data: str, serdes_context: SerDesContext) -> Any:
        return data.removeprefix("wrapped:")


@lambda_function("conf-9-14")
@durable_execution
def h9_14(event: Any, context: DurableContext) -> Any:
    config = _one_at_a_time(item_serdes=_Wrapped())
    return context.map(
        ["x", "y"], lambda ctx, item, i, items: item.upper(), config=config
    ).get_results()


@lambda_function("conf-9-15")
@durable_execution
def h9_15(event: Any, context: DurableContext) -> Any:
    def fn(ctx: DurableContext, item: Any, index: int, items: Any) -> Any:
        if index == 1:
            ctx.wait(Duration.from_seconds(1))
        return ctx.step(lambda _: f"r{index}")

    return context.map(["a", "b"], fn, config=_one_at_a_time()).get_results()


@lambda_function("conf-9-16")
@durable_execution
def h9_16(event: Any, context: DurableContext) -> Any:
    batch = context.map(
        [0, 1, 2, 3], lambda ctx, item, i, items: "x" * (70 * 1024), config=_one_at_a_time()
    )
    return projection(batch, "successCount", "totalCount")


@lambda_function("conf-9-17")
@durable_execution
def h9_17(event: Any, context: DurableContext) -> Any:
    results = context.map(
        ["a", "b"], lambda ctx, item, i, items: item.upper(), config=_one_at_a_time()
    ).get_results()
    context.wait(Duration.from_seconds(1))
    return results


@lambda_function("conf-9-18")
@durable_execution
def h9_18(event: Any, context: DurableContext) -> Any:
    config = _one_at_a_time(completion_config=CompletionConfig(tolerated_failure_count=1))
    batch = context.map(["a", "b"], _fail_at(1), config=config)
    context.wait(Duration.from_seconds(1))
    return projection(batch, *ALL)


class _OpSerDes(SerDes[Any]):
    """The whole map result as ``OPSERDE:X,Y``."""

    def serialize(self, value: Any, serdes_context: SerDesContext) -> str:
        return "OPSERDE:" + ",".join(str(v) for v in value.get_results())

    def deserialize(self, data: str, serdes_context: SerDesContext) -> Any:
        from aws_durable_execution_sdk_python.concurrency.models import (
            BatchItem,
            BatchResult,
            CompletionReason,
        )
        from aws_durable_execution_sdk_python.config import BatchItemStatus

        values = data.removeprefix("OPSERDE:").split(",") if data != "OPSERDE:" else []
        items = [BatchItem(i, BatchItemStatus.SUCCEEDED, v) for i, v in enumerate(values)]
        return BatchResult(items, CompletionReason.ALL_COMPLETED)


@lambda_function("conf-9-19")
@durable_execution
def h9_19(event: Any, context: DurableContext) -> Any:
    config = _one_at_a_time(serdes=_OpSerDes(), item_serdes=JsonSerDes())
    return context.map(
        ["x", "y"], lambda ctx, item, i, items: item.upper(), config=config
    ).get_results()


@lambda_function("conf-9-20")
@durable_execution
def h9_20(event: Any, context: DurableContext) -> Any:
    config = _one_at_a_time(serdes=_OpSerDes(), item_serdes=JsonSerDes())
    results = context.map(
        ["x", "y"], lambda ctx, item, i, items: item.upper(), config=config
    ).get_results()
    context.wait(Duration.from_seconds(1))
    return json.loads(json.dumps(results))
