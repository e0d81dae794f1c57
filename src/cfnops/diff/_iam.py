"""IAM facts of one template: statements, managed-policy attachments, Identity Center.

Implied parts are filled in as ``cdk diff`` does: identity policies get the
identity as principal (``AWS:${Role}``), resource policies (bucket, queue and
topic policies, Lambda permissions) get the resource they are attached to, and
a role's trust policy gets ``${Role.Arn}`` as resource.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from cfnops.diff._normalise import intrinsic_name
from cfnops.diff._render_values import as_list, render, render_deep
from cfnops.diff._security_model import (
    ManagedPolicy,
    SsoAcaConfig,
    SsoAssignment,
    SsoPermissionSet,
    Statement,
)

_IDENTITY_TYPES = ("AWS::IAM::Role", "AWS::IAM::User", "AWS::IAM::Group")
_RESOURCE_POLICIES = {
    "AWS::S3::BucketPolicy": "Bucket",
    "AWS::SQS::QueuePolicy": "Queues",
    "AWS::SNS::TopicPolicy": "Topics",
}


@dataclass
class IamFacts:
    statements: list[Statement] = field(default_factory=list)
    managed: list[ManagedPolicy] = field(default_factory=list)
    permission_sets: list[SsoPermissionSet] = field(default_factory=list)
    assignments: list[SsoAssignment] = field(default_factory=list)
    aca_configs: list[SsoAcaConfig] = field(default_factory=list)


def _principals(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if value == "*":
        return ("AWS:*",)
    if isinstance(value, dict) and intrinsic_name(value) is None:
        return tuple(
            sorted(f"{kind}:{render(item)}" for kind, v in value.items() for item in as_list(v))
        )
    return (f"AWS:{render(value)}",)


def parse_statement(
    raw: Any,
    *,
    principals: tuple[str, ...] | None = None,
    resources: tuple[str, ...] | None = None,
) -> Statement:
    """One statement; ``principals``/``resources`` fill in (or replace) implied parts."""
    if not isinstance(raw, dict) or intrinsic_name(raw) is not None:
        return Statement(unparseable=True, raw=render(raw))
    negated = any(k in raw for k in ("NotAction", "NotPrincipal", "NotResource"))
    actions = tuple(sorted(render(a) for a in as_list(raw.get("Action", raw.get("NotAction")))))
    found = _principals(raw.get("Principal", raw.get("NotPrincipal")))
    targets = tuple(sorted(render(r) for r in as_list(raw.get("Resource", raw.get("NotResource")))))
    condition = raw.get("Condition")
    return Statement(
        effect=str(raw.get("Effect", "Allow")),
        actions=actions,
        principals=principals if principals is not None else found,
        resources=resources if resources is not None else targets,
        condition=None if condition is None else json.dumps(render_deep(condition), sort_keys=True),
        negated=negated,
    )


def _document_statements(document: Any) -> list[Any]:
    if isinstance(document, str):  # Identity Center inline policies are JSON strings
        try:
            document = json.loads(document)
        except ValueError:
            return [document]
    if not isinstance(document, dict):
        return [] if document is None else [document]
    if intrinsic_name(document) is not None:
        return [document]
    return as_list(document.get("Statement"))


def _policy(document: Any, **implied: tuple[str, ...]) -> list[Statement]:
    return [parse_statement(s, **implied) for s in _document_statements(document)]


def _managed(identity: str, arns: Any) -> list[ManagedPolicy]:
    if isinstance(arns, list):
        return [ManagedPolicy(identity, render(a)) for a in arns]
    return [] if arns is None else [ManagedPolicy(identity, render(arns))]


def _identity(rid: str, rtype: str, props: dict[str, Any], facts: IamFacts) -> None:
    me = "${" + rid + "}"
    for policy in as_list(props.get("Policies")):
        if isinstance(policy, dict) and intrinsic_name(policy) is None:
            facts.statements += _policy(policy.get("PolicyDocument"), principals=(f"AWS:{me}",))
        else:  # an Fn::If yielding a policy: its document is unknown offline
            facts.statements.append(
                Statement(principals=(f"AWS:{me}",), resources=(render(policy),))
            )
    if rtype == "AWS::IAM::Role" and "AssumeRolePolicyDocument" in props:
        facts.statements += _policy(
            props["AssumeRolePolicyDocument"], resources=("${" + rid + ".Arn}",)
        )
    facts.managed += _managed(me, props.get("ManagedPolicyArns"))


def _identity_policy(props: dict[str, Any], facts: IamFacts) -> None:
    for key in ("Roles", "Users", "Groups"):
        for identity in as_list(props.get(key)):
            facts.statements += _policy(
                props.get("PolicyDocument"), principals=(f"AWS:{render(identity)}",)
            )


def _lambda_permission(props: dict[str, Any], facts: IamFacts) -> None:
    principal = props.get("Principal")
    text = render(principal)
    kind = "Service" if isinstance(principal, str) and text.endswith(".amazonaws.com") else "AWS"
    condition: dict[str, dict[str, str]] = {}
    if "SourceAccount" in props:
        condition.setdefault("StringEquals", {})["AWS:SourceAccount"] = render(
            props["SourceAccount"]
        )
    if "PrincipalOrgID" in props:
        condition.setdefault("StringEquals", {})["aws:PrincipalOrgID"] = render(
            props["PrincipalOrgID"]
        )
    if "SourceArn" in props:
        condition.setdefault("ArnLike", {})["AWS:SourceArn"] = render(props["SourceArn"])
    facts.statements.append(
        Statement(
            effect="Allow",
            actions=(render(props.get("Action")),),
            principals=(f"{kind}:{text}",),
            resources=(render(props.get("FunctionName")),),
            condition=json.dumps(condition, sort_keys=True) if condition else None,
        )
    )


def _sso(rid: str, rtype: str, props: dict[str, Any], facts: IamFacts) -> None:
    me = "${" + rid + "}"
    if rtype == "AWS::SSO::PermissionSet":
        facts.permission_sets.append(
            SsoPermissionSet(
                me, render(props.get("Name", "")), render(props.get("InstanceArn", ""))
            )
        )
        facts.managed += _managed(me, props.get("ManagedPolicies"))
        if props.get("InlinePolicy"):
            facts.statements += _policy(props["InlinePolicy"], principals=(f"AWS:{me}",))
    elif rtype == "AWS::SSO::Assignment":
        facts.assignments.append(
            SsoAssignment(
                me,
                render(props.get("PermissionSetArn", "")),
                render(props.get("PrincipalType", "")),
                render(props.get("TargetId", "")),
            )
        )
    else:
        nested = props.get("InstanceAccessControlAttributeConfiguration")
        source = nested if isinstance(nested, dict) else props
        keys = tuple(
            render(a.get("Key", "")) if isinstance(a, dict) else render(a)
            for a in as_list(source.get("AccessControlAttributes"))
        )
        facts.aca_configs.append(SsoAcaConfig(me, keys))


def iam_facts(resources: dict[str, Any]) -> IamFacts:
    """Every IAM-relevant fact of a template's ``Resources``."""
    facts = IamFacts()
    for rid, res in resources.items():
        if not isinstance(res, dict):
            continue
        rtype = res.get("Type")
        props = res.get("Properties")
        if not isinstance(rtype, str) or not isinstance(props, dict):
            continue
        if rtype in _IDENTITY_TYPES:
            _identity(str(rid), rtype, props, facts)
        elif rtype in ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"):
            _identity_policy(props, facts)
        elif rtype in _RESOURCE_POLICIES:
            targets = tuple(
                sorted(render(t) for t in as_list(props.get(_RESOURCE_POLICIES[rtype])))
            )
            facts.statements += _policy(props.get("PolicyDocument"), resources=targets)
        elif rtype == "AWS::Lambda::Permission":
            _lambda_permission(props, facts)
        elif rtype in (
            "AWS::SSO::PermissionSet",
            "AWS::SSO::Assignment",
            "AWS::SSO::InstanceAccessControlAttributeConfiguration",
        ):
            _sso(str(rid), rtype, props, facts)
    return facts
