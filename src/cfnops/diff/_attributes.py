"""Attributes whose value changes when their resource is updated in place.

Most attributes of a resource updated in place keep their value, so only
replacements propagate. A few do not: updating an ``AWS::EC2::LaunchTemplate``'s
``LaunchTemplateData`` creates a new launch template version, so
``Fn::GetAtt [LT, LatestVersionNumber]`` (and ``DefaultVersionNumber``, which
CloudFormation moves to the new version) evaluate to something new, and every
property that refers to them changes: an Auto Scaling group's
``LaunchTemplate.Version`` then triggers its UpdatePolicy (AWS docs,
"AWS::EC2::LaunchTemplate" return values, aws-resource-ec2-launchtemplate.html;
"UpdatePolicy attribute", aws-attribute-updatepolicy.html).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from cfnops.diff._model import Impact, PropertyDiff, worst
from cfnops.diff._normalise import SchemaPath, getatt_parts, intrinsic_name, plain
from cfnops.diff._refs import _SUB_VAR, references
from cfnops.diff._resources import Draft, properties_of, sensitivity

ATTRIBUTE_VALUE = "attribute value"
# type -> (properties whose change moves the attributes, the attributes)
_MOVING = {
    "AWS::EC2::LaunchTemplate": (
        frozenset({"LaunchTemplateData"}),
        frozenset({"LatestVersionNumber", "DefaultVersionNumber"}),
    ),
}


def _getatts(
    value: Any, path: SchemaPath, grow: bool = True
) -> Iterator[tuple[str, str, SchemaPath]]:
    """``(logical id, attribute, location)`` of every GetAtt (and ``${X.Attr}``) in ``value``."""
    if isinstance(value, dict):
        name = intrinsic_name(value)
        if name is None:
            for key, sub in value.items():
                yield from _getatts(sub, (*path, str(key)) if grow else path, grow)
            return
        arg = value[name]
        if name == "Fn::GetAtt":
            parts = getatt_parts(arg)
            if parts is not None and isinstance(parts[0], str) and isinstance(parts[1], str):
                yield parts[0], parts[1], path
            return
        if name == "Fn::Sub":
            text = arg if isinstance(arg, str) else arg[0] if isinstance(arg, list) and arg else ""
            for match in _SUB_VAR.finditer(text if isinstance(text, str) else ""):
                head, _, attr = match.group(1).strip().partition(".")
                if attr and not head.startswith("!"):
                    yield head, attr, path
        yield from _getatts(arg, path, grow=name == "Fn::If" and grow)
    elif isinstance(value, list):
        for item in value:
            yield from _getatts(item, (*path, "*") if grow else path, grow)


def _refers_to_replaced(value: Any, drafts: Mapping[str, Draft]) -> bool:
    return any(
        target in drafts and drafts[target].impact.replaces for target, _ in references(value)
    )


def apply_moving_attributes(
    drafts: dict[str, Draft], new_resources: Mapping[str, Any], *, via_replaced: bool = False
) -> bool:
    """Mark properties that refer to an attribute an in-place update changes.

    With ``via_replaced`` (a second round, after replacement propagation), a trigger
    property also changes when it refers to a replaced resource (a launch template
    whose security group is replaced gets a new version). Returns whether anything
    was marked.
    """
    moved: dict[str, tuple[frozenset[str], str]] = {}
    for rid, draft in drafts.items():
        spec = _MOVING.get(draft.type)
        if spec is None or draft.type_changed or draft.impact.replaces:
            continue
        changed = sorted(spec[0] & draft.props.keys())
        if not changed and via_replaced:
            props = properties_of(new_resources.get(rid))
            changed = sorted(n for n in spec[0] if _refers_to_replaced(props.get(n), drafts))
        if changed:
            moved[rid] = (spec[1], changed[0])
    if not moved:
        return False
    marked = False
    for rid, draft in drafts.items():
        if draft.type_changed:
            continue
        for name, value in properties_of(new_resources.get(rid)).items():
            for target, attr, location in _getatts(value, (name,)):
                if target == rid or target not in moved or attr not in moved[target][0]:
                    continue
                marked = (
                    _mark(draft, name, value, target, attr, moved[target][1], location) or marked
                )
    return marked


def _mark(
    draft: Draft, name: str, value: Any, target: str, attr: str, cause: str, location: SchemaPath
) -> bool:
    found = sensitivity(draft.behaviour, location)
    impact = Impact.WILL_UPDATE
    path = None
    if found is not None:
        impact, path = (Impact.WILL_REPLACE if found[0] else Impact.MAY_REPLACE), found[1]
    reason = (
        f"refers to {target}.{attr}, which changes because {target}'s {cause} is updated "
        "(a new version)"
    )
    override = draft.overrides.get(name)
    if override is not None:
        impact, reason, path = override.impact, f"{reason}; {override.reason}", None
    existing = draft.props.get(name)
    if existing is not None and existing.impact.rank >= impact.rank:
        return False
    shown = plain(value)
    draft.props[name] = PropertyDiff(
        name=name,
        impact=worst(impact, existing.impact) if existing else impact,
        reason=reason,
        old=existing.old if existing else shown,
        new=shown,
        change=existing.change if existing else None,
        path=path if impact.replaces else None,
        decided_by=ATTRIBUTE_VALUE,
    )
    return True
