"""``diff_templates``: the pure entry point, from two parsed templates to a TemplateDiff."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from cfnops.diff._attributes import apply_moving_attributes
from cfnops.diff._conditions import apply_conditions
from cfnops.diff._foreach import expand_section, has_foreach
from cfnops.diff._model import (
    Change,
    EntryDiff,
    Impact,
    ParameterValue,
    ResourceDiff,
    TemplateDiff,
    ValueChange,
)
from cfnops.diff._names import name_findings
from cfnops.diff._normalise import canon, has_non_ascii, mangle, plain, same
from cfnops.diff._params import apply_parameter_changes
from cfnops.diff._policies import (
    followed_settings,
    kept_settings,
    overrides,
    policy_note,
    replace_note,
)
from cfnops.diff._propagate import Explainer, propagate
from cfnops.diff._pseudo import apply_pseudo
from cfnops.diff._resolve import Resolver
from cfnops.diff._resources import (
    Draft,
    compare_attributes,
    compare_properties,
    decide,
    deletion_impact,
    properties_of,
    type_of,
)
from cfnops.diff._security import security_view
from cfnops.diff._values import value_changes
from cfnops.schemas import CUSTOM_RESOURCE_TYPE, SchemaTable, load_table

NAMED_SECTIONS = ("Parameters", "Outputs", "Conditions", "Mappings", "Metadata")
CUSTOM_RESOURCE_NOTE = (
    "update — the handler decides the PhysicalResourceId; a new one deletes the old resource"
)


def _section(template: Mapping[str, Any], key: str) -> dict[str, Any]:
    """A section as a mapping with string keys (a malformed section counts as empty)."""
    value = template.get(key)
    return {str(k): v for k, v in value.items()} if isinstance(value, Mapping) else {}


def _entries(old: Mapping[str, Any], new: Mapping[str, Any]) -> tuple[EntryDiff, ...]:
    out: list[EntryDiff] = []
    for name in sorted(set(old) | set(new), key=str):
        if name in old and name in new:
            if canon(old[name]) == canon(new[name]):
                continue
            change = Change.MODIFIED
        else:
            change = Change.ADDED if name in new else Change.REMOVED
        out.append(EntryDiff(str(name), change, plain(old.get(name)), plain(new.get(name))))
    return tuple(out)


def _other_sections(old: Mapping[str, Any], new: Mapping[str, Any]) -> tuple[EntryDiff, ...]:
    skip = {"Resources", *NAMED_SECTIONS}
    out: list[EntryDiff] = []
    for key in sorted((set(old) | set(new)) - skip, key=str):
        if key in old and key in new:
            if canon(old[key]) == canon(new[key]):
                continue
            change = Change.MODIFIED
        else:
            change = Change.ADDED if key in new else Change.REMOVED
        out.append(EntryDiff(str(key), change, plain(old.get(key)), plain(new.get(key))))
    return tuple(out)


def _is_custom(type_name: str) -> bool:
    return type_name.startswith("Custom::") or type_name == CUSTOM_RESOURCE_TYPE


def _resolving(resolver: Resolver | None, rid: str, behaviour: Any) -> Any:
    if resolver is None:
        return None

    def resolve(name: str, old: Any, new: Any) -> Any:
        found = resolver.compare(name, old, new, lambda a, b: decide(behaviour, name, a, b))
        if found is not None and found.note:
            found = replace(found, note=f"{rid}.{found.note}")
        return found

    return resolve


def _resources(
    old: dict[str, Any],
    new: dict[str, Any],
    table: SchemaTable,
    changed_params: Mapping[str, ParameterValue],
    outputs: tuple[dict[str, Any], frozenset[str]] = ({}, frozenset()),
    resolver: Resolver | None = None,
    resolved_notes: list[str] | None = None,
    unchanged: set[str] | None = None,
) -> tuple[tuple[ResourceDiff, ...], tuple[ValueChange, ...]]:
    """Resource differences and value changes; ids of identical resources go to ``unchanged``."""
    unchanged = set() if unchanged is None else unchanged
    out: dict[str, ResourceDiff] = {}
    for rid in new:
        if rid not in old:
            out[rid] = ResourceDiff(
                rid, type_of(new[rid]), Impact.WILL_CREATE, "only in the new template"
            )
    drafts = {
        rid: _draft(rid, old[rid], new[rid], table, resolver, resolved_notes, unchanged)
        for rid in new
        if rid in old
    }
    for rid in old:
        if rid not in new:
            impact, reason = deletion_impact(old[rid])
            out[rid] = ResourceDiff(rid, type_of(old[rid]), impact, reason)
    _settle(drafts, old, new, changed_params)
    explain = Explainer(drafts)
    for rid, draft in drafts.items():
        if draft.impact is not Impact.NO_CHANGE:
            out[rid] = _reported(rid, draft, explain, new.get(rid))
    values = value_changes(drafts, new, outputs[0], explain, outputs[1])
    return tuple(out[k] for k in sorted(out)), values


def _draft(
    rid: str,
    old_res: Any,
    new_res: Any,
    table: SchemaTable,
    resolver: Resolver | None,
    resolved_notes: list[str] | None,
    unchanged: set[str],
) -> Draft:
    """A resource in both templates, its own changes compared (identical: in ``unchanged``)."""
    new_type, old_type = type_of(new_res), type_of(old_res)
    behaviour = table.get(new_type)
    draft = Draft(rid, new_type, behaviour, old_type=old_type, source=new_res)
    draft.overrides = {
        **kept_settings(new_type, old_res, new_res),
        **overrides(new_type, new_res),
    }
    if same(old_res, new_res):
        unchanged.add(rid)
        return draft  # unchanged text; may still be reached by propagation
    if not draft.type_changed:
        draft.props = compare_properties(
            behaviour,
            properties_of(old_res),
            properties_of(new_res),
            draft.overrides,
            _resolving(resolver, rid, behaviour),
            resolved_notes,
        )
    draft.other = compare_attributes(old_res, new_res)
    return draft


def _settle(
    drafts: dict[str, Draft],
    old: dict[str, Any],
    new: dict[str, Any],
    changed_params: Mapping[str, ParameterValue],
) -> None:
    """What others change: parameters, followed settings, moving attributes, references."""
    apply_parameter_changes(drafts, new, changed_params, old)
    for rid, draft in drafts.items():  # from here on only values that others change
        draft.overrides.update(followed_settings(draft.type, new.get(rid), draft.overrides))
    apply_moving_attributes(drafts, new)
    propagate(drafts, new)
    if apply_moving_attributes(drafts, new, via_replaced=True):
        propagate(drafts, new)


def _reported(rid: str, draft: Draft, explain: Explainer, source: Any) -> ResourceDiff:
    """A changed resource as reported: its properties explained, its reason and notes."""
    impact = draft.impact
    props = tuple(
        replace(p, reason=explain.property_reason(rid, p)) for _, p in sorted(draft.props.items())
    )
    notes: tuple[str, ...] = ()
    if impact.replaces:
        reason = explain.resource_reason(rid)
    elif draft.behaviour is None and props:
        reason = f"{rid} is updated in place ({draft.type}: unknown schema)"
    else:
        reason = f"{rid} is updated in place"
    if _is_custom(draft.type) and impact is Impact.WILL_UPDATE and props:
        notes = (CUSTOM_RESOURCE_NOTE,)
    kept = replace_note(source) if impact.replaces else None
    caveat = policy_note(draft.type, source, set(draft.props))
    notes = (*notes, *(n for n in (kept, caveat) if n is not None))
    return ResourceDiff(
        logical_id=rid,
        type=draft.type,
        impact=impact,
        reason=reason,
        old_type=draft.old_type if draft.type_changed else None,
        properties=props,
        other=tuple(draft.other),
        notes=notes,
    )


def _differs_in_non_ascii(result: TemplateDiff, new: Mapping[str, Any]) -> bool:
    """Whether a differing entry of ``new`` has non-ASCII text (else mangling changes nothing).

    Only entries that differ can stop differing once mangled; checking them, not the
    whole template, keeps large templates cheap.
    """
    resources = _section(new, "Resources")
    if any(has_non_ascii(resources.get(r.logical_id)) for r in result.resources):
        return True
    entries = (
        *result.parameters,
        *result.outputs,
        *result.conditions,
        *result.mappings,
        *result.metadata,
        *result.sections,
    )
    return any(has_non_ascii(e.new) for e in entries)


def prepare(template: Any, *, expand_foreach: bool = True) -> dict[str, Any]:
    """A template as a mapping, with ``Fn::ForEach`` loops expanded when asked."""
    if not isinstance(template, Mapping):
        return {}
    prepared = dict(template)
    if expand_foreach:
        for key in ("Resources", "Outputs", "Conditions"):
            if has_foreach(prepared.get(key)):
                prepared[key] = expand_section(prepared[key])
    return prepared


def diff_templates(
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    *,
    table: SchemaTable | None = None,
    region: str = "us-east-1",
    expand_foreach: bool = True,
    parameter_values: tuple[ParameterValue, ...] = (),
    security: bool = True,
    pseudo_parameters: Mapping[str, str] | None = None,
    resolve: bool = True,
    _check_mangling: bool = True,
) -> TemplateDiff:
    """Every difference between ``old`` (deployed) and ``new``, with replacement analysis.

    ``table`` (or ``region``) selects the update-behaviour data. Parameter values
    are evaluated only when ``parameter_values`` are given (see
    :func:`cfnops.diff.parameter_values`); ``Fn::ForEach`` loops are expanded
    unless ``expand_foreach=False``. ``pseudo_parameters`` (``{"AWS::Region":
    "eu-west-1", …}``, known for a deployed stack) are substituted in both
    templates before comparing. Differing values are resolved before the
    impact is decided (mappings over their regions, parameters' allowed values
    and unchanged defaults, conditions; see :mod:`cfnops.diff._resolve`) unless
    ``resolve=False``.

    >>> d = diff_templates({"Resources": {"B": {"Type": "AWS::S3::Bucket",
    ...     "Properties": {"BucketName": "a"}}}}, {"Resources": {"B": {
    ...     "Type": "AWS::S3::Bucket", "Properties": {"BucketName": "b"}}}})
    >>> d.resource("B").impact
    <Impact.WILL_REPLACE: 'WILL_REPLACE'>
    """
    table = table or load_table(region)
    o, n = prepare(old, expand_foreach=expand_foreach), prepare(new, expand_foreach=expand_foreach)
    if pseudo_parameters:  # one stack: the same values for both templates
        o, n = apply_pseudo(o, pseudo_parameters), apply_pseudo(n, pseudo_parameters)
    if parameter_values:  # known values: evaluate each template's conditions with its own
        o = apply_conditions(o, {p.name: p.old for p in parameter_values if p.old is not None})
        n = apply_conditions(n, {p.name: p.new for p in parameter_values if p.new is not None})
    result = _compare(o, n, table, parameter_values, resolve=resolve, security=security)
    if _check_mangling and not result.is_empty and _differs_in_non_ascii(result, n):
        again = diff_templates(
            o,
            mangle(n),
            table=table,
            expand_foreach=False,
            parameter_values=parameter_values,
            security=False,
            resolve=resolve,
            _check_mangling=False,
        )
        if again.is_empty:
            result = replace(result, mangled_equivalent=True)
    return result


def _compare(
    o: dict[str, Any],
    n: dict[str, Any],
    table: SchemaTable,
    parameter_values: tuple[ParameterValue, ...],
    *,
    resolve: bool,
    security: bool,
) -> TemplateDiff:
    """The diff of two prepared templates (loops expanded, conditions evaluated)."""
    declared = _section(o, "Parameters")  # a parameter new in NEW: no old text refers to it
    changed = {p.name: p for p in parameter_values if p.old != p.new and p.name in declared}
    outputs = _entries(_section(o, "Outputs"), _section(n, "Outputs"))
    notes: list[str] = []
    unchanged: set[str] = set()
    resources, values = _resources(
        _section(o, "Resources"),
        _section(n, "Resources"),
        table,
        changed,
        (_section(n, "Outputs"), frozenset(e.name for e in outputs)),
        Resolver(o, n, parameter_values) if resolve else None,
        notes,
        unchanged,
    )
    return TemplateDiff(
        resources=resources,
        value_changes=values,
        parameters=_entries(_section(o, "Parameters"), _section(n, "Parameters")),
        outputs=outputs,
        conditions=_entries(_section(o, "Conditions"), _section(n, "Conditions")),
        mappings=_entries(_section(o, "Mappings"), _section(n, "Mappings")),
        metadata=_entries(_section(o, "Metadata"), _section(n, "Metadata")),
        sections=_other_sections(o, n),
        notes=tuple(notes),
        parameter_values=tuple(changed.values()),
        deploy_findings=name_findings(
            _section(o, "Resources"), _section(n, "Resources"), resources, table
        ),
        schema_region=table.region,
        schema_source=_schema_source(table),
        # identical resources give identical facts on both sides: leave them out
        security=security_view(
            {k: v for k, v in _section(o, "Resources").items() if k not in unchanged},
            {k: v for k, v in _section(n, "Resources").items() if k not in unchanged},
        )
        if security
        else None,
    )


def _schema_source(table: SchemaTable) -> str:
    source = table.source
    spec = f"; nested paths also from {source.spec}" if source.spec else ""
    return f"cfn-lint {source.cfn_lint} ({source.schema_date}){spec}"
