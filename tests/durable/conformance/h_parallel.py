"""Suite 8 (parallel): handlers written from the requirements' words."""

from __future__ import annotations

import json
from typing import Any

from aws_durable_execution_sdk_python import DurableContext, durable_execution
from aws_durable_execution_sdk_python.config import (
    CompletionConfig,
    Duration,
    NestingType,
    ParallelBranch,
    ParallelConfig,
)
from aws_durable_execution_sdk_python.serdes import SerDes, SerDesContext

from cfnops.durable import lambda_function

ALL = ("completionReason", "status", "successCount", "failureCount", "totalCount")
COUNTS = ("completionReason", "successCount", "failureCount", "totalCount")


def _seq(**kw: Any) -> ParallelConfig:
    return ParallelConfig(max_concurrency=1, **kw)


def _tolerate(**kw: Any) -> ParallelConfig:
    return _seq(completion_config=CompletionConfig(**kw))


def projection(batch: Any, *keys: str) -> dict[str, Any]:
    values = {
        "completionReason": batch.completion_reason.value,
        "status": batch.status.value,
        "successCount": batch.success_count,
        "failureCount": batch.failure_count,
        "totalCount": batch.total_count,
    }
    return {k: values[k] for k in keys}


def const(value: Any) -> Any:
    return lambda ctx: value


def boom(ctx: DurableContext) -> Any:
    raise RuntimeError("branch failed")


def step_returning(value: Any) -> Any:
    return lambda ctx: ctx.step(lambda _: value)


@lambda_function("conf-8-1")
@durable_execution
def h8_1(event: Any, context: DurableContext) -> Any:
    branches = [step_returning("task-1"), step_returning("task-2")]
    return context.parallel(branches, name="parallel", config=_seq()).get_results()


@lambda_function("conf-8-2")
@durable_execution
def h8_2(event: Any, context: DurableContext) -> Any:
    return context.parallel([const("alpha"), const("beta")], config=_seq()).get_results()


@lambda_function("conf-8-3")
@durable_execution
def h8_3(event: Any, context: DurableContext) -> Any:
    branches = [ParallelBranch(const("one"), name="first"), ParallelBranch(const("two"), "second")]
    return context.parallel(branches, name="named", config=_seq()).get_results()


@lambda_function("conf-8-4")
@durable_execution
def h8_4(event: Any, context: DurableContext) -> Any:
    branches = [const("hello"), const(42), const({"k": "v"})]
    return context.parallel(branches, config=_seq()).get_results()


@lambda_function("conf-8-5")
@durable_execution
def h8_5(event: Any, context: DurableContext) -> Any:
    return context.parallel([]).get_results()


@lambda_function("conf-8-6")
@durable_execution
def h8_6(event: Any, context: DurableContext) -> Any:
    batch = context.parallel(
        [const("ok"), boom, const("never")], config=_tolerate(tolerated_failure_count=0)
    )
    return projection(batch, *ALL)


@lambda_function("conf-8-7")
@durable_execution
def h8_7(event: Any, context: DurableContext) -> Any:
    batch = context.parallel([boom, const("never")], config=_tolerate(tolerated_failure_count=0))
    batch.throw_if_error()
    return batch.get_results()


@lambda_function("conf-8-8")
@durable_execution
def h8_8(event: Any, context: DurableContext) -> Any:
    batch = context.parallel([const(f"b{i}") for i in range(4)], config=_tolerate(min_successful=2))
    return projection(batch, "completionReason", "successCount", "totalCount")


@lambda_function("conf-8-9")
@durable_execution
def h8_9(event: Any, context: DurableContext) -> Any:
    batch = context.parallel(
        [const("a"), boom, const("c")], config=_tolerate(tolerated_failure_count=1)
    )
    return projection(batch, *ALL)


@lambda_function("conf-8-10")
@durable_execution
def h8_10(event: Any, context: DurableContext) -> Any:
    batch = context.parallel([boom, boom, boom], config=_tolerate(tolerated_failure_count=1))
    return projection(batch, *COUNTS)


