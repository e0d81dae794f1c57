"""Values of the security view: IAM statements, managed policies, IAM Identity
Center objects and security-group rules, in the vocabulary of ``cdk diff``'s
IAM and security-group tables."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, order=True)
class Statement:
    """One policy statement with implied principals/resources filled in.

    References are rendered ``${LogicalId}`` / ``${LogicalId.Attr}``; principals
    are ``Service:…`` / ``AWS:…``. ``unparseable`` stands for a statement that
    is an intrinsic (``Fn::If``) rather than a mapping.
    """

    effect: str = "Allow"
    actions: tuple[str, ...] = ()
    principals: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    condition: str | None = None  # canonical JSON, keeps the value hashable
    negated: bool = False  # NotAction / NotPrincipal / NotResource
    unparseable: bool = False
    raw: str | None = None

    @property
    def positive(self) -> bool:
        """Allow without a ``Not*`` field: adding it may widen permissions."""
        return self.effect == "Allow" and not self.negated

    def to_json(self) -> dict[str, Any]:
        if self.unparseable:
            return {"unparseable": True, "raw": self.raw}
        out: dict[str, Any] = {
            "effect": self.effect,
            "actions": list(self.actions),
            "principals": list(self.principals),
            "resources": list(self.resources),
        }
        if self.condition is not None:
            out["condition"] = json.loads(self.condition)
        if self.negated:
            out["negated"] = True
        return out


@dataclass(frozen=True, order=True)
class ManagedPolicy:
    identity: str
    policy: str

    def to_json(self) -> dict[str, Any]:
        return {"identity": self.identity, "policy": self.policy}


@dataclass(frozen=True, order=True)
class SsoPermissionSet:
    resource: str
    name: str
    instance_arn: str

    def to_json(self) -> dict[str, Any]:
        return {"resource": self.resource, "name": self.name, "instanceArn": self.instance_arn}


@dataclass(frozen=True, order=True)
class SsoAssignment:
    resource: str
    permission_set: str
    principal_type: str
    target: str

    def to_json(self) -> dict[str, Any]:
        return {
            "resource": self.resource,
            "permissionSet": self.permission_set,
            "principalType": self.principal_type,
            "target": self.target,
        }


@dataclass(frozen=True, order=True)
class SsoAcaConfig:
    resource: str
    attribute_keys: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"resource": self.resource, "attributeKeys": list(self.attribute_keys)}


@dataclass(frozen=True, order=True)
class SgRule:
    """A security-group rule; ``peer_kind`` is ``cidr``, ``securityGroup`` or ``prefixList``."""

    direction: str  # "ingress" | "egress"
    group: str
    protocol: str
    from_port: int | None
    to_port: int | None
    peer_kind: str
    peer: str

    def to_json(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "protocol": self.protocol,
            "fromPort": self.from_port,
            "toPort": self.to_port,
            "peer": {self.peer_kind: self.peer},
        }


@dataclass(frozen=True)
class SecurityView:
    """What a deploy adds to and removes from IAM and security groups."""

    statements_added: tuple[Statement, ...] = ()
    statements_removed: tuple[Statement, ...] = ()
    managed_policies_added: tuple[ManagedPolicy, ...] = ()
    managed_policies_removed: tuple[ManagedPolicy, ...] = ()
    sso_permission_sets_added: tuple[SsoPermissionSet, ...] = ()
    sso_permission_sets_removed: tuple[SsoPermissionSet, ...] = ()
    sso_assignments_added: tuple[SsoAssignment, ...] = ()
    sso_assignments_removed: tuple[SsoAssignment, ...] = ()
    sso_aca_configs_added: tuple[SsoAcaConfig, ...] = ()
    sso_aca_configs_removed: tuple[SsoAcaConfig, ...] = ()
    ingress_added: tuple[SgRule, ...] = ()
    ingress_removed: tuple[SgRule, ...] = ()
    egress_added: tuple[SgRule, ...] = ()
    egress_removed: tuple[SgRule, ...] = ()

    @property
    def iam_broadened(self) -> bool:
        """Permissions may widen: a positive statement added, a negative one removed,
        or a managed policy, permission set, assignment or ACA configuration added."""
        return (
            any(s.positive or s.unparseable for s in self.statements_added)
            or any(not s.positive and not s.unparseable for s in self.statements_removed)
            or bool(self.managed_policies_added)
            or bool(self.sso_permission_sets_added)
            or bool(self.sso_assignments_added)
            or bool(self.sso_aca_configs_added)
        )

    @property
    def sg_broadened(self) -> bool:
        """A security-group rule was added."""
        return bool(self.ingress_added or self.egress_added)

    @property
    def has_iam_changes(self) -> bool:
        return any(
            (
                self.statements_added,
                self.statements_removed,
                self.managed_policies_added,
                self.managed_policies_removed,
                self.sso_permission_sets_added,
                self.sso_permission_sets_removed,
                self.sso_assignments_added,
                self.sso_assignments_removed,
                self.sso_aca_configs_added,
                self.sso_aca_configs_removed,
            )
        )

    @property
    def has_sg_changes(self) -> bool:
        return any(
            (self.ingress_added, self.ingress_removed, self.egress_added, self.egress_removed)
        )
