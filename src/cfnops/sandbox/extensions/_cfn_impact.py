"""``Replacement`` / ``Scope`` / ``Details`` of ordinary change sets, on resolved values.

CloudFormation compares what a resource *will* be given (its properties with
parameters, pseudo parameters and other resources' ids resolved) with what it is,
not template text (API reference, ``ResourceChangeDetail``:
https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_ResourceChangeDetail.html;
``ResourceChange``:
https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_ResourceChange.html).
So a ``Ref`` replaced by the identical literal is no change, and a property that
refers to a resource being replaced changes (``Evaluation=Dynamic``,
``ChangeSource`` ``ResourceReference`` / ``ResourceAttribute``).

The impacts themselves are :func:`cfnops.diff.diff_templates`' (the same table
and rules as ``cfnops diff``): it is given the previous deployment's resolved
properties and the new ones, with the properties that refer to a replaced resource
left as template text so that ``cfnops diff``'s propagation applies, repeated
until the set of replaced resources no longer grows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cfnops.diff import Impact, PropertyDiff, ResourceDiff, diff_templates
from cfnops.sandbox.extensions._cfn_deploy import Deployment

__all__ = ["ChangeInputs", "details_by_resource"]

_RECREATION = {
    Impact.WILL_REPLACE: "Always",
    Impact.MAY_REPLACE: "Conditionally",
}


@dataclass(frozen=True)
class ChangeInputs:
    """A resource of the new template as the change-set planner resolved it."""

    resource_type: str
    template: Mapping[str, Any]  # the raw resource entry
    properties: Mapping[str, Any]  # resolved; unknown values as "{{changeSetValue}}"
    references: Mapping[str, set[str]]  # property -> "Name" (Ref) or "Name.Attr" (GetAtt)


def _target(reference: str) -> str:
    return reference.split(".", 1)[0]


@dataclass(frozen=True)
class _Moving:
    """Resources whose id (replaced) or attributes (replaced or modified) will change."""

    replaced: frozenset[str] = frozenset()
    modified: frozenset[str] = frozenset()

    def dynamic(self, reference: str) -> bool:
        target = _target(reference)
        return target in self.replaced or ("." in reference and target in self.modified)


def _new_section(new: Mapping[str, ChangeInputs], moving: _Moving) -> dict[str, dict[str, Any]]:
    section: dict[str, dict[str, Any]] = {}
    for lid, res in new.items():
        raw = res.template.get("Properties") or {}
        props: dict[str, Any] = {}
        for name, value in res.properties.items():
            refs = res.references.get(name, set())
            # the value of a reference to a replaced resource (or an attribute of a
            # modified one) is known only after execution: leave the intrinsic, whose
            # text differs from the old value, for diff's rules and propagation
            dynamic = name in raw and any(moving.dynamic(r) for r in refs)
            props[name] = raw[name] if dynamic else value
        section[lid] = {"Type": res.resource_type, "Properties": props}
    return section


def _old_section(before: Deployment, new: Mapping[str, ChangeInputs]) -> dict[str, Any]:
    section: dict[str, Any] = {}
    for lid, old in before.resources.items():
        if lid not in new:
            continue
        props = old.properties
        if props is None:  # not resolvable at deployment: the template's text
            props = dict(old.template.get("Properties") or {})
        section[lid] = {"Type": old.resource_type, "Properties": props}
    return section


def _resource_diffs(
    before: Deployment, new: Mapping[str, ChangeInputs], region: str
) -> tuple[dict[str, ResourceDiff], _Moving]:
    old_section = _old_section(before, new)
    existing = {k: v for k, v in new.items() if k in old_section}
    moving = _Moving()
    while True:
        found = diff_templates(
            {"Resources": old_section},
            {"Resources": _new_section(existing, moving)},
            region=region,
            security=False,
        )
        diffs = {r.logical_id: r for r in found.resources if r.logical_id in old_section}
        now = _Moving(
            replaced=frozenset(lid for lid, r in diffs.items() if r.impact.replaces),
            modified=frozenset(diffs),
        )
        if now.replaced <= moving.replaced and now.modified <= moving.modified:
            return diffs, moving
        moving = _Moving(moving.replaced | now.replaced, moving.modified | now.modified)


def _cause(
    prop: PropertyDiff,
    res: ChangeInputs,
    old_raw: Mapping[str, Any],
    moving: _Moving,
    changed_params: set[str],
) -> dict[str, str]:
    raw = res.template.get("Properties") or {}
    if prop.name in raw and prop.name in old_raw and raw[prop.name] == old_raw[prop.name]:
        refs = sorted(res.references.get(prop.name, set()))
        for ref in refs:
            if moving.dynamic(ref):
                source = "ResourceAttribute" if "." in ref else "ResourceReference"
                return {"Evaluation": "Dynamic", "ChangeSource": source, "CausingEntity": ref}
        for ref in refs:
            if ref in changed_params:
                return {
                    "Evaluation": "Static",
                    "ChangeSource": "ParameterReference",
                    "CausingEntity": ref,
                }
        for ref in refs:
            if "." in ref:
                return {
                    "Evaluation": "Dynamic",
                    "ChangeSource": "ResourceAttribute",
                    "CausingEntity": ref,
                }
    return {"Evaluation": "Static", "ChangeSource": "DirectModification"}


def details_by_resource(
    before: Deployment,
    new: Mapping[str, ChangeInputs],
    changed_params: set[str],
    region: str = "us-east-1",
) -> dict[str, list[dict[str, Any]]]:
    """``Details`` per existing resource that changes (resources without changes absent)."""
    diffs, moving = _resource_diffs(before, new, region)
    out: dict[str, list[dict[str, Any]]] = {}
    for lid, found in diffs.items():
        res = new[lid]
        old_raw = before.resources[lid].template.get("Properties") or {}
        details = []
        for prop in found.properties:
            cause = _cause(prop, res, old_raw, moving, changed_params)
            impact = prop.impact
            entity = cause.get("CausingEntity", "")
            if impact is Impact.WILL_REPLACE and entity and _target(entity) not in moving.replaced:
                # an attribute of a resource updated in place *may* change
                impact = Impact.MAY_REPLACE
            target = {
                "Attribute": "Tags" if prop.name == "Tags" else "Properties",
                "Name": prop.name,
                "RequiresRecreation": _RECREATION.get(impact, "Never"),
            }
            details.append({"Target": target, **cause})
        if details:
            out[lid] = details
    return out
