"""Explicit physical names that stop a deploy, known from the templates alone.

* Two resources of one type with the same explicit name collide: the second
  create fails (names are unique per type in an account and region; S3 bucket
  names across all accounts).
* A custom-named resource that is replaced keeping its name fails: CloudFormation
  creates the new resource before deleting the old one, so the name is taken
  (AWS docs, "Name type", aws-properties-name.html: "If you specify a name, you
  can't perform updates that require replacement of this resource ... If you must
  replace the resource, specify a new name").

The name property of a type is the create-only top-level ``<Type>Name`` (or a
``Name`` that is the primary identifier) of the registry schema, plus the few
types below whose name property has another spelling.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from cfnops.diff._model import DeployFinding, Impact, ResourceDiff
from cfnops.diff._normalise import canon, plain
from cfnops.diff._refs import references
from cfnops.diff._resources import properties_of, type_of
from cfnops.schemas import SchemaTable, TypeBehaviour

_OTHER_SPELLINGS = {
    "AWS::S3::Bucket": "BucketName",
    "AWS::SQS::Queue": "QueueName",
    "AWS::DynamoDB::Table": "TableName",
    "AWS::Lambda::Function": "FunctionName",
    "AWS::IAM::Role": "RoleName",
    "AWS::ElasticLoadBalancingV2::TargetGroup": "Name",
    "AWS::ElasticLoadBalancingV2::LoadBalancer": "Name",
    "AWS::RDS::DBInstance": "DBInstanceIdentifier",
    "AWS::RDS::DBCluster": "DBClusterIdentifier",
    "AWS::ElastiCache::ReplicationGroup": "ReplicationGroupId",
}


def name_property(type_name: str, behaviour: TypeBehaviour | None) -> str | None:
    """The property holding ``type_name``'s explicit physical name, if it has one."""
    if type_name in _OTHER_SPELLINGS:
        return _OTHER_SPELLINGS[type_name]
    if behaviour is None:
        return None
    top = {p[0] for p in behaviour.create_only if len(p) == 1}
    last = type_name.rsplit("::", 1)[-1]
    if f"{last}Name" in top:
        return f"{last}Name"
    ids = [p[0] for p in behaviour.primary_identifier if len(p) == 1]
    return "Name" if "Name" in top and ids == ["Name"] else None


def _names(resources: Mapping[str, Any], table: SchemaTable) -> dict[str, tuple[str, str, Any]]:
    """logical id → (type, name property, value) of every explicitly named resource."""
    out: dict[str, tuple[str, str, Any]] = {}
    props_of: dict[str, str | None] = {}  # one lookup per type: large templates repeat types
    for rid, res in resources.items():
        kind = type_of(res)
        if kind not in props_of:
            props_of[kind] = name_property(kind, table.get(kind))
        prop = props_of[kind]
        if prop is None:
            continue
        value = properties_of(res).get(prop)
        if value is not None and not (type(value) is dict and value == {"Ref": "AWS::NoValue"}):
            out[str(rid)] = (kind, prop, value)
    return out


def _key(value: Any) -> Any:
    """One key per value: a plain text as itself, other spellings canonical."""
    return value if type(value) is str else canon(value, None)


def _colliding(ids: list[str], new: Mapping[str, Any], touched: set[str]) -> list[str]:
    """The ids after the first that collide with it: not when both carry different
    ``Condition`` attributes (the deploy creates one of them), nor when neither changes
    (the deployed stack has them both already)."""
    if len(ids) < 2 or not touched.intersection(ids):
        return []

    def condition(rid: str) -> Any:
        res = new.get(rid)
        return res.get("Condition") if isinstance(res, Mapping) else None

    first = condition(ids[0])
    return [r for r in ids[1:] if first is None or condition(r) in (None, first)]


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(plain(value))


def name_findings(
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    resources: tuple[ResourceDiff, ...],
    table: SchemaTable,
) -> tuple[DeployFinding, ...]:
    """Collisions of explicit names within ``new``, and custom-named replacements."""
    named = _names(new, table)
    touched = {r.logical_id for r in resources}
    findings: list[DeployFinding] = []
    seen: dict[tuple[str, Any], list[str]] = {}
    for rid, (kind, _, value) in named.items():  # template order: the later one collides
        seen.setdefault((kind, _key(value)), []).append(rid)
    for (kind, _), ids in seen.items():
        for rid in _colliding(ids, new, touched):
            prop, value = named[rid][1], named[rid][2]
            findings.append(
                DeployFinding(
                    "physical-name-collision",
                    rid,
                    f"{rid}: {prop} {_shown(value)!r} is also {ids[0]}'s ({kind}): the second "
                    "create fails; give each resource its own name (or none)",
                    ("Resources", rid, "Properties", prop),
                )
            )
    replaced = {r.logical_id for r in resources if r.impact.replaces}
    old_named = _names({k: old[k] for k in replaced if k in old}, table)
    for res in resources:
        rid = res.logical_id
        if not res.impact.replaces or rid not in named or rid not in old_named:
            continue
        kind, prop, value = named[rid]
        if canon(old_named[rid][2], None) != canon(value, None):
            continue  # a new name: the replacement can be created beside the old one
        if any(target in replaced for target, _ in references(value)):
            continue  # the name is made of a replaced resource's id: it changes too
        may = res.impact is Impact.MAY_REPLACE
        findings.append(
            DeployFinding(
                "custom-name-replaced",
                rid,
                f"{rid} ({kind}) {'may be' if may else 'is'} replaced and keeps its {prop} "
                f"{_shown(value)!r}: CloudFormation cannot replace a custom-named resource "
                f"(the new one is created first){' if it is replaced' if may else ''}; "
                f"change {prop} in the same deploy, or remove it",
                ("Resources", rid, "Properties", prop),
                level="warning" if may else "error",
            )
        )
    return tuple(findings)
