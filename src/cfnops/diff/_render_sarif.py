"""SARIF 2.1.0 for ``cfnops diff -o sarif``: what GitHub code scanning shows on a pull request.

Replacements, deletions and broadened IAM / security groups are results at the
template line of the resource (OASIS "Static Analysis Results Interchange Format
(SARIF) Version 2.1.0"; GitHub's subset: "SARIF support for code scanning",
https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning).
In-place updates and creations are not findings. Each result carries a
``partialFingerprints`` entry made of the file, stack, resource and rule, so a
result keeps its identity across pushes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfnops._version import __version__
from cfnops.diff._model import Impact, ResourceDiff, TemplateDiff

__all__ = ["RULES", "SarifTarget", "template_lines", "to_sarif"]

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    level: str  # error | warning | note
    short: str
    help: str


RULES: tuple[Rule, ...] = (
    Rule(
        "CFNOPS-D001",
        "ResourceReplaced",
        "error",
        "A resource is replaced",
        "CloudFormation creates a new physical resource and then deletes the old one: "
        "its data, its identity (ARN, name, IP) and everything that referred to it by value "
        "are lost. Keep the create-only property as it was, or plan the migration "
        "(a new logical id, a retained copy, a blue/green cut-over).",
    ),
    Rule(
        "CFNOPS-D002",
        "ResourceMayBeReplaced",
        "warning",
        "A resource may be replaced",
        "A property whose update requires replacement only in some cases changed "
        "(conditionally create-only). Check the AWS resource's documentation or run "
        "`cfnops diff --stack NAME --change-set` for CloudFormation's exact answer.",
    ),
    Rule(
        "CFNOPS-D003",
        "ResourceDestroyed",
        "error",
        "A resource is deleted",
        "The resource left the template and has no DeletionPolicy Retain/Snapshot: "
        "CloudFormation deletes it. Add `DeletionPolicy: Retain` first if it holds data.",
    ),
    Rule(
        "CFNOPS-D004",
        "ResourceOrphaned",
        "note",
        "A resource is removed from the stack and kept",
        "The resource left the template and its DeletionPolicy keeps it: it stays in the "
        "account, no longer managed by the stack.",
    ),
    Rule(
        "CFNOPS-D005",
        "IamBroadened",
        "warning",
        "IAM permissions may widen",
        "A policy statement that allows more, a managed policy or an IAM Identity Center "
        "assignment is added. Review who gains which actions on which resources.",
    ),
    Rule(
        "CFNOPS-D006",
        "SecurityGroupBroadened",
        "warning",
        "A security group admits more traffic",
        "An ingress or egress rule is added. Check the peer (a 0.0.0.0/0 CIDR opens the "
        "ports to the internet) and the port range.",
    ),
)
RULES += (
    Rule(
        "CFNOPS-D007",
        "DeployFailsValidation",
        "error",
        "The deploy would fail CloudFormation's checks",
        "A changed resource's property does not match its registry schema (`--validate`), "
        "or an explicit physical name collides (two resources of a type with one name, a "
        "custom-named resource replaced keeping its name, a name already taken in the "
        "account with `--stack`). CloudFormation validates change sets before executing "
        "them: fix the template before deploying.",
    ),
)
_BY_IMPACT = {
    Impact.WILL_REPLACE: RULES[0],
    Impact.MAY_REPLACE: RULES[1],
    Impact.WILL_DESTROY: RULES[2],
    Impact.WILL_ORPHAN: RULES[3],
}
_INDEX = {rule.id: i for i, rule in enumerate(RULES)}
_LOGICAL = re.compile(r"\$\{([A-Za-z0-9]+)")


@dataclass(frozen=True)
class SarifTarget:
    """One template's diff: the file the results point at (``path``), the line of each
    logical id in it (``lines``, ``0`` for the Resources section) and the stack name."""

    path: str
    diff: TemplateDiff
    lines: Mapping[str, int] = field(default_factory=dict)
    stack: str | None = None


def template_lines(path: str | Path, owners: Mapping[str, str] | None = None) -> dict[str, int]:
    """Logical id → 1-based line of its key in the template file (best effort: empty
    when the file cannot be decoded). ``owners`` maps generated ids (SAM) to the id
    whose line they take."""
    from cfnops.templates import TemplateError, line_of, load_template

    try:
        body = load_template(path)
    except TemplateError:
        return {}
    resources = body.get("Resources")
    out: dict[str, int] = {}
    if isinstance(resources, Mapping):
        key = next((k for k in body if k == "Resources"), None)
        out[""] = line_of(key) or line_of(resources) or 1
        for key, value in resources.items():
            line = line_of(key) or line_of(value)
            if line:
                out[str(key)] = line
    for generated, owner in (owners or {}).items():
        if generated not in out and owner in out:
            out[generated] = out[owner]
    return out


def _uri(path: str) -> str:
    p = Path(path)
    try:
        return p.resolve().relative_to(Path(os.getcwd()).resolve()).as_posix()
    except ValueError:
        return p.resolve().as_uri()


def _result(
    target: SarifTarget,
    rule: Rule,
    logical_id: str,
    message: str,
    kind: str = "resource",
    line: int | None = None,
) -> dict[str, Any]:
    uri = _uri(target.path)
    line = line or target.lines.get(logical_id) or target.lines.get("") or 1
    qualified = f"{target.stack}/{logical_id}" if target.stack else logical_id
    location: dict[str, Any] = {
        "physicalLocation": {"artifactLocation": {"uri": uri}, "region": {"startLine": line}}
    }
    if logical_id:
        location["logicalLocations"] = [
            {"name": logical_id, "fullyQualifiedName": qualified, "kind": kind}
        ]
    return {
        "ruleId": rule.id,
        "ruleIndex": _INDEX[rule.id],
        "level": rule.level,
        "message": {"text": message},
        "locations": [location],
        "partialFingerprints": {"cfnopsResource/v1": f"{uri}:{qualified}:{rule.id}"},
    }


def _resource_results(target: SarifTarget, res: ResourceDiff) -> list[dict[str, Any]]:
    rule = _BY_IMPACT.get(res.impact)
    if rule is None:
        return []
    text = f"{res.logical_id} ({res.type}): {res.reason or rule.short}"
    extra = [a for a in res.annotations if a.startswith("generated by SAM")]
    if extra:
        text += f" [{extra[0]}]"
    return [_result(target, rule, res.logical_id, text)]


def _security_results(target: SarifTarget) -> list[dict[str, Any]]:
    view = target.diff.security
    if view is None:
        return []
    out: list[dict[str, Any]] = []
    if view.iam_broadened:
        iam = [
            r.logical_id
            for r in target.diff.resources
            if r.type.startswith(("AWS::IAM::", "AWS::SSO::")) or r.property("Policies")
        ]
        added = [s for s in view.statements_added if s.positive or s.unparseable]
        what = (
            "; ".join(
                f"{s.effect} {', '.join(s.actions) or '?'} on {', '.join(s.resources) or '*'}"
                for s in added[:3]
            )
            or ", ".join(p.policy for p in view.managed_policies_added)
            or "IAM change"
        )
        out.append(
            _result(target, RULES[4], iam[0] if iam else "", f"IAM may widen: {what}", "policy")
        )
    for rule in (*view.ingress_added, *view.egress_added):
        found = _LOGICAL.search(rule.group)
        group = found.group(1) if found else rule.group
        ports = f"{rule.from_port}-{rule.to_port}" if rule.from_port is not None else "all"
        text = (
            f"{rule.direction} rule added on {rule.group}: {rule.protocol} {ports} "
            f"{'from' if rule.direction == 'ingress' else 'to'} {rule.peer_kind} {rule.peer}"
        )
        out.append(_result(target, RULES[5], group, text, "securityGroup"))
    return out


def to_sarif(targets: Sequence[SarifTarget]) -> dict[str, Any]:
    """A SARIF 2.1.0 log with one run: the rules and every target's results."""
    results: list[dict[str, Any]] = []
    for target in targets:
        for res in target.diff.resources:
            results.extend(_resource_results(target, res))
        results.extend(_security_results(target))
        for f in target.diff.deploy_findings:
            found = _result(target, RULES[6], f.logical_id, f.message, line=f.line)
            found["level"] = f.level
            found["partialFingerprints"]["cfnopsResource/v1"] += f":{f.rule}:{'/'.join(f.path)}"
            results.append(found)
    rules = [
        {
            "id": rule.id,
            "name": rule.name,
            "shortDescription": {"text": rule.short},
            "fullDescription": {"text": rule.help},
            "help": {"text": rule.help, "markdown": f"**{rule.short}.** {rule.help}"},
            "defaultConfiguration": {"level": rule.level},
            "properties": {"tags": ["cloudformation", "deployment-safety"]},
        }
        for rule in RULES
    ]
    driver = {
        "name": "cfnops diff",
        "version": __version__,
        "rules": rules,
    }
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "results": results}],
    }
