"""AWS Lambda entry points for AMI rotation (``deploy/ami-rotation.yaml``).

- :func:`parameter_handler` (pattern 1): a plain function. For each AMI of an
  AWS Backup "Backup Job State Change" (``COMPLETED``) event tagged
  ``ImageIdParameterName``, write the SSM parameter (with every safety check of
  ``cfnops ami rotate``). Events for other states, or AMIs without the tag, are
  skipped with a logged reason.
- :data:`stack_handler` (pattern 2): the durable workflow
  ``cfnops.ami.rotate-stack-event`` itself, deployed as a Lambda durable function
  (the SDK's ``@durable_execution`` entry point), so the bounded waits for the
  image, a busy stack and UPDATE_COMPLETE survive Lambda's time limit.

Settings come from the function's environment (``CFNOPS_AMI__PARAMETER_TAG``,
``CFNOPS_AMI__STACK_TAG``, ``CFNOPS_AMI__IMAGE_WAIT_SECONDS``, …).
"""

from __future__ import annotations

import logging
from typing import Any

from aws_durable_execution_sdk_python import DurableContext, durable_execution

from cfnops.ami import (
    Skipped,
    parse_event,
    resolve_event_images,
    rotate_event_stacks,
    rotate_parameter,
    wait_until_available,
)
from cfnops.lambda_handlers._runtime import lambda_runtime

__all__ = ["parameter_handler", "stack_handler"]

_log = logging.getLogger("cfnops.ami")


@durable_execution
def stack_handler(event: dict[str, Any], context: DurableContext) -> dict[str, Any]:
    """Pattern 2 on Lambda: the durable rotation of every stack the event's AMIs name."""
    return rotate_event_stacks(event, context, lambda_runtime())


def parameter_handler(event: dict[str, Any], context: Any = None) -> dict[str, Any]:
    """Pattern 1 on Lambda: write the parameter each AMI of the event names."""
    runtime = lambda_runtime()
    settings, clients = runtime.settings, runtime.aws
    parsed = parse_event(event)
    if isinstance(parsed, Skipped):
        _log.info("skipped: %s", parsed.reason)
        return {"results": [], "skipped": [parsed.reason]}
    results: list[dict[str, Any]] = []
    skipped: list[str] = []
    for image_id in resolve_event_images(clients, parsed):
        facts = wait_until_available(
            clients.client("ec2"),
            image_id,
            wait_seconds=settings.ami.image_wait_seconds,
            poll_seconds=settings.ami.poll_seconds,
        )
        parameter = facts.tags.get(settings.ami.parameter_tag)
        if not parameter:
            reason = f"image {image_id} has no {settings.ami.parameter_tag!r} tag"
            _log.info("skipped: %s", reason)
            skipped.append(reason)
            continue
        rotation = rotate_parameter(clients, settings.ami, parameter=parameter, image_id=image_id)
        _log.info("%s %s = %s", rotation.outcome, parameter, image_id)
        results.append(rotation.to_json())
    return {"results": results, "skipped": skipped}
