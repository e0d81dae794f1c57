"""A built-in sample workflow that shows a durable run end to end (``cfnops demo``).

It is written against the AWS Durable Execution SDK only, so the same module
runs on cfnops's DBOS engine and, unchanged, as an AWS Lambda durable function
(its tests also run it under the SDK's ``DurableFunctionTestRunner``).
"""

from __future__ import annotations

import hashlib
from typing import Any

from aws_durable_execution_sdk_python import (
    DurableContext,
    StepContext,
    durable_execution,
    durable_step,
)
from aws_durable_execution_sdk_python.config import Duration
from aws_durable_execution_sdk_python.waits import WaitForConditionConfig, WaitForConditionDecision

from cfnops.durable import workflow

SAMPLE_WORKFLOW = "cfnops.sample"


@durable_step
def fingerprint(step_context: StepContext, text: str) -> str:
    """A pure, idempotent step: the SHA-256 of ``text``."""
    return hashlib.sha256(text.encode()).hexdigest()


@durable_step
def count_words(step_context: StepContext, text: str) -> int:
    return len(text.split())


def _poll(state: dict[str, Any], ctx: Any) -> dict[str, Any]:
    return {"polls": int(state["polls"]) + 1}


def _until(target: int) -> Any:
    def decide(state: dict[str, Any], attempt: int) -> WaitForConditionDecision:
        if int(state["polls"]) >= target:
            return WaitForConditionDecision.stop_polling()
        return WaitForConditionDecision.continue_waiting(Duration.from_seconds(1))

    return decide


@workflow(SAMPLE_WORKFLOW)
@durable_execution
def sample(event: dict[str, Any], context: DurableContext) -> dict[str, Any]:
    """Three steps, a durable wait and a polled condition.

    ``event``: ``{"text": str, "wait_seconds": int >= 1, "polls": int >= 1}``.
    """
    text = str(event.get("text", "cfnops keeps stacks in their declared state"))
    digest = context.step(fingerprint(text), name="fingerprint")
    words = context.step(count_words(text), name="count-words")
    context.wait(Duration.from_seconds(int(event.get("wait_seconds", 1))), name="pause")
    polled = context.wait_for_condition(
        _poll,
        WaitForConditionConfig(
            wait_strategy=_until(int(event.get("polls", 2))), initial_state={"polls": 0}
        ),
        name="poll",
    )
    summary = context.step(
        lambda _: {"digest": digest[:12], "words": words, "polls": polled["polls"]},
        name="summarise",
    )
    return dict(summary)
