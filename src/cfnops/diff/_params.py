"""Parameter values: what the stack runs with against what a deploy would use.

Only used when values are known (``--stack``, ``--parameters``); a template
diff alone never evaluates parameters. A reference to a parameter whose value
changes changes the referring property: WILL_REPLACE in a create-only
location, MAY_REPLACE in a conditionally create-only one, WILL_UPDATE elsewhere.
Offline the deployed value is unknown (``old`` is ``None``; a default is what a
deploy may use, not what the stack runs with): a create-only property referring
to a parameter given a value is then MAY_REPLACE, unchanged when the deployed
value is the given one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from cfnops.diff._model import Impact, ParameterValue, PropertyDiff
from cfnops.diff._normalise import plain
from cfnops.diff._refs import references
from cfnops.diff._resources import Draft, properties_of, sensitivity


def _default(template: Mapping[str, Any], name: str) -> str | None:
    params = template.get("Parameters")
    spec = params.get(name) if isinstance(params, Mapping) else None
    if isinstance(spec, Mapping) and "Default" in spec:
        value = spec["Default"]
        if isinstance(value, list):
            return ",".join(str(v) for v in value)
        return str(plain(value)).lower() if isinstance(value, bool) else str(value)
    return None


def parameter_values(
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    given: Mapping[str, str],
    deployed: Mapping[str, str] | None = None,
) -> tuple[ParameterValue, ...]:
    """Old and new value of every parameter of ``new``.

    New value: ``given``, else the deployed value (``UsePreviousValue``), else the
    new ``Default``. Old value: the deployed value; ``None`` when it is not known
    (offline: the stack may run with any value, its default is not assumed).
    """
    params = new.get("Parameters")
    names = sorted(str(k) for k in params) if isinstance(params, Mapping) else []
    out: list[ParameterValue] = []
    for name in names:
        before = deployed.get(name) if deployed is not None else None
        if name in given:
            after: str | None = given[name]
        elif deployed is not None and name in deployed:
            after = deployed[name]
        else:
            after = _default(new, name)
        out.append(ParameterValue(name, before, after))
    return tuple(out)


def _reason(target: str, pv: ParameterValue) -> str:
    if pv.old is None:
        return (
            f"refers to parameter {target}: unchanged only when the deployed value is "
            f"{pv.new!r} (the value given); the deployed value is not known "
            "(compare with --stack to know it)"
        )
    return f"refers to parameter {target}, whose value changes ({pv.old} → {pv.new})"


def _old_refers(old_resource: Any, name: str, target: str) -> bool:
    """Whether the deployed text of property ``name`` refers to ``target`` too (else the
    text changed and resolution already compared it with the known values)."""
    value = properties_of(old_resource).get(name)
    return any(t == target for t, _ in references(value, (name,)))


def apply_parameter_changes(
    drafts: dict[str, Draft],
    new_resources: Mapping[str, Any],
    changed: Mapping[str, ParameterValue],
    old_resources: Mapping[str, Any],
) -> None:
    """Upgrade properties of ``drafts`` that refer to a parameter whose value changes
    (or whose deployed value is unknown while a value is given: MAY_REPLACE at most)."""
    if not changed:
        return
    for rid, draft in drafts.items():
        if draft.type_changed:
            continue
        values = properties_of(new_resources[rid])
        for target, name, location in draft.references():
            if target not in changed or not _old_refers(old_resources.get(rid), name, target):
                continue
            pv = changed[target]
            found = sensitivity(draft.behaviour, location)
            if found is None:
                impact, path = Impact.WILL_UPDATE, None
            else:
                strict, path = found
                impact = (
                    Impact.WILL_REPLACE if strict and pv.old is not None else Impact.MAY_REPLACE
                )
            existing = draft.props.get(name)
            if existing is not None and existing.impact.rank >= impact.rank:
                continue
            reason = _reason(target, pv)
            if existing is None:
                shown = plain(values[name])
                draft.props[name] = PropertyDiff(
                    name=name,
                    impact=impact,
                    reason=reason,
                    old=shown,
                    new=shown,
                    change=None,
                    path=path,
                    parameter=target,
                )
            else:
                draft.props[name] = replace(
                    existing, impact=impact, reason=reason, path=path, parameter=target
                )
