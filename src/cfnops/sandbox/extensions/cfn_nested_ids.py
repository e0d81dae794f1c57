"""``ParentId`` and ``RootId`` of nested stacks in DescribeStacks, as AWS reports them.

moto leaves both out, so every nested stack looks like a root stack and fleet
tools would scan or heal it twice (once through its root). AWS: "ParentId: for
nested stacks, the stack ID of the direct parent of this stack"; "RootId: for
nested stacks, the stack ID of the top-level stack to which the nested stack
ultimately belongs" (API reference, ``Stack``,
https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_Stack.html).
"""

from __future__ import annotations

import functools
from typing import Any

from cfnops.sandbox.extensions._moto import install_once, moto_module

__all__ = ["install"]

_NESTED = "AWS::CloudFormation::Stack"


def parents(backend: Any) -> dict[str, str]:
    """Nested stack id → its parent's stack id, for every stack of ``backend``."""
    out: dict[str, str] = {}
    for stack in list(backend.stacks.values()):
        parsed = getattr(getattr(stack, "resource_map", None), "_parsed_resources", {}) or {}
        for resource in list(parsed.values()):
            child = getattr(resource, "stack_id", None)
            if child and getattr(resource, "cloudformation_type", lambda: "")() == _NESTED:
                out[str(child)] = str(stack.stack_id)
    return out


def _wrap(original: Any) -> Any:
    @functools.wraps(original)
    def describe_stacks(self: Any) -> Any:
        answer = original(self)
        found = parents(self.cloudformation_backend)
        if not found:
            return answer
        for stack in getattr(answer, "result", {}).get("Stacks", []) or []:
            parent = found.get(getattr(stack, "stack_id", ""))
            if parent is None:
                continue
            root = parent
            while root in found:
                root = found[root]
            stack.parent_id, stack.root_id = parent, root
        return answer

    return describe_stacks


@install_once
def install() -> None:
    """Wrap DescribeStacks (idempotent)."""
    cls = moto_module("moto.cloudformation.responses").CloudFormationResponse
    cls.describe_stacks = _wrap(cls.describe_stacks)
