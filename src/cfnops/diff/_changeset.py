"""Merge a change set's exact ``Replacement`` answers into an offline diff (pure).

DescribeChangeSet reports, per resource change, ``Replacement`` (``True`` /
``False`` / ``Conditional``) and per detail ``RequiresRecreation`` (``Always`` /
``Conditionally`` / ``Never``) — AWS docs: "ResourceChange" and
"ResourceChangeDetail" in the CloudFormation API reference. Those answers are
CloudFormation's own and win over the table; resources only the change set
reports (values from parameters, dynamic references) are added.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from cfnops.diff._model import Impact, PropertyDiff, ResourceDiff, TemplateDiff

_REPLACEMENT = {
    "True": Impact.WILL_REPLACE,
    "Conditional": Impact.MAY_REPLACE,
    "False": Impact.WILL_UPDATE,
}
_RECREATION = {
    "Always": Impact.WILL_REPLACE,
    "Conditionally": Impact.MAY_REPLACE,
    "Never": Impact.WILL_UPDATE,
}
_ACTION = {"Add": Impact.WILL_CREATE, "Remove": Impact.WILL_DESTROY}


@dataclass(frozen=True)
class ChangeSetAnswer:
    """One resource change of a change set, reduced to what the merge needs."""

    logical_id: str
    resource_type: str
    action: str
    replacement: str | None
    properties: tuple[tuple[str, str], ...] = ()  # (property name, RequiresRecreation)

    @classmethod
    def from_change(cls, change: Mapping[str, Any]) -> ChangeSetAnswer | None:
        rc = change.get("ResourceChange")
        if change.get("Type") != "Resource" or not isinstance(rc, dict):
            return None
        props: list[tuple[str, str]] = []
        for detail in rc.get("Details", []) or []:
            target = detail.get("Target", {}) or {}
            if target.get("Attribute") == "Properties" and target.get("Name"):
                props.append((str(target["Name"]), str(target.get("RequiresRecreation", "Never"))))
        return cls(
            logical_id=str(rc.get("LogicalResourceId", "")),
            resource_type=str(rc.get("ResourceType", "")),
            action=str(rc.get("Action", "")),
            replacement=rc.get("Replacement"),
            properties=tuple(props),
        )


def _merge_resource(res: ResourceDiff | None, answer: ChangeSetAnswer) -> ResourceDiff:
    if answer.action in _ACTION:
        impact = _ACTION[answer.action]
        if res is not None and res.impact is Impact.WILL_ORPHAN:
            impact = Impact.WILL_ORPHAN
    else:
        impact = _REPLACEMENT.get(str(answer.replacement), Impact.WILL_UPDATE)
    reason = f"change set: Action={answer.action}"
    if answer.replacement is not None:
        reason += f", Replacement={answer.replacement}"
    if res is None:
        props = tuple(
            PropertyDiff(
                name=n,
                impact=_recreation_impact(r),
                reason=f"change set: RequiresRecreation={r}",
                change=None,
            )
            for n, r in answer.properties
        )
        return ResourceDiff(
            answer.logical_id, answer.resource_type, impact, reason, properties=props
        )
    by_name = {p.name: p for p in res.properties}
    for name, recreation in answer.properties:
        exact = _recreation_impact(recreation)
        note = f"change set: RequiresRecreation={recreation}"
        if name in by_name:
            by_name[name] = replace(
                by_name[name],
                impact=exact,
                reason=f"{note} (offline: {by_name[name].impact.value}, {by_name[name].reason})",
            )
        else:
            by_name[name] = PropertyDiff(name=name, impact=exact, reason=note, change=None)
    if impact.rank < Impact.MAY_REPLACE.rank:  # no replacement: no property replaces either
        detailed = {name for name, _ in answer.properties}
        for name, prop in by_name.items():
            if name not in detailed and prop.impact.rank > impact.rank:
                by_name[name] = replace(
                    prop,
                    impact=Impact.WILL_UPDATE,
                    reason=f"change set: Replacement={answer.replacement} (offline: "
                    f"{prop.impact.value}, {prop.reason})",
                )
    offline = f" (offline: {res.impact.value})" if res.impact is not impact else ""
    return replace(
        res,
        impact=impact,
        reason=f"{reason}{offline}; {res.reason}",
        properties=tuple(by_name[k] for k in sorted(by_name)),
    )


def _recreation_impact(recreation: str) -> Impact:
    return _RECREATION.get(recreation, Impact.WILL_UPDATE)


def _unlisted(res: ResourceDiff) -> ResourceDiff | None:
    """A resource the change set does not list: its property changes resolve to nothing.

    CloudFormation compares resolved values (a ``Ref`` written as the id it resolves
    to is no change), so a property difference it does not list is none. Attribute
    changes outside ``Properties`` (``DependsOn`` …) stay, as updates.
    """
    if not res.other:
        return None
    return replace(
        res,
        impact=Impact.WILL_UPDATE,
        reason=f"{res.logical_id} is updated in place (the change set lists no property change)",
        properties=(),
    )


_PROPERTY_IMPACTS = (Impact.WILL_UPDATE, Impact.MAY_REPLACE, Impact.WILL_REPLACE)


def merge_change_set(diff: TemplateDiff, answers: list[ChangeSetAnswer]) -> TemplateDiff:
    """``diff`` with CloudFormation's exact answers in place of the offline ones.

    A resource updated or replaced offline that the change set does not list has
    no effective change once resolved and leaves the report (a note names it).
    """
    merged: dict[str, ResourceDiff | None] = {r.logical_id: r for r in diff.resources}
    answered: set[str] = set()
    for answer in answers:
        answered.add(answer.logical_id)
        merged[answer.logical_id] = _merge_resource(merged.get(answer.logical_id), answer)
    notes = list(diff.notes)
    resolved: list[str] = []
    for rid, res in list(merged.items()):
        if rid in answered or res is None or res.impact not in _PROPERTY_IMPACTS:
            continue
        if not res.properties:
            continue
        merged[rid] = _unlisted(res)
        resolved.append(f"{rid} (offline: {res.impact.value})")
    if resolved:
        notes.append(
            "the change set lists no property change for "
            + ", ".join(sorted(resolved))
            + ": equal once CloudFormation resolves the values"
        )
    notes.append(f"exact replacement answers merged from a change set ({len(answers)} changes)")
    kept = tuple(r for _, r in sorted(merged.items()) if r is not None)
    return replace(diff, resources=kept, notes=tuple(notes))
