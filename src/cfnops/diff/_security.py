"""The security view: what a deploy adds to or removes from IAM and security groups.

Facts are collected from both whole templates and compared as multisets, so a
statement that only moves between resources is no change (as in ``cdk diff``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any, TypeVar

from cfnops.diff._iam import iam_facts
from cfnops.diff._render_values import as_list, render
from cfnops.diff._security_model import SecurityView, SgRule

T = TypeVar("T")

_PEERS = (
    ("CidrIp", "cidr"),
    ("CidrIpv6", "cidr"),
    ("SourceSecurityGroupId", "securityGroup"),
    ("DestinationSecurityGroupId", "securityGroup"),
    ("SourceSecurityGroupName", "securityGroup"),
    ("SourcePrefixListId", "prefixList"),
    ("DestinationPrefixListId", "prefixList"),
)


def _port(value: Any) -> int | None:
    try:
        return int(str(value))
    except ValueError:
        return None


def _rule(direction: str, group: str, raw: Any) -> SgRule | None:
    if not isinstance(raw, dict):
        return None
    kind, peer = "cidr", ""
    for key, name in _PEERS:
        if key in raw:
            kind, peer = name, render(raw[key])
            break
    return SgRule(
        direction=direction,
        group=group,
        protocol=render(raw.get("IpProtocol", "-1")),
        from_port=_port(raw.get("FromPort", -1)),
        to_port=_port(raw.get("ToPort", -1)),
        peer_kind=kind,
        peer=peer,
    )


def sg_rules(resources: dict[str, Any]) -> list[SgRule]:
    """Inline and standalone security-group rules of a template."""
    rules: list[SgRule] = []
    for rid, res in resources.items():
        if not isinstance(res, dict) or not isinstance(res.get("Properties"), dict):
            continue
        props, rtype = res["Properties"], res.get("Type")
        found: list[SgRule | None] = []
        if rtype == "AWS::EC2::SecurityGroup":
            group = "${" + str(rid) + ".GroupId}"
            found += [
                _rule("ingress", group, r) for r in as_list(props.get("SecurityGroupIngress"))
            ]
            found += [_rule("egress", group, r) for r in as_list(props.get("SecurityGroupEgress"))]
        elif rtype in ("AWS::EC2::SecurityGroupIngress", "AWS::EC2::SecurityGroupEgress"):
            direction = "ingress" if rtype.endswith("Ingress") else "egress"
            group = render(props.get("GroupId", props.get("GroupName", "")))
            found.append(_rule(direction, group, props))
        rules += [r for r in found if r is not None]
    return rules


def _delta(old: Iterable[T], new: Iterable[T]) -> tuple[tuple[T, ...], tuple[T, ...]]:
    before, after = Counter(old), Counter(new)
    added = after - before
    removed = before - after
    return tuple(sorted(added.elements(), key=repr)), tuple(sorted(removed.elements(), key=repr))


def security_view(old_resources: dict[str, Any], new_resources: dict[str, Any]) -> SecurityView:
    """The IAM and security-group changes between two templates' ``Resources``."""
    old, new = iam_facts(old_resources), iam_facts(new_resources)
    st_add, st_rm = _delta(old.statements, new.statements)
    mp_add, mp_rm = _delta(old.managed, new.managed)
    ps_add, ps_rm = _delta(old.permission_sets, new.permission_sets)
    as_add, as_rm = _delta(old.assignments, new.assignments)
    aca_add, aca_rm = _delta(old.aca_configs, new.aca_configs)
    old_rules, new_rules = sg_rules(old_resources), sg_rules(new_resources)
    in_add, in_rm = _delta(
        (r for r in old_rules if r.direction == "ingress"),
        (r for r in new_rules if r.direction == "ingress"),
    )
    out_add, out_rm = _delta(
        (r for r in old_rules if r.direction == "egress"),
        (r for r in new_rules if r.direction == "egress"),
    )
    return SecurityView(
        statements_added=st_add,
        statements_removed=st_rm,
        managed_policies_added=mp_add,
        managed_policies_removed=mp_rm,
        sso_permission_sets_added=ps_add,
        sso_permission_sets_removed=ps_rm,
        sso_assignments_added=as_add,
        sso_assignments_removed=as_rm,
        sso_aca_configs_added=aca_add,
        sso_aca_configs_removed=aca_rm,
        ingress_added=in_add,
        ingress_removed=in_rm,
        egress_added=out_add,
        egress_removed=out_rm,
    )


def security_json(view: SecurityView) -> dict[str, Any]:
    """``{"iam": {...}, "securityGroups": {...}}`` for the JSON report."""
    iam: dict[str, Any] = {"broadened": view.iam_broadened}
    for key, items in (
        ("statementsAdded", view.statements_added),
        ("statementsRemoved", view.statements_removed),
        ("managedPoliciesAdded", view.managed_policies_added),
        ("managedPoliciesRemoved", view.managed_policies_removed),
        ("ssoPermissionSetsAdded", view.sso_permission_sets_added),
        ("ssoPermissionSetsRemoved", view.sso_permission_sets_removed),
        ("ssoAssignmentsAdded", view.sso_assignments_added),
        ("ssoAssignmentsRemoved", view.sso_assignments_removed),
        ("ssoInstanceAcaConfigsAdded", view.sso_aca_configs_added),
        ("ssoInstanceAcaConfigsRemoved", view.sso_aca_configs_removed),
    ):
        iam[key] = [item.to_json() for item in items]
    groups: dict[str, Any] = {"broadened": view.sg_broadened}
    for key, rules in (
        ("ingressAdded", view.ingress_added),
        ("ingressRemoved", view.ingress_removed),
        ("egressAdded", view.egress_added),
        ("egressRemoved", view.egress_removed),
    ):
        groups[key] = [r.to_json() for r in rules]
    return {"iam": iam, "securityGroups": groups}
