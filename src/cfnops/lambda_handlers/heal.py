"""The heal workflow as an AWS Lambda durable function (``deploy/heal-function.yaml``).

The event is the reference one, ``{"StackName": "<name>", "CreateChangeSetOnly":
false}`` (cfnops's optional ``Region`` and ``Settings`` keys are accepted too).
The function body is :func:`cfnops.heal.heal_stack`, the very code cfnops's own
engine runs; settings (poll intervals, protected types, the SNS topic) come from
the function's environment (``CFNOPS_HEAL__*``, ``CFNOPS_NOTIFY__SNS_TOPIC_ARN``),
read once per execution environment into the runtime.

Held change sets wait on the durable callback ``approval``: answer it with
``aws lambda send-durable-execution-callback-success --callback-id ID --result
'{"decision": "approve", "by": "me", "reason": "checked"}'`` (the id is in the
held notification).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_durable_execution_sdk_python import DurableContext, durable_execution

from cfnops.heal import heal_stack
from cfnops.lambda_handlers._runtime import lambda_runtime
from cfnops.runtime import Runtime

__all__ = ["handler", "handler_for"]


def handler_for(runtime: Callable[[], Runtime]) -> Callable[..., Any]:
    """The durable handler, on the runtime ``runtime()`` answers (the SDK's test runner
    hands in its own)."""

    @durable_execution
    def handler(event: Any, context: DurableContext) -> dict[str, Any]:
        """Detect drift on ``event["StackName"]`` and heal it (see :mod:`cfnops.heal`)."""
        return heal_stack(event, context, runtime())

    return handler


handler = handler_for(lambda_runtime)
