"""Compute a change set's ``Changes``: ordinary and drift-aware (REVERT_DRIFT).

Ordinary change sets compare the previous deployment with the new template on
resolved values (API reference ``ResourceChange`` / ``ResourceChangeDetail`` /
``ResourceTargetDefinition``), with ``cfnops diff``'s table and rules: see
:mod:`_cfn_impact`.

Drift-aware change sets (User Guide, "Using drift-aware change sets",
https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/drift-aware-change-sets.html)
compare three states: the live resource (``BeforeValueFrom=ACTUAL_STATE``), the
previous deployment (``Drift.PreviousValue``) and the template
(``AfterValueFrom=TEMPLATE``). Deleted resources are re-created; drift in
create-only properties is not reconciled (that would replace the resource).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from typing import Any

from cfnops.sandbox.extensions._cfn_deploy import Deployment, ExpectedResource
from cfnops.sandbox.extensions._cfn_impact import ChangeInputs, details_by_resource
from cfnops.sandbox.extensions._cfn_readers import READERS, read_actual
from cfnops.sandbox.extensions.cfn_compare import diff_properties, json_text
from cfnops.sandbox.extensions.cfn_drift import comparable_properties

__all__ = ["NewResource", "PlannedChange", "plan_changes"]

UNKNOWN: Any = object()  # a value known only after execution ({{changeSetValue}})


@dataclass(frozen=True)
class NewResource:
    """A resource of the new template with its properties resolved where possible."""

    logical_id: str
    resource_type: str
    template: dict[str, Any]
    properties: dict[str, Any]  # values may be UNKNOWN
    references: dict[str, set[str]] = field(default_factory=dict)  # prop -> refs/getatts


@dataclass
class PlannedChange:
    """One ``ResourceChange`` plus what execution must do for it."""

    api: dict[str, Any]
    recreate: bool = False
    revert: bool = False
    nested: str | None = None  # the nested change set this change stands for


def _behaviour(resource_type: str) -> Any:
    try:
        from cfnops.schemas import load_table

        return load_table("us-east-1").get(resource_type)
    except Exception:  # the table is optional here: fall back to "Never"
        return None


def requires_recreation(resource_type: str, prop: str) -> str:
    behaviour = _behaviour(resource_type)
    if behaviour is None:
        return "Never"
    if any(p and p[0] == prop for p in behaviour.create_only):
        return "Always"
    if any(p and p[0] == prop for p in behaviour.conditional_create_only):
        return "Conditionally"
    return "Never"


def _replacement(details: list[dict[str, Any]]) -> str:
    kinds = {d["Target"].get("RequiresRecreation") for d in details}
    if "Always" in kinds:
        return "True"
    if "Conditionally" in kinds:
        return "Conditional"
    return "False"


def _scope(details: list[dict[str, Any]]) -> list[str]:
    names = {d["Target"].get("Name") for d in details}
    scope = ["Properties"] if names - {"Tags"} else []
    if "Tags" in names:
        scope.append("Tags")
    return scope


def _known(value: Any) -> Any:
    if value is UNKNOWN:
        return "{{changeSetValue}}"
    if isinstance(value, dict):
        return {k: _known(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_known(v) for v in value]
    return value


def _context(props: dict[str, Any] | None) -> str:
    return json.dumps({"Properties": _known(props or {})}, sort_keys=True, default=str)


def _base(res_type: str, logical_id: str, action: str, physical_id: str | None) -> dict[str, Any]:
    change: dict[str, Any] = {
        "Action": action,
        "LogicalResourceId": logical_id,
        "ResourceType": res_type,
    }
    if physical_id:
        change["PhysicalResourceId"] = physical_id
    return change


def _ordinary(
    stack: Any, before: Deployment, new: dict[str, NewResource], changed_params: set[str]
) -> dict[str, list[dict[str, Any]]]:
    inputs = {
        lid: ChangeInputs(
            resource_type=res.resource_type,
            template=res.template,
            properties={k: _known(v) for k, v in res.properties.items()},
            references=res.references,
        )
        for lid, res in new.items()
    }
    region = str(getattr(stack, "region_name", "us-east-1"))
    return details_by_resource(before, inputs, changed_params, region)


def _pointer_get(value: Any, path: str) -> Any:
    for part in [p for p in path.split("/") if p]:
        key = part.replace("~1", "/").replace("~0", "~")
        if isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        elif isinstance(value, dict) and key in value:
            value = value[key]
        else:
            return None
    return value


_FLIP = {"NOT_EQUAL": "Modify", "ADD": "Remove", "REMOVE": "Add"}


def _revert_details(
    old: ExpectedResource, new: NewResource, actual: dict[str, Any], now: dt.datetime
) -> list[dict[str, Any]]:
    template = comparable_properties(
        new.resource_type, {k: v for k, v in new.properties.items() if v is not UNKNOWN}
    )
    details = []
    for diff in diff_properties(new.resource_type, template, actual):
        prop = diff.path.split("/")[1]
        recreation = requires_recreation(new.resource_type, prop)
        previous = _pointer_get(old.properties or {}, diff.path)
        drifted = json_text(previous) != json_text(diff.actual)
        if recreation == "Always" and drifted:
            continue  # drift in a create-only property is not reconciled
        target: dict[str, Any] = {
            "Attribute": "Tags" if prop == "Tags" else "Properties",
            "Name": prop,
            "Path": f"/Properties{diff.path}",
            "RequiresRecreation": recreation,
            "BeforeValueFrom": "ACTUAL_STATE",
            "AfterValueFrom": "TEMPLATE",
            "AttributeChangeType": _FLIP[diff.kind],
        }
        if diff.actual is not None:
            target["BeforeValue"] = json_text(diff.actual)
        if diff.expected is not None:
            target["AfterValue"] = json_text(diff.expected)
        if drifted:
            drift: dict[str, Any] = {
                "ActualValue": json_text(diff.actual),
                "DriftDetectionTimestamp": now,
            }
            if previous is not None:
                drift["PreviousValue"] = json_text(previous)
            target["Drift"] = drift
        details.append(
            {"Target": target, "Evaluation": "Static", "ChangeSource": "DirectModification"}
        )
    return details


def _drift_status(stack: Any, old: ExpectedResource) -> tuple[str, dict[str, Any] | None]:
    if old.resource_type not in READERS or old.properties is None or not old.physical_id:
        return "NOT_CHECKED", None
    actual = read_actual(old.resource_type, stack.account_id, stack.region_name, old.physical_id)
    if actual is None:
        return "DELETED", None
    drifted = diff_properties(
        old.resource_type, comparable_properties(old.resource_type, old.properties), actual
    )
    return ("MODIFIED" if drifted else "IN_SYNC"), actual


def plan_changes(
    stack: Any,
    before: Deployment,
    new: dict[str, NewResource],
    changed_params: set[str],
    revert_drift: bool,
    include_values: bool,
) -> list[PlannedChange]:
    """The change set's resource changes, in template order."""
    now = dt.datetime.now(dt.UTC)
    planned: list[PlannedChange] = []
    ordinary = _ordinary(stack, before, new, changed_params)
    for lid, res in new.items():
        old = before.resources.get(lid)
        if old is None:
            planned.append(_added(lid, res, include_values))
            continue
        if revert_drift:
            decided, change = _drift_change(stack, lid, old, res, now)
            if decided:
                if change is not None:
                    planned.append(change)
                continue
        change = _modified(lid, old, res, ordinary.get(lid, []), revert_drift, include_values)
        if change is not None:
            planned.append(change)
    for lid, old in before.resources.items():
        if lid not in new:
            removal = _base(old.resource_type, lid, "Remove", old.physical_id)
            removal.update(PolicyAction="Delete", Details=[], Scope=[])
            planned.append(PlannedChange(removal))
    return planned


