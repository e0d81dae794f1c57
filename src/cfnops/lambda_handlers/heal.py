"""The heal workflow as an AWS Lambda durable function (``deploy/heal-function.yaml``).

The event is the reference one, ``{"StackName": "<name>", "CreateChangeSetOnly":
false}`` (cfnops's optional ``Region`` and ``Settings`` keys are accepted too).
The function body is :func:`cfnops.heal.heal_stack`, the very code cfnops's own
engine runs; settings (poll intervals, protected types, the SNS topic) come from
the function's environment (``CFNOPS_HEAL__*``, ``CFNOPS_NOTIFY__SNS_TOPIC_ARN``).

Held change sets wait on the durable callback ``approval``: answer it with
``aws lambda send-durable-execution-callback-success --callback-id ID --result
'{"decision": "approve", "by": "me", "reason": "checked"}'`` (the id is in the
held notification).
"""

from __future__ import annotations

from typing import Any

from aws_durable_execution_sdk_python import DurableContext, durable_execution

from cfnops.heal import heal_stack

__all__ = ["handler"]


@durable_execution
def handler(event: Any, context: DurableContext) -> dict[str, Any]:
    """Detect drift on ``event["StackName"]`` and heal it (see :mod:`cfnops.heal`)."""
    return heal_stack(event, context)