@lambda_function("conf-8-11")
@durable_execution
def h8_11(event: Any, context: DurableContext) -> Any:
    branches = [const("r0"), const("r1"), const("r2")]
    return context.parallel(branches, config=ParallelConfig(max_concurrency=2)).get_results()


@lambda_function("conf-8-12")
@durable_execution
def h8_12(event: Any, context: DurableContext) -> Any:
    branches = [step_returning("fa"), step_returning("fb")]
    return context.parallel(branches, config=_seq(nesting_type=NestingType.FLAT)).get_results()


@lambda_function("conf-8-13")
@durable_execution
def h8_13(event: Any, context: DurableContext) -> Any:
    batch = context.parallel([boom] * 4, config=_tolerate(tolerated_failure_percentage=25))
    return projection(batch, *COUNTS)


@lambda_function("conf-8-14")
@durable_execution
def h8_14(event: Any, context: DurableContext) -> Any:
    def waits_then_returns(ctx: DurableContext) -> Any:
        ctx.wait(Duration.from_seconds(2))
        return "b1"

    branches = [step_returning("b0"), waits_then_returns]
    return context.parallel(branches, config=_seq()).get_results()


class _Wrap(SerDes[Any]):
    def serialize(self, value: Any, serdes_context: SerDesContext) -> str:
        return json.dumps({"wrapped": value})

    def deserialize(self, data: str, serdes_context: SerDesContext) -> Any:
        return json.loads(data)["wrapped"]


@lambda_function("conf-8-15")
@durable_execution
def h8_15(event: Any, context: DurableContext) -> Any:
    return context.parallel(
        [const("x"), const("y")], config=_seq(item_serdes=_Wrap())
    ).get_results()


@lambda_function("conf-8-16")
@durable_execution
def h8_16(event: Any, context: DurableContext) -> Any:
    batch = context.parallel([boom] * 3, config=_tolerate(tolerated_failure_count=3))
    return projection(batch, *ALL)


@lambda_function("conf-8-17")
@durable_execution
def h8_17(event: Any, context: DurableContext) -> Any:
    batch = context.parallel([const("a"), boom, const("c")], config=_tolerate(min_successful=3))
    return projection(batch, *ALL)


@lambda_function("conf-8-18")
@durable_execution
def h8_18(event: Any, context: DurableContext) -> Any:
    batch = context.parallel(
        [boom, boom, const("c"), const("d")],
        config=_tolerate(min_successful=3, tolerated_failure_count=1),
    )
    return projection(batch, *COUNTS)


@lambda_function("conf-8-19")
@durable_execution
def h8_19(event: Any, context: DurableContext) -> Any:
    branches = [const("a"), const("b")]
    return context.parallel(branches, config=ParallelConfig(max_concurrency=0)).get_results()


@lambda_function("conf-8-20")
@durable_execution
def h8_20(event: Any, context: DurableContext) -> Any:
    batch = context.parallel(
        [const("a"), boom, const("c")], config=_tolerate(tolerated_failure_count=1)
    )
    return {
        "hasFailure": batch.has_failure,
        "successCount": len(batch.succeeded()),
        "failureCount": len(batch.failed()),
        "errorCount": len(batch.get_errors()),
    }


@lambda_function("conf-8-21")
@durable_execution
def h8_21(event: Any, context: DurableContext) -> Any:
    def inner(ctx: DurableContext) -> Any:
        branches = [step_returning("i1"), step_returning("i2")]
        return ctx.parallel(branches, config=_seq()).get_results()

    return context.parallel([inner], config=_seq()).get_results()


@lambda_function("conf-8-22")
@durable_execution
def h8_22(event: Any, context: DurableContext) -> Any:
    batch = context.parallel(
        [boom, const("b"), const("c"), const("d")],
        config=_tolerate(tolerated_failure_percentage=25),
    )
    return projection(batch, *ALL)
