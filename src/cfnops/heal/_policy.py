"""The safety gate: a pure decision over a whole change set.

Hold for review (never execute automatically) when any change

- is a replacement (``Replacement`` ``True`` or ``Conditional``),
- removes a resource (``Action`` ``Remove``),
- touches a custom resource (``AWS::CloudFormation::CustomResource``, ``Custom::*``),
- touches a protected type (``[heal] protected_types``: stateful types, and types
  attached from other stacks that REVERT_DRIFT can silently undo),
- would also revert drift that an ignore rule says to keep,
- or is not explained by the drift this run detected (:mod:`cfnops.heal._verify`).

A change set whose every change is covered by ignore rules is not executed at all.
Field meanings: API reference ``ResourceChange`` and ``ResourceChangeDetail``
(https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_ResourceChange.html).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from cfnops.config import IgnoreRule
from cfnops.heal._changeview import ChangeView
from cfnops.heal._ignore import is_ignored, normalise_path
from cfnops.heal._verify import DetectedResource, Match, unexplained_reasons, verify

Decision = Literal["EXECUTE", "HOLD", "SKIP"]


@dataclass(frozen=True)
class GatePolicy:
    protected_types: tuple[str, ...]
    ignore: tuple[IgnoreRule, ...] = ()
    stack: str = ""
    # Accepted drift of this run's detection: (logical id, drift path; "" = whole resource).
    accepted: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class GateDecision:
    decision: Decision
    reasons: tuple[str, ...] = ()
    matches: tuple[Match, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "decision": self.decision,
            "reasons": list(self.reasons),
            "matches": [m.to_json() for m in self.matches],
        }


def is_custom(resource_type: str) -> bool:
    return resource_type == "AWS::CloudFormation::CustomResource" or resource_type.startswith(
        "Custom::"
    )


def _ignored_paths(change: ChangeView, policy: GatePolicy) -> tuple[str, ...]:
    return tuple(
        p
        for p in change.paths
        if is_ignored(policy.ignore, policy.stack, change.logical_id, change.resource_type, p)
    )


def _accepted_paths(change: ChangeView, policy: GatePolicy) -> tuple[str, ...]:
    mine = [path for lid, path in policy.accepted if lid == change.logical_id]
    if not mine:
        return ()
    if "" in mine:
        return change.paths or ("",)
    return tuple(
        p
        for p in change.paths
        if any(
            normalise_path(p) == a or normalise_path(p).startswith(a.rstrip("/") + "/")
            for a in mine
        )
    )


def _risks(c: ChangeView, where: str, protected: set[str]) -> list[str]:
    """Why a change needs a person whatever drift it reverts: replacement, removal,
    a custom resource, a protected type."""
    reasons: list[str] = []
    if c.replacement in ("True", "Conditional"):
        kind = "requires replacement" if c.replacement == "True" else "may be replaced"
        reasons.append(f"{where} {kind} (Replacement={c.replacement})")
    if c.action == "Remove":
        reasons.append(f"{where} would be removed")
    if is_custom(c.resource_type):
        reasons.append(f"{where} is a custom resource")
    if c.resource_type in protected:
        reasons.append(f"{where} is a protected type")
    return reasons


def decide(
    changes: tuple[ChangeView, ...],
    policy: GatePolicy,
    detected: Mapping[str, DetectedResource] | None = None,
    schema: Mapping[str, str] | None = None,
) -> GateDecision:
    """EXECUTE, HOLD (with every reason) or SKIP (only ignored drift would change).

    With ``detected`` (this run's drift detection), every change must also be
    explained by it (:func:`cfnops.heal._verify.verify`); the matching is in
    :attr:`GateDecision.matches`.
    """
    reasons: list[str] = []
    protected = set(policy.protected_types)
    effective = 0
    for c in changes:
        where = f"{c.logical_id} ({c.resource_type})"
        reasons.extend(_risks(c, where, protected))
        ignored = _ignored_paths(c, policy)
        accepted = tuple(p for p in _accepted_paths(c, policy) if p not in ignored)
        kept = len(ignored) + len(accepted)
        if c.paths and kept == len(c.paths) and c.action == "Modify":
            continue
        if c.action == "Add" and accepted == ("",):
            continue  # re-creating a resource whose deletion is accepted
        effective += 1
        if ignored:
            shown = ", ".join(normalise_path(p) for p in ignored)
            reasons.append(f"{where} would also revert ignored drift at {shown}")
        if accepted:
            shown = ", ".join(normalise_path(p) for p in accepted if p)
            reasons.append(f"{where} would also revert accepted drift at {shown}")
    if not changes or (effective == 0 and not reasons):
        return GateDecision("SKIP", ("every change only reverts ignored or accepted drift",))
    matches: tuple[Match, ...] = ()
    if detected is not None:
        matches = verify(changes, detected, schema)
        reasons.extend(unexplained_reasons(changes, matches))
    if reasons:
        return GateDecision("HOLD", tuple(reasons), matches)
    return GateDecision("EXECUTE", (), matches)
