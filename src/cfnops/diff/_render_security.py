"""One-line descriptions of security-view entries, shared by the text and Markdown reports."""

from __future__ import annotations

from cfnops.diff._security_model import SecurityView, SgRule, Statement


def _statement(st: Statement) -> str:
    if st.unparseable:
        return f"statement given by an intrinsic: {st.raw}"
    text = (
        f"{st.effect} {', '.join(st.actions) or '(no action)'}"
        f" | principal {', '.join(st.principals) or '-'}"
        f" | resource {', '.join(st.resources) or '-'}"
    )
    if st.condition:
        text += f" | condition {st.condition}"
    return text + (" | uses Not*" if st.negated else "")


def _rule(rule: SgRule) -> str:
    ports = (
        "all ports"
        if rule.from_port in (None, -1) and rule.to_port in (None, -1)
        else f"{rule.from_port}-{rule.to_port}"
    )
    way = "from" if rule.direction == "ingress" else "to"
    return (
        f"{rule.direction} {rule.group} {rule.protocol} {ports} {way} {rule.peer_kind} {rule.peer}"
    )


def security_lines(view: SecurityView) -> list[tuple[str, str]]:
    """``(marker, text)`` pairs: ``+`` added, ``-`` removed, ``!`` a warning."""
    lines: list[tuple[str, str]] = []
    if view.iam_broadened:
        lines.append(("!", "IAM: this deployment may widen permissions"))
    if view.sg_broadened:
        lines.append(("!", "security groups: this deployment adds network access"))
    for marker, items in (("+", view.statements_added), ("-", view.statements_removed)):
        lines += [(marker, f"IAM statement: {_statement(s)}") for s in items]
    for marker, policies in (
        ("+", view.managed_policies_added),
        ("-", view.managed_policies_removed),
    ):
        lines += [(marker, f"managed policy {p.policy} on {p.identity}") for p in policies]
    for marker, sets in (
        ("+", view.sso_permission_sets_added),
        ("-", view.sso_permission_sets_removed),
    ):
        lines += [(marker, f"SSO permission set {p.name} ({p.resource})") for p in sets]
    for marker, assignments in (
        ("+", view.sso_assignments_added),
        ("-", view.sso_assignments_removed),
    ):
        lines += [
            (marker, f"SSO assignment {a.permission_set} to {a.principal_type} in {a.target}")
            for a in assignments
        ]
    for marker, configs in (("+", view.sso_aca_configs_added), ("-", view.sso_aca_configs_removed)):
        lines += [
            (marker, f"SSO access-control attributes {', '.join(c.attribute_keys)} ({c.resource})")
            for c in configs
        ]
    for marker, rules in (
        ("+", view.ingress_added + view.egress_added),
        ("-", view.ingress_removed + view.egress_removed),
    ):
        lines += [(marker, f"security-group rule: {_rule(r)}") for r in rules]
    return lines
