"""Per-resource textual diff: property impacts from the update-behaviour table.

For a property ``P`` whose value differs (AWS docs: "Update behaviors of stack
resources", using-cfn-updating-stacks-update-behaviors.html; the table comes
from the registry schemas):

* ``/properties/P`` create-only => WILL_REPLACE;
* else conditionally create-only => MAY_REPLACE;
* else a nested create-only path below ``P`` whose value differs => WILL_REPLACE,
  a nested conditionally create-only one => MAY_REPLACE;
* otherwise WILL_UPDATE.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cfnops.diff._model import AttributeDiff, Change, Impact, PropertyDiff, worst
from cfnops.diff._normalise import (
    NO_VALUE,
    SchemaPath,
    canon,
    depends_on,
    plain,
    same,
    value_at,
)
from cfnops.diff._policies import Override
from cfnops.diff._refs import references
from cfnops.schemas import TypeBehaviour

UNKNOWN_SCHEMA = "unknown schema"
# Nested paths only the resource specification (the docs' "Update requires") lists.
SPEC_LABEL = "create-only path (resource specification: Update requires Replacement)"
SPEC_CONDITIONAL_LABEL = "conditionally create-only path (resource specification)"
_ATTRIBUTE_ORDER = (
    "DependsOn",
    "Condition",
    "Metadata",
    "DeletionPolicy",
    "UpdateReplacePolicy",
    "UpdatePolicy",
    "CreationPolicy",
)


@dataclass
class Draft:
    """A resource present in both templates while the diff is being built (private)."""

    logical_id: str
    type: str
    behaviour: TypeBehaviour | None
    old_type: str | None = None
    props: dict[str, PropertyDiff] = field(default_factory=dict)
    other: list[AttributeDiff] = field(default_factory=list)
    overrides: dict[str, Override] = field(default_factory=dict)
    source: Any = None  # the resource in the new template
    _refs: list[tuple[str, str, SchemaPath]] | None = None

    def references(self) -> list[tuple[str, str, SchemaPath]]:
        """``(target, property, location)`` of every reference in the new properties.

        Walked once per diff and shared by propagation, parameter and value changes.
        """
        if self._refs is None:
            self._refs = [
                (target, name, location)
                for name, value in properties_of(self.source).items()
                if type(value) is dict or type(value) is list or isinstance(value, Mapping | list)
                for target, location in references(value, (name,))
            ]
        return self._refs

    @property
    def type_changed(self) -> bool:
        return self.old_type is not None and self.old_type != self.type

    @property
    def impact(self) -> Impact:
        if self.type_changed:
            return Impact.WILL_REPLACE
        if not self.props and not self.other:  # most resources of a large template
            return Impact.NO_CHANGE
        found = worst(*(p.impact for p in self.props.values()))
        if self.other and found.rank < Impact.WILL_UPDATE.rank:
            return Impact.WILL_UPDATE
        return found


def properties_of(resource: Any) -> dict[str, Any]:
    """``Properties`` as a mapping; a non-mapping value becomes one pseudo-property."""
    if type(resource) is not dict and not isinstance(resource, Mapping):  # dict: no ABC check
        return {}
    props = resource.get("Properties")
    if props is None:
        return {}
    if type(props) is dict or isinstance(props, Mapping):
        return {str(k): v for k, v in props.items()}
    return {"Properties": props}


def type_of(resource: Any) -> str:
    if type(resource) is dict or isinstance(resource, Mapping):
        value = resource.get("Type")
        return value if isinstance(value, str) else str(value)
    return "?"


def _pointer(path: SchemaPath) -> str:
    return "/properties/" + "/".join(path)


def _matches(location: SchemaPath, schema_path: SchemaPath) -> bool:
    """True when ``location`` is at, under or above ``schema_path`` (``*`` = any item)."""
    return all(a == b or a == "*" or b == "*" for a, b in zip(location, schema_path, strict=False))


def decide(
    behaviour: TypeBehaviour | None, name: str, old: Any, new: Any
) -> tuple[Impact, str, str | None]:
    """Impact, reason and deciding schema path of a textual change of ``name``."""
    if behaviour is None:
        return Impact.WILL_UPDATE, UNKNOWN_SCHEMA, None
    top = (name,)
    if top in behaviour.create_only:
        return Impact.WILL_REPLACE, "create-only property", _pointer(top)
    if top in behaviour.conditional_create_only:
        return Impact.MAY_REPLACE, "conditionally create-only property", _pointer(top)
    for paths, impact, label in (
        (behaviour.create_only, Impact.WILL_REPLACE, "create-only path"),
        (behaviour.conditional_create_only, Impact.MAY_REPLACE, "conditionally create-only path"),
        (behaviour.spec_create_only, Impact.WILL_REPLACE, SPEC_LABEL),
        (behaviour.spec_conditional_create_only, Impact.MAY_REPLACE, SPEC_CONDITIONAL_LABEL),
    ):
        for path in paths:
            if len(path) > 1 and path[0] == name:
                rest = path[1:]
                u = behaviour.unordered
                if value_at(old, rest, top, u) != value_at(new, rest, top, u):
                    return impact, f"{label} {_pointer(path)}", _pointer(path)
    return Impact.WILL_UPDATE, "updated in place", None


def sensitivity(behaviour: TypeBehaviour | None, location: SchemaPath) -> tuple[bool, str] | None:
    """How a reference at ``location`` reacts to its target's replacement.

    ``(True, path)``: a create-only location (the target's impact carries over);
    ``(False, path)``: conditionally create-only (MAY_REPLACE); ``None``: mutable.
    """
    if behaviour is None or not location:
        return None
    for paths, strict in (
        (behaviour.create_only, True),
        (behaviour.conditional_create_only, False),
        (behaviour.spec_create_only, True),
        (behaviour.spec_conditional_create_only, False),
    ):
        for path in paths:
            if path[0] == location[0] and _matches(location, path):
                return strict, _pointer(path)
    return None


SCHEMA = "registry schema"
SPEC = "resource specification"
POLICY = "UpdatePolicy"


SPEC_PREFIXES = (SPEC_LABEL, SPEC_CONDITIONAL_LABEL)


Resolve = Callable[[str, Any, Any], Any]  # name, old, new -> _resolve.Resolved | None
RESOLUTION = "resolution"


def _present(props: dict[str, Any]) -> dict[str, Any]:
    """``props`` without those set to ``Ref AWS::NoValue`` ("removes the corresponding
    resource property", pseudo-parameter-reference.html): absent and NoValue are one."""
    if not any(type(v) is dict and v == NO_VALUE for v in props.values()):
        return props
    return {k: v for k, v in props.items() if not (type(v) is dict and v == NO_VALUE)}


def compare_properties(
    behaviour: TypeBehaviour | None,
    old: dict[str, Any],
    new: dict[str, Any],
    overrides: dict[str, Override] | None = None,
    resolve: Resolve | None = None,
    notes: list[str] | None = None,
) -> dict[str, PropertyDiff]:
    """Every property whose canonical value differs, with its impact.

    ``overrides`` (from :func:`cfnops.diff._policies.overrides`) replace the
    schema's answer for the properties a resource attribute decides. ``resolve``
    (see :mod:`cfnops.diff._resolve`) evaluates differing values first: equal
    once resolved is no difference (its note goes to ``notes``), a value that
    depends on the deploy is a "may".
    """
    unordered = behaviour.unordered if behaviour is not None else frozenset()
    out: dict[str, PropertyDiff] = {}
    old, new = _present(old), _present(new)
    for name in sorted(old.keys() | new.keys()):
        in_old, in_new = name in old, name in new
        if in_old and in_new:
            if same(old[name], new[name]):  # fast path: identical text is never a difference
                continue
            if canon(old[name], (name,), unordered) == canon(new[name], (name,), unordered):
                continue
            change = Change.MODIFIED
        else:
            change = Change.ADDED if in_new else Change.REMOVED
        impact, reason, path = decide(behaviour, name, old.get(name), new.get(name))
        source = None if path is None else SPEC if reason.startswith(SPEC_PREFIXES) else SCHEMA
        resolved = None if resolve is None else resolve(name, old.get(name), new.get(name))
        if resolved is not None:
            if resolved.impact is Impact.NO_CHANGE:
                if notes is not None and resolved.note:
                    notes.append(resolved.note)
                continue
            impact, reason, path, source = (
                resolved.impact,
                resolved.reason,
                resolved.path,
                RESOLUTION,
            )
        override = (overrides or {}).get(name)
        if override is not None:
            impact, reason, source = override.impact, override.reason, override.source
            path = f"/properties/{name}" if impact.replaces else None
        out[name] = PropertyDiff(
            name=name,
            impact=impact,
            reason=reason,
            old=plain(old.get(name)),
            new=plain(new.get(name)),
            change=change,
            path=path,
            decided_by=source,
        )
    return out


def _attribute_canon(name: str, value: Any) -> Any:
    return depends_on(value) if name == "DependsOn" else canon(value, None)


def compare_attributes(old: Any, new: Any) -> list[AttributeDiff]:
    """Changed resource attributes outside ``Type`` and ``Properties``."""
    old_map = old if isinstance(old, Mapping) else {}
    new_map = new if isinstance(new, Mapping) else {}
    names = (set(old_map) | set(new_map)) - {"Type", "Properties"}
    ordered = [n for n in _ATTRIBUTE_ORDER if n in names] + sorted(
        str(n) for n in names if n not in _ATTRIBUTE_ORDER
    )
    out: list[AttributeDiff] = []
    for name in ordered:
        if name in old_map and name in new_map:
            if same(old_map[name], new_map[name]):
                continue
            if _attribute_canon(name, old_map[name]) == _attribute_canon(name, new_map[name]):
                continue
            change = Change.MODIFIED
        else:
            change = Change.ADDED if name in new_map else Change.REMOVED
        out.append(
            AttributeDiff(
                name=name, change=change, old=plain(old_map.get(name)), new=plain(new_map.get(name))
            )
        )
    return out


def deletion_impact(resource: Any) -> tuple[Impact, str]:
    """WILL_ORPHAN when the deployed DeletionPolicy keeps the resource, else WILL_DESTROY.

    AWS docs: "DeletionPolicy attribute" (aws-attribute-deletionpolicy.html).
    """
    policy = resource.get("DeletionPolicy") if isinstance(resource, Mapping) else None
    if policy in ("Retain", "RetainExceptOnCreate"):
        return Impact.WILL_ORPHAN, f"removed from the template; DeletionPolicy {policy} keeps it"
    if policy == "Snapshot":
        return Impact.WILL_DESTROY, "removed from the template; deleted after a final snapshot"
    return Impact.WILL_DESTROY, "removed from the template and deleted"
