"""Parameter values: what the stack runs with against what a deploy would use.

Only used when values are known (``--stack``, ``--parameters``); a template
diff alone never evaluates parameters. A reference to a parameter whose value
changes changes the referring property: WILL_REPLACE in a create-only
location, MAY_REPLACE in a conditionally create-only one, WILL_UPDATE elsewhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from cfnops.diff._model import Impact, ParameterValue, PropertyDiff
from cfnops.diff._normalise import plain
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
    new ``Default``. Old value: the deployed value, else (offline) the old
    ``Default`` — offline, the deployed stack is assumed to use its defaults.
    """
    params = new.get("Parameters")
    names = sorted(str(k) for k in params) if isinstance(params, Mapping) else []
    out: list[ParameterValue] = []
    for name in names:
        before = deployed.get(name) if deployed is not None else _default(old, name)
        if name in given:
            after: str | None = given[name]
        elif deployed is not None and name in deployed:
            after = deployed[name]
        else:
            after = _default(new, name)
        out.append(ParameterValue(name, before, after))
    return tuple(out)


def apply_parameter_changes(
    drafts: dict[str, Draft],
    new_resources: Mapping[str, Any],
    changed: Mapping[str, ParameterValue],
) -> None:
    """Upgrade properties of ``drafts`` that refer to a parameter whose value changes."""
    if not changed:
        return
    for rid, draft in drafts.items():
        if draft.type_changed:
            continue
        values = properties_of(new_resources[rid])
        for target, name, location in draft.references():
            value = values[name]
            if target not in changed:
                continue
            found = sensitivity(draft.behaviour, location)
            if found is None:
                impact, path = Impact.WILL_UPDATE, None
            else:
                strict, path = found
                impact = Impact.WILL_REPLACE if strict else Impact.MAY_REPLACE
            existing = draft.props.get(name)
            if existing is not None and existing.impact.rank >= impact.rank:
                continue
            pv = changed[target]
            reason = f"refers to parameter {target}, whose value changes ({pv.old} → {pv.new})"
            if existing is None:
                shown = plain(value)
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
