"""The stable JSON shape of a diff (``cfnops diff --output json``)::

    {"differenceCount": N,
     "resources": {"<LogicalId>": {"type": "AWS::…", "impact": "WILL_REPLACE", "reason": "…",
                   "properties": {"<Name>": {"impact": …, "old": …, "new": …, "reason": "…",
                                             "change": "MODIFIED", "path": "/properties/…",
                                             "propagatedFrom": "<LogicalId>"}},
                   "other": {"DependsOn": {"change": …, "old": …, "new": …}},
                   "oldType": …, "notes": […], "annotations": […]}},
     "parameters": {"<Name>": {"change": "ADDED|REMOVED|MODIFIED", "old": …, "new": …}},
     "outputs": {…}, "conditions": {…}, "mappings": {…}, "metadata": {…}, "sections": {…},
     "parameterValues": {"<Name>": {"old": …, "new": …}},
     "mangledEquivalent": false,
     "mangledDifferenceCount": N, "notCounted": "…",   # only when mangledEquivalent: the
                                  # differences are mangled characters; differenceCount is 0
     "valueChanges": [{"kind": "resource|output", "name", "impact": "WILL_UPDATE",
                       "properties": […], "refersTo": "<LogicalId>", "reason": "…"}],
     "drift": [{"resource", "type", "status", "path", "expected", "actual", "differenceType",
                "alsoChangedByTemplate": bool, "templateImpact"}],   # with --drift only
     "summary": {"WILL_REPLACE": 1, …},
     "schema": {"region": "us-east-1", "source": "cfn-lint 1.58.0 (…)"},
     "iam": {"broadened": bool, "statementsAdded": [{"effect", "actions", "principals",
             "resources", "condition"?}], "statementsRemoved": […], "managedPoliciesAdded":
             [{"identity", "policy"}], …Removed, "ssoPermissionSetsAdded": [{"resource",
             "name", "instanceArn"}], "ssoAssignmentsAdded": [{"resource", "permissionSet",
             "principalType", "target"}], "ssoInstanceAcaConfigsAdded": [{"resource",
             "attributeKeys"}], …Removed},
     "securityGroups": {"broadened": bool, "ingressAdded": [{"group", "protocol", "fromPort",
                        "toPort", "peer": {"cidr"|"securityGroup"|"prefixList": …}}],
                        "ingressRemoved", "egressAdded", "egressRemoved"}}

``old``/``new`` are ``null`` for an absent value; optional keys are left out
when empty. Impact names are those of :class:`cfnops.diff.Impact`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from cfnops.diff._model import MANGLED_NOTE, EntryDiff, PropertyDiff, ResourceDiff, TemplateDiff
from cfnops.diff._security import security_json


def _property(prop: PropertyDiff) -> dict[str, Any]:
    out: dict[str, Any] = {
        "impact": prop.impact.value,
        "old": prop.old,
        "new": prop.new,
        "reason": prop.reason,
        "change": prop.change.value if prop.change is not None else None,
    }
    if prop.path:
        out["path"] = prop.path
    if prop.propagated_from:
        out["propagatedFrom"] = prop.propagated_from
    if prop.decided_by:
        out["decidedBy"] = prop.decided_by
    return out


def _resource(res: ResourceDiff) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": res.type,
        "impact": res.impact.value,
        "reason": res.reason,
        "properties": {p.name: _property(p) for p in res.properties},
    }
    if res.other:
        out["other"] = {
            a.name: {"change": a.change.value, "old": a.old, "new": a.new} for a in res.other
        }
    if res.old_type:
        out["oldType"] = res.old_type
    if res.notes:
        out["notes"] = list(res.notes)
    if res.annotations:
        out["annotations"] = list(res.annotations)
    return out


def _entries(entries: tuple[EntryDiff, ...]) -> dict[str, Any]:
    return {e.name: {"change": e.change.value, "old": e.old, "new": e.new} for e in entries}


def to_json(diff: TemplateDiff) -> dict[str, Any]:
    """The documented JSON document of ``diff`` (plain dicts, ready for ``json.dumps``)."""
    out: dict[str, Any] = {
        "differenceCount": diff.counted_differences,
        "resources": {r.logical_id: _resource(r) for r in diff.resources},
        "parameters": _entries(diff.parameters),
        "outputs": _entries(diff.outputs),
        "conditions": _entries(diff.conditions),
        "mappings": _entries(diff.mappings),
        "metadata": _entries(diff.metadata),
        "sections": _entries(diff.sections),
        "mangledEquivalent": diff.mangled_equivalent,
        "summary": dict(sorted(Counter(r.impact.value for r in diff.resources).items())),
        "schema": {"region": diff.schema_region, "source": diff.schema_source},
    }
    if diff.mangled_equivalent:
        out["mangledDifferenceCount"] = diff.difference_count
        out["notCounted"] = MANGLED_NOTE
    if diff.parameter_values:
        out["parameterValues"] = {
            p.name: {"old": p.old, "new": p.new} for p in diff.parameter_values
        }
    if diff.deploy_findings:
        out["deployFindings"] = [
            {
                "rule": f.rule,
                "resource": f.logical_id,
                "level": f.level,
                "message": f.message,
                "path": "/" + "/".join(f.path) if f.path else None,
                "line": f.line,
                "code": f.code,
            }
            for f in diff.deploy_findings
        ]
    if diff.value_changes:
        out["valueChanges"] = [
            {
                "kind": v.kind,
                "name": v.name,
                "impact": v.impact.value,
                "properties": list(v.properties),
                "refersTo": v.refers_to,
                "reason": v.reason,
            }
            for v in diff.value_changes
        ]
    if diff.drift is not None:
        out["drift"] = [
            {
                "resource": e.drift.logical_id,
                "type": e.drift.resource_type,
                "status": e.drift.status,
                "path": e.drift.path,
                "expected": e.drift.expected,
                "actual": e.drift.actual,
                "differenceType": e.drift.difference_type,
                "alsoChangedByTemplate": e.also_changed,
                "templateImpact": e.impact,
            }
            for e in diff.drift
        ]
    if diff.notes:
        out["notes"] = list(diff.notes)
    if diff.security is not None:
        out.update(security_json(diff.security))
    return out
