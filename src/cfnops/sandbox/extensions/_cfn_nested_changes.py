"""Change sets for nested stacks (``IncludeNestedStacks=True``), drift-aware ones included.

AWS (User Guide, "Change sets for nested stacks",
https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/change-sets-for-nested-stacks.html;
API reference ``CreateChangeSet``, ``DescribeChangeSet``, ``ResourceChange``):

- a change set created with ``IncludeNestedStacks`` also makes one change set per
  nested stack (recursively), each naming its ``ParentChangeSetId`` and
  ``RootChangeSetId``;
- in the parent, a nested stack with changes appears as a ``Modify`` of its
  ``AWS::CloudFormation::Stack`` resource whose ``ChangeSetId`` is "the change set
  ID of the nested change set";
- the root change set is the one executed or deleted: "you must execute or
  delete nested change sets from the root change set".

Here a nested stack's change set is planned with the root's (same template
reuse, same ``DeploymentMode``), and executing the root applies every nested
change set first, then the root's own changes.
"""

from __future__ import annotations

import uuid
from typing import Any

from cfnops.sandbox.extensions._cfn_changes import PlannedChange
from cfnops.sandbox.extensions._cfn_deploy import deployment_of
from cfnops.sandbox.extensions._moto import moto_module
from cfnops.sandbox.extensions.cfn_fixes import previous_parameter_values

__all__ = ["attach_children", "children_changes", "nested_stacks"]

NESTED_STACK = "AWS::CloudFormation::Stack"


def nested_stacks(stack: Any) -> list[tuple[str, Any]]:
    """``(logical id, nested stack)`` of each live ``AWS::CloudFormation::Stack`` resource."""
    backends = moto_module("moto.cloudformation.models").cloudformation_backends
    backend = backends[stack.account_id][stack.region_name]
    parsed = getattr(getattr(stack, "resource_map", None), "_parsed_resources", {}) or {}
    out: list[tuple[str, Any]] = []
    for logical_id, resource in list(parsed.items()):
        child_id = getattr(resource, "stack_id", None)
        if not child_id or getattr(resource, "cloudformation_type", lambda: "")() != NESTED_STACK:
            continue
        try:
            child = backend.get_stack(str(child_id))
        except Exception:  # deleted out of band: nothing to include
            continue
        if child.status != "DELETE_COMPLETE":
            out.append((str(logical_id), child))
    return out


def attach_children(rec: Any, stack: Any, records: dict[str, Any]) -> None:
    """Make the nested change sets of ``rec`` (recursively), registered in ``records``."""
    from cfnops.sandbox.extensions.cfn_changesets import ChangeSetRecord

    generate = moto_module("moto.cloudformation.utils").generate_changeset_id
    root_id = rec.root_id or rec.change_set_id
    for logical_id, child in nested_stacks(stack):
        # The sandbox's naming: AWS generates a name of its own for nested change sets.
        name = f"{rec.name}-{logical_id}-{uuid.uuid4().hex[:8]}"[:128]
        sub = ChangeSetRecord(
            change_set_id=generate(name, child.region_name, child.account_id),
            name=name,
            stack_id=child.stack_id,
            stack_name=child.name,
            template_body=child.template,
            template=dict(child.template_dict),
            parameters=previous_parameter_values(child),
            revert_drift=rec.revert_drift,
            description=rec.description,
            created=rec.created,
            deployment_at=deployment_of(child).at,
            capabilities=list(rec.capabilities),
            include_nested=True,
            parent_id=rec.change_set_id,
            root_id=root_id,
        )
        records[sub.change_set_id] = sub
        rec.children.append((logical_id, sub, child))
        attach_children(sub, child, records)


def children_changes(rec: Any) -> list[PlannedChange]:
    """Plan every nested change set; one ``Modify`` per nested stack that has changes."""
    from cfnops.sandbox.extensions import cfn_changesets

    out: list[PlannedChange] = []
    for logical_id, sub, child in rec.children:
        sub.status = "CREATE_IN_PROGRESS"
        cfn_changesets._plan(sub, child)  # through the module: fault rules wrap it
        if sub.status != "CREATE_COMPLETE":
            continue
        change = {
            "Action": "Modify",
            "LogicalResourceId": logical_id,
            "PhysicalResourceId": child.stack_id,
            "ResourceType": NESTED_STACK,
            "Replacement": "False",
            "Scope": [],
            "Details": [],
            "ChangeSetId": sub.change_set_id,
        }
        out.append(PlannedChange(change, nested=sub.change_set_id))
    return out
