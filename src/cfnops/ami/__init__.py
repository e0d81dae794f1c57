"""Drift-free AMI rotation for auto-healing Auto Scaling groups.

Pattern 1 (SSM parameter): the launch template's ``ImageId`` is
``resolve:ssm:<name>``; rotation writes the parameter. Pattern 2 (stack
parameter): the template takes ``ImageId`` as a parameter; rotation is an
UpdateStack that keeps every other value (the durable workflow
``cfnops.ami.rotate-stack``). Pattern 3 (``--roll``): pattern 2 on a group whose
``AutoScalingInstanceRefresh`` update policy makes CloudFormation replace the
instances at once (:func:`plan_roll` says whether a template can).
:func:`check_template` flags the drift-prone alternatives. See ``docs/ami.md``.

The names below other than the template check and the errors are imported when
first used, so ``cfnops ami check`` starts without the durable engine (DBOS,
SQLAlchemy) or boto3.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cfnops._lazy import lazy_exports
from cfnops.ami._check import CheckReport, Finding, check_template, load_template
from cfnops.ami.errors import InstanceRefreshFailed, NotRollable

if TYPE_CHECKING:
    from cfnops.ami._events import (
        BACKUP_COMPLETED_PATTERN,
        ImageEvent,
        Skipped,
        load_event,
        parse_event,
    )
    from cfnops.ami._images import ImageFacts, resolve_event_images, wait_until_available
    from cfnops.ami._parameter import (
        PREVIOUS_TAG,
        ParameterRotation,
        parameter_owner,
        rollback_parameter,
        rotate_parameter,
    )
    from cfnops.ami._roll import RollPlan, plan_roll
    from cfnops.ami._rotate import Rotation, rotate_from_event
    from cfnops.ami._service import Rotator
    from cfnops.ami._stack import StackRotation, build_request, previous_stack_image, rotate_stack
    from cfnops.ami._stack_workflow import (
        ROTATE_STACK_WORKFLOW,
        rotate_event_stacks,
        rotate_one_stack,
    )

_WHERE = {
    "resolve_event_images": "_images",
    "rotate_event_stacks": "_stack_workflow",
    "rotate_one_stack": "_stack_workflow",
    "BACKUP_COMPLETED_PATTERN": "_events",
    "ImageEvent": "_events",
    "Skipped": "_events",
    "load_event": "_events",
    "parse_event": "_events",
    "ImageFacts": "_images",
    "wait_until_available": "_images",
    "PREVIOUS_TAG": "_parameter",
    "ParameterRotation": "_parameter",
    "parameter_owner": "_parameter",
    "rollback_parameter": "_parameter",
    "rotate_parameter": "_parameter",
    "RollPlan": "_roll",
    "plan_roll": "_roll",
    "Rotation": "_rotate",
    "rotate_from_event": "_rotate",
    "Rotator": "_service",
    "StackRotation": "_stack",
    "build_request": "_stack",
    "previous_stack_image": "_stack",
    "rotate_stack": "_stack",
    "ROTATE_STACK_WORKFLOW": "_stack_workflow",
}

__all__ = [
    "BACKUP_COMPLETED_PATTERN",
    "PREVIOUS_TAG",
    "ROTATE_STACK_WORKFLOW",
    "CheckReport",
    "Finding",
    "ImageEvent",
    "ImageFacts",
    "InstanceRefreshFailed",
    "NotRollable",
    "ParameterRotation",
    "RollPlan",
    "Rotation",
    "Rotator",
    "Skipped",
    "StackRotation",
    "build_request",
    "check_template",
    "load_event",
    "load_template",
    "parameter_owner",
    "parse_event",
    "plan_roll",
    "previous_stack_image",
    "resolve_event_images",
    "rollback_parameter",
    "rotate_event_stacks",
    "rotate_from_event",
    "rotate_one_stack",
    "rotate_parameter",
    "rotate_stack",
    "wait_until_available",
]

__getattr__, __dir__ = lazy_exports(__name__, _WHERE, globals())
