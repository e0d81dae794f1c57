"""Replacement propagation to a fixpoint, and the "because" chains that explain it.

A resource that is WILL_REPLACE or MAY_REPLACE gets a new physical id and new
attribute values, so every reference to it changes value. A reference in a
create-only location turns the referring property into the target's impact
(WILL_REPLACE stays WILL_REPLACE, MAY_REPLACE stays MAY_REPLACE); in a
conditionally create-only location it is MAY_REPLACE; from a mutable location
it is not reported (the update is implied, as in ``cdk diff``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import Any

from cfnops.diff._model import Impact, PropertyDiff
from cfnops.diff._normalise import plain
from cfnops.diff._resources import Draft, properties_of, sensitivity

_MAX_CHAIN = 8

Dependent = tuple[str, str, bool, str]  # referrer id, property, strict?, schema path


def _index(drafts: dict[str, Draft], new_resources: dict[str, Any]) -> dict[str, list[Dependent]]:
    index: dict[str, list[Dependent]] = defaultdict(list)
    for rid, draft in drafts.items():
        if draft.type_changed or draft.behaviour is None:
            continue
        seen: set[tuple[str, str]] = set()
        for target, name, location in draft.references():
            if target == rid or target not in drafts or (target, name) in seen:
                continue
            found = sensitivity(draft.behaviour, location)
            if found is None and name in draft.overrides:
                found = (False, f"/properties/{name}")  # the attribute decides
            if found is not None:
                seen.add((target, name))
                index[target].append((rid, name, found[0], found[1]))
    return index


def propagate(drafts: dict[str, Draft], new_resources: dict[str, Any]) -> None:
    """Upgrade referring properties of ``drafts`` in place until nothing changes."""
    queue = [rid for rid, d in drafts.items() if d.impact.replaces]
    if not queue:
        return
    index = _index(drafts, new_resources)
    while queue:
        target = queue.pop()
        level = drafts[target].impact
        for rid, name, strict, path in index.get(target, ()):
            impact = (
                Impact.WILL_REPLACE
                if strict and level is Impact.WILL_REPLACE
                else (Impact.MAY_REPLACE)
            )
            draft = drafts[rid]
            decided_by = "registry schema"
            override = draft.overrides.get(name)
            if override is not None:
                decided_by = override.source
                impact = (
                    Impact.MAY_REPLACE
                    if override.impact is Impact.WILL_REPLACE and level is Impact.MAY_REPLACE
                    else override.impact
                )
            existing = draft.props.get(name)
            if existing is not None and existing.impact.rank >= impact.rank:
                continue
            before = draft.impact
            if existing is None:
                value = plain(properties_of(new_resources[rid]).get(name))
                entry = PropertyDiff(
                    name=name,
                    impact=impact,
                    reason="",
                    old=value,
                    new=value,
                    change=None,
                    path=path if impact.replaces else None,
                    propagated_from=target,
                    decided_by=decided_by,
                )
            else:
                entry = replace(
                    existing,
                    impact=impact,
                    path=path if impact.replaces else None,
                    propagated_from=target,
                    decided_by=decided_by,
                )
            draft.props[name] = entry
            after = draft.impact
            if after.replaces and after.rank > before.rank:
                queue.append(rid)


class Explainer:
    """Builds the "because" text of replaced resources, following propagation chains."""

    def __init__(self, drafts: dict[str, Draft]) -> None:
        self._drafts = drafts
        self._memo: dict[str, str] = {}

    @staticmethod
    def verb(impact: Impact) -> str:
        return "is replaced" if impact is Impact.WILL_REPLACE else "may be replaced"

    def decisive(self, rid: str) -> PropertyDiff | None:
        draft = self._drafts[rid]
        best: PropertyDiff | None = None
        for prop in draft.props.values():
            if best is None or prop.impact.rank > best.impact.rank:
                best = prop
        return best

    def cause(self, rid: str, depth: int = 0) -> str:
        """Why ``rid`` is (or may be) replaced, without its own name."""
        if rid in self._memo:
            return self._memo[rid]
        draft = self._drafts[rid]
        if draft.type_changed:
            text = f"its type changes from {draft.old_type} to {draft.type}"
        else:
            prop = self.decisive(rid)
            text = "it changed" if prop is None else self.property_cause(rid, prop, depth)
        if depth == 0:
            self._memo[rid] = text
        return text

    def _conditional(self, owner: str, prop: PropertyDiff) -> bool:
        behaviour = self._drafts[owner].behaviour
        if behaviour is None or not prop.path:
            return False
        path = tuple(prop.path.removeprefix("/properties/").split("/"))
        return path in behaviour.conditional_create_only

    def property_cause(self, owner: str, prop: PropertyDiff, depth: int = 0) -> str:
        """Why ``prop`` of resource ``owner`` has its impact, starting with its name."""
        if prop.propagated_from is not None:
            target = prop.propagated_from
            name = prop.name
            if self._conditional(owner, prop):
                name += " (conditionally create-only)"
            if depth >= _MAX_CHAIN:
                return f"{name} refers to {target}, which is replaced (chain shortened)"
            verb = self.verb(self._drafts[target].impact)
            return f"{name} refers to {target}, which {verb} because " + self.cause(
                target, depth + 1
            )
        if prop.parameter is not None:
            return f"{prop.name} {prop.reason}"
        if prop.decided_by in ("attribute value", "resolution"):
            return f"{prop.name} {prop.reason}"
        if prop.decided_by in ("UpdatePolicy", "documented condition"):
            return f"{prop.name} changes and {prop.reason}"
        if prop.path and prop.path != f"/properties/{prop.name}":
            kind = (
                "create-only" if prop.impact is Impact.WILL_REPLACE else "conditionally create-only"
            )
            where = (
                " (resource specification)" if prop.decided_by == "resource specification" else ""
            )
            return f"{prop.name} changes at {kind} path {prop.path}{where}"
        if prop.impact is Impact.WILL_REPLACE:
            return f"{prop.name} is create-only"
        return f"{prop.name} is conditionally create-only"

    def resource_reason(self, rid: str) -> str:
        impact = self._drafts[rid].impact
        return f"{rid} {self.verb(impact)} because {self.cause(rid)}"

    def property_reason(self, owner: str, prop: PropertyDiff) -> str:
        """The report text of ``prop``: its own reason, or its propagation chain."""
        if prop.propagated_from is None:
            return prop.reason
        text = self.property_cause(owner, prop).removeprefix(prop.name + " ")
        override = self._drafts[owner].overrides.get(prop.name)
        if override is not None:
            text += f"; {override.reason}"
        marker = "(conditionally create-only) "
        if text.startswith(marker):
            text = "conditionally create-only; " + text[len(marker) :]
        return text
