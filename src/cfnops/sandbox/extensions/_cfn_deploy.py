"""What each stack's last deployment expects of its resources.

After every create, update and change-set execution the stack's template
properties are resolved with that deployment's values (parameters, physical
ids, attributes: :mod:`cfn_resolve`) and kept here. Drift detection compares
live resources with these records, so an attribute that changes later (a launch
template's ``LatestVersionNumber`` bumped out of band) does not move the
expectation.
"""

from __future__ import annotations

import copy
import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from cfnops.sandbox._state import current_state
from cfnops.sandbox.extensions.cfn_resolve import (
    UnresolvableError,
    resolve,
    values_from_resource_map,
)

__all__ = ["Deployment", "ExpectedResource", "deployment_of", "record_deployment", "stack_store"]

_KEY = "cfn.stacks"


@dataclass(frozen=True)
class ExpectedResource:
    logical_id: str
    resource_type: str
    physical_id: str | None
    properties: dict[str, Any] | None  # None: could not be resolved
    template: dict[str, Any]  # the raw resource entry of the template
    unresolved_reason: str | None = None


@dataclass(frozen=True)
class Deployment:
    stack_id: str
    resources: dict[str, ExpectedResource]
    at: dt.datetime


@dataclass
class StackRecord:
    """Per-stack sandbox bookkeeping (deployment, drift results, change sets)."""

    deployment: Deployment | None = None
    drift_status: str = "NOT_CHECKED"
    last_check: dt.datetime | None = None
    resource_drifts: dict[str, dict[str, Any]] = field(default_factory=dict)
    detections: list[str] = field(default_factory=list)


def stack_store() -> dict[str, StackRecord]:
    """Stack id → :class:`StackRecord` (cleared by the sandbox reset)."""
    state = current_state()
    with state.lock:
        store: dict[str, StackRecord] = state.extras.setdefault(_KEY, {})
        return store


def record_of(stack_id: str) -> StackRecord:
    store = stack_store()
    with current_state().lock:
        return store.setdefault(stack_id, StackRecord())


def _physical_id(model: Any) -> str | None:
    value = getattr(model, "physical_resource_id", None)
    return None if value is None else str(value)


def record_deployment(stack: Any) -> Deployment:
    """Resolve the stack's template with its current deployment values and keep it."""
    resource_map = stack.resource_map
    values = values_from_resource_map(resource_map)
    template = stack.template_dict or {}
    parsed = resource_map._parsed_resources
    resources: dict[str, ExpectedResource] = {}
    for logical_id, entry in (template.get("Resources") or {}).items():
        condition = entry.get("Condition")
        if condition and not values.conditions.get(condition, True):
            continue
        model = parsed.get(logical_id)
        if model is None:
            continue
        props: dict[str, Any] | None
        reason = None
        try:
            props = resolve(copy.deepcopy(entry.get("Properties") or {}), values)
        except (UnresolvableError, KeyError, IndexError, TypeError, ValueError) as exc:
            props, reason = None, f"template values could not be resolved: {exc}"
        resources[logical_id] = ExpectedResource(
            logical_id=logical_id,
            resource_type=str(entry.get("Type")),
            physical_id=_physical_id(model),
            properties=props,
            template=copy.deepcopy(dict(entry)),
            unresolved_reason=reason,
        )
    deployment = Deployment(stack.stack_id, resources, dt.datetime.now(dt.UTC))
    record_of(stack.stack_id).deployment = deployment
    return deployment


def deployment_of(stack: Any) -> Deployment:
    """The stack's recorded deployment (recorded now if the sandbox never saw it)."""
    found = record_of(stack.stack_id).deployment
    return found if found is not None else record_deployment(stack)