def _added(lid: str, res: NewResource, include_values: bool) -> PlannedChange:
    change = _base(res.resource_type, lid, "Add", None)
    change.update(Details=[], Scope=[])
    if include_values:
        change["AfterContext"] = _context(res.properties)
    return PlannedChange(change)


def _drift_change(
    stack: Any, lid: str, old: ExpectedResource, res: NewResource, now: dt.datetime
) -> tuple[bool, PlannedChange | None]:
    """With drift reverted: whether the live resource decides the change, and the change
    (none when the resource is already as the template wants). Not decided when the
    drift status is not known: the ordinary change applies."""
    status, actual = _drift_status(stack, old)
    if status == "DELETED":
        change = _base(res.resource_type, lid, "Add", old.physical_id)
        change.update(ResourceDriftStatus="DELETED", Details=[], Scope=[])
        change["AfterContext"] = _context(res.properties)
        change["PreviousDeploymentContext"] = _context(old.properties)
        return True, PlannedChange(change, recreate=True)
    if actual is None:
        return False, None
    details = _revert_details(old, res, actual, now)
    if not details:
        return True, None
    change = _base(res.resource_type, lid, "Modify", old.physical_id)
    change.update(
        ResourceDriftStatus=status,
        Replacement=_replacement(details),
        Scope=_scope(details),
        Details=details,
        BeforeContext=_context(actual),
        AfterContext=_context(res.properties),
        PreviousDeploymentContext=_context(old.properties),
    )
    return True, PlannedChange(change, revert=True)


def _modified(
    lid: str,
    old: ExpectedResource,
    res: NewResource,
    details: list[dict[str, Any]],
    revert_drift: bool,
    include_values: bool,
) -> PlannedChange | None:
    """The template's own change to a resource; none when nothing changed."""
    if not details:
        return None
    change = _base(res.resource_type, lid, "Modify", old.physical_id)
    change.update(Replacement=_replacement(details), Scope=_scope(details), Details=details)
    if revert_drift:
        change["ResourceDriftStatus"] = "NOT_CHECKED"
    if include_values:
        change["BeforeContext"] = _context(old.properties)
        change["AfterContext"] = _context(res.properties)
    return PlannedChange(change)
