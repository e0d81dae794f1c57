"""Console URLs and ARN parsing (pure)."""

from __future__ import annotations

import re
from urllib.parse import quote

from cfnops.heal.errors import MalformedStackArn

_STACK_ARN = re.compile(
    r"^arn:aws[a-zA-Z-]*:cloudformation:([a-z]{2}(?:-[a-z]+)+-\d+):\d{12}:stack/.+/.+$"
)


def region_from_stack_arn(stack_id: str) -> str:
    """The region of a stack ARN; :class:`MalformedStackArn` otherwise."""
    found = _STACK_ARN.match(stack_id)
    if found is None:
        raise MalformedStackArn(stack_id)
    return found.group(1)


def change_set_console_url(stack_id: str, change_set_id: str) -> str:
    """The console page of a change set, as the reference behaviour builds it."""
    region = region_from_stack_arn(stack_id)
    return (
        f"https://{region}.console.aws.amazon.com/cloudformation/home?region={region}"
        f"#/stacks/changesets/changes?stackId={quote(stack_id, safe='')}"
        f"&changeSetId={quote(change_set_id, safe='')}"
    )
