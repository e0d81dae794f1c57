"""From an event (or explicit ids) to rotations: which parameter or stack an AMI is for.

The AMI names its target through tags (``[ami]`` settings): ``ImageIdParameterName``
→ pattern 1 (write that SSM parameter), ``StackName`` → pattern 2 (update that
stack's image parameter). AWS Backup copies the instance's tags to the AMI, so
tagging the instances (launch template ``TagSpecifications``) is enough. An image
with neither tag is skipped with a reason, as are events that announce no AMI.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Union

from cfnops.ami._events import ImageEvent, Skipped, parse_event
from cfnops.ami._images import resolve_event_images, wait_until_available
from cfnops.ami._parameter import ParameterRotation, rotate_parameter
from cfnops.ami._stack import StackRotation
from cfnops.aws import AwsClients
from cfnops.config import AmiSettings

__all__ = ["Rotation", "StackRunner", "rotate_from_event"]

_log = logging.getLogger("cfnops.ami")

Rotation = Union[ParameterRotation, StackRotation, Skipped]  # noqa: UP007
# (stack, image id, run id) -> the finished rotation (see cfnops.ami._stack.rotate_stack)
StackRunner = Callable[[str, str, str], StackRotation]


def _run_key(event: ImageEvent, image_id: str) -> str:
    base = event.event_id or event.backup_job_id or image_id
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in base)


def rotate_from_event(
    clients: AwsClients,
    settings: AmiSettings,
    data: Any,
    *,
    run_stack: StackRunner,
    source: str = "<event>",
    force: bool = False,
    check_compatibility: bool | None = None,
) -> list[Rotation]:
    """Rotate whatever the event's AMI is tagged for; a list with one entry per target."""
    parsed = parse_event(data, source)
    if isinstance(parsed, Skipped):
        _log.info("skipped: %s", parsed.reason)
        return [parsed]
    image_ids = resolve_event_images(clients, parsed)
    if not image_ids:
        skipped = Skipped(f"no AMI found for the {parsed.kind} event", parsed.event_id)
        _log.info("skipped: %s", skipped.reason)
        return [skipped]
    out: list[Rotation] = []
    for image_id in image_ids:
        facts = wait_until_available(
            clients.client("ec2"),
            image_id,
            wait_seconds=settings.image_wait_seconds,
            poll_seconds=settings.poll_seconds,
        )
        parameter = facts.tags.get(settings.parameter_tag)
        stack = facts.tags.get(settings.stack_tag)
        if not parameter and not stack:
            skipped = Skipped(
                f"image {image_id} has neither a {settings.parameter_tag!r} nor a "
                f"{settings.stack_tag!r} tag; nothing to rotate",
                parsed.event_id,
            )
            _log.info("skipped: %s", skipped.reason)
            out.append(skipped)
            continue
        if parameter:
            out.append(
                rotate_parameter(
                    clients,
                    settings,
                    parameter=parameter,
                    image_id=image_id,
                    force=force,
                    check_compatibility=check_compatibility,
                )
            )
        if stack:
            run_id = f"ami-rotate-{stack}-{_run_key(parsed, image_id)}"
            out.append(run_stack(stack, image_id, run_id))
    return out
