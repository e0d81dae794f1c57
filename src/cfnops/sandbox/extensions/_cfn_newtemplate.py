"""Resolve a proposed template against a stack's current deployment.

Parameters follow CreateChangeSet / UpdateStack: ``ParameterValue`` wins,
``UsePreviousValue`` keeps the deployed value, an omitted parameter takes the
template's ``Default`` and one without a default is an error (API reference,
``Parameter``). Values only known after execution (the id of a resource yet to
be created) resolve to :data:`UNKNOWN`, shown as ``{{changeSetValue}}``.
"""

from __future__ import annotations

import copy
import re
from dataclasses import replace
from typing import Any

from cfnops.sandbox.extensions._cfn_changes import UNKNOWN, NewResource
from cfnops.sandbox.extensions.cfn_resolve import (
    DeploymentValues,
    UnresolvableError,
    resolve,
    values_from_resource_map,
)

__all__ = ["merge_parameters", "resolve_template"]


class ParameterError(ValueError):
    """A parameter has no value (message in AWS's words)."""


def merge_parameters(
    template: dict[str, Any], given: list[dict[str, Any]], previous: dict[str, str]
) -> dict[str, str]:
    """The parameter values (strings) a change set or update will deploy."""
    declared = template.get("Parameters") or {}
    values: dict[str, str] = {}
    by_key = {p["ParameterKey"]: p for p in given}
    missing = []
    for key, spec in declared.items():
        entry = by_key.get(key)
        if entry is not None and entry.get("UsePreviousValue"):
            if key not in previous:
                missing.append(key)
            else:
                values[key] = previous[key]
        elif entry is not None and "ParameterValue" in entry:
            values[key] = str(entry["ParameterValue"])
        elif "Default" in spec:
            default = spec["Default"]
            values[key] = ",".join(map(str, default)) if isinstance(default, list) else str(default)
        else:
            missing.append(key)
    if missing:
        raise ParameterError(f"Parameters: [{', '.join(missing)}] must have values")
    return values


def _typed(template: dict[str, Any], values: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in values.items():
        kind = str((template.get("Parameters") or {}).get(key, {}).get("Type", "String"))
        out[key] = (
            value.split(",") if kind == "CommaDelimitedList" or kind.startswith("List<") else value
        )
    return out


def _conditions(template: dict[str, Any], ctx: DeploymentValues) -> dict[str, bool]:
    raw = template.get("Conditions") or {}
    done: dict[str, bool] = {}
    for _ in range(len(raw) + 1):
        for name, expr in raw.items():
            if name in done:
                continue
            try:
                done[name] = bool(resolve(expr, replace(ctx, conditions=done)))
            except UnresolvableError:
                continue
    return {name: done.get(name, False) for name in raw}


def _references(value: Any, found: set[str]) -> set[str]:
    if isinstance(value, dict):
        for key, arg in value.items():
            if key == "Ref" and isinstance(arg, str):
                found.add(arg)
            elif key == "Fn::GetAtt":
                found.add(arg if isinstance(arg, str) else ".".join(map(str, arg)))
            elif key == "Fn::Sub":
                text = arg[0] if isinstance(arg, list) else arg

                found.update(m.strip() for m in re.findall(r"\$\{([^!}][^}]*)\}", str(text)))
                if isinstance(arg, list):
                    _references(arg[1], found)
            else:
                _references(arg, found)
    elif isinstance(value, list):
        for item in value:
            _references(item, found)
    return found


def resolve_template(
    stack: Any, template: dict[str, Any], parameters: dict[str, str], keep: set[str]
) -> dict[str, NewResource]:
    """Resources of ``template`` resolved with ``parameters`` and the stack's resources.

    ``keep`` names the resources whose physical ids carry over (existing ones).
    """
    base = values_from_resource_map(stack.resource_map)
    ctx = replace(
        base,
        parameters=_typed(template, parameters),
        physical_ids={k: v for k, v in base.physical_ids.items() if k in keep},
        mappings=dict(template.get("Mappings") or {}),
    )
    ctx = replace(ctx, conditions=_conditions(template, ctx))
    out: dict[str, NewResource] = {}
    for logical_id, entry in (template.get("Resources") or {}).items():
        condition = entry.get("Condition")
        if condition and not ctx.conditions.get(condition, False):
            continue
        props: dict[str, Any] = {}
        refs: dict[str, set[str]] = {}
        for key, value in (entry.get("Properties") or {}).items():
            refs[key] = _references(value, set())
            try:
                resolved = resolve(copy.deepcopy(value), ctx)
            except (UnresolvableError, KeyError, IndexError, TypeError, ValueError):
                resolved = UNKNOWN
            props[key] = resolved
        out[logical_id] = NewResource(
            logical_id=logical_id,
            resource_type=str(entry.get("Type")),
            template=copy.deepcopy(dict(entry)),
            properties=props,
            references=refs,
        )
    return out
