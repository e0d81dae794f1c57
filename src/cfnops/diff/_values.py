"""Value propagation: what changes value because a resource it refers to is replaced.

A replaced resource gets a new physical id and new attributes, so every
``Ref``/``Fn::GetAtt``/``Fn::Sub`` of it evaluates to something new: resources
referring to it from mutable properties are updated in place, and outputs
referring to it change. Replacement propagation (create-only locations) is
:mod:`cfnops.diff._propagate`; this module lists the rest, with the chain.
These entries are informational (``TemplateDiff.value_changes``): they are not
counted in ``difference_count`` and trip no gate, as the update they describe
follows from a replacement that is already reported. (Conditions cannot refer
to resources, so they never change this way.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cfnops.diff._model import Impact, ValueChange
from cfnops.diff._propagate import Explainer
from cfnops.diff._refs import references
from cfnops.diff._resources import Draft


def _targets(value: Any, replaced: frozenset[str], skip: str = "") -> list[str]:
    found: list[str] = []
    for target, _ in references(value):
        if target in replaced and target != skip and target not in found:
            found.append(target)
    return found


def _because(explain: Explainer, drafts: Mapping[str, Draft], target: str) -> str:
    verb = Explainer.verb(drafts[target].impact)
    return f"{target}, which {verb} because {explain.cause(target)}"


def value_changes(
    drafts: Mapping[str, Draft],
    new_resources: Mapping[str, Any],
    new_outputs: Mapping[str, Any],
    explain: Explainer,
    changed_outputs: frozenset[str] = frozenset(),
) -> tuple[ValueChange, ...]:
    """Resources (mutable properties) and outputs whose value a replacement changes.

    Only WILL_REPLACE targets count: a MAY_REPLACE resource may keep its values.
    """
    out: list[ValueChange] = []
    # Only a resource that is really replaced (WILL_REPLACE) surely has new values.
    replaced = frozenset(r for r, d in drafts.items() if d.impact is Impact.WILL_REPLACE)
    if not replaced:
        return ()
    for rid in sorted(drafts):
        draft = drafts[rid]
        if draft.type_changed or draft.impact.replaces:
            continue
        by_target: dict[str, list[str]] = {}
        for target, name, _ in sorted(draft.references(), key=lambda r: r[1]):
            if name in draft.props or target not in replaced or target == rid:
                continue  # reported with its own impact, or not a replaced resource
            names = by_target.setdefault(target, [])
            if name not in names:
                names.append(name)
        for target, names in by_target.items():
            out.append(
                ValueChange(
                    kind="resource",
                    name=rid,
                    impact=Impact.WILL_UPDATE,
                    properties=tuple(names),
                    refers_to=target,
                    reason=f"{', '.join(names)} refer{'s' if len(names) == 1 else ''} to "
                    + _because(explain, drafts, target),
                )
            )
    for name in sorted(new_outputs):
        if name in changed_outputs:
            continue
        for target in _targets(new_outputs[name], replaced):
            out.append(
                ValueChange(
                    kind="output",
                    name=name,
                    impact=Impact.WILL_UPDATE,
                    properties=(),
                    refers_to=target,
                    reason="the output refers to " + _because(explain, drafts, target),
                )
            )
    return tuple(out)
