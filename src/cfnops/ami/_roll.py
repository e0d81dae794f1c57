"""Pattern 3: may this stack roll its instances through CloudFormation's instance refresh?

Pure functions on a decoded template. A stack can be rotated with ``--roll`` when
every Auto Scaling group that launches from a launch template whose ``ImageId`` is
the image parameter

- uses a launch template (not a launch configuration),
- is an auto-healing group (``MinSize`` = ``MaxSize``, when both are literal), and
- has the ``AutoScalingInstanceRefresh`` update policy and not
  ``AutoScalingRollingUpdate`` (the two are mutually exclusive: "This policy is
  mutually exclusive with AutoScalingRollingUpdate",
  https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.CfnAutoScalingInstanceRefresh.html).

With the policy, an UpdateStack that changes the group's launch template makes
CloudFormation start an instance refresh itself; the update ends when the refresh
does, and nothing is changed outside the stack, so nothing drifts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cfnops.ami._refs import ref_target

__all__ = [
    "INSTANCE_REFRESH_POLICY",
    "RollGroup",
    "RollPlan",
    "decode_template_body",
    "plan_roll",
    "policy_edit",
]

INSTANCE_REFRESH_POLICY = "AutoScalingInstanceRefresh"
_ASG = "AWS::AutoScaling::AutoScalingGroup"
_LT = "AWS::EC2::LaunchTemplate"


def policy_edit(group: str) -> str:
    """The template lines that give ``group`` the instance refresh policy."""
    return (
        f"Resources:\n  {group}:\n    UpdatePolicy:\n      {INSTANCE_REFRESH_POLICY}:\n"
        "        Strategy: Rolling\n        Preferences:\n"
        "          MinHealthyPercentage: 100   # keep the one instance until its\n"
        "          MaxHealthyPercentage: 200   # replacement is healthy\n"
        "          SkipMatching: true"
    )


@dataclass(frozen=True)
class RollGroup:
    """A group that launches from the image parameter, and whether it can roll."""

    logical_id: str
    launch_template: str | None
    problem: str | None = None
    edit: str | None = None
    preferences: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "LogicalResourceId": self.logical_id,
            "LaunchTemplate": self.launch_template,
            "Problem": self.problem,
            "Edit": self.edit,
            "Preferences": self.preferences,
        }


@dataclass(frozen=True)
class RollPlan:
    groups: tuple[RollGroup, ...]
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None and all(g.problem is None for g in self.groups)

    def problems(self) -> list[str]:
        found = [self.problem] if self.problem else []
        return found + [f"{g.logical_id}: {g.problem}" for g in self.groups if g.problem]

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "problem": self.problem,
            "groups": [g.to_json() for g in self.groups],
        }


def decode_template_body(body: Any) -> dict[str, Any]:
    """GetTemplate's ``TemplateBody``: a dict (boto3 decodes JSON) or JSON/YAML text."""
    if isinstance(body, dict):
        return body
    text = str(body)
    try:
        found: Any = json.loads(text)
    except ValueError:
        # YAML with short-form tags: the loader every command shares (no cfn-lint at run time)
        from cfnops.templates import parse_template

        found = parse_template(text, source="GetTemplate TemplateBody")
    return dict(found) if isinstance(found, dict | Mapping) else {}


def _uses_parameter(value: Any, key: str) -> bool:
    if ref_target(value) == key:
        return True
    if isinstance(value, dict) and "Fn::Sub" in value:
        sub = value["Fn::Sub"]
        text = sub[0] if isinstance(sub, list) and sub else sub
        return (
            isinstance(text, str) and re.search(r"\$\{" + re.escape(key) + r"\}", text) is not None
        )
    return False


def _group_templates(props: dict[str, Any]) -> list[str | None]:
    specs: list[Any] = [props.get("LaunchTemplate")]
    mixed = props.get("MixedInstancesPolicy")
    if isinstance(mixed, dict):
        specs.append((mixed.get("LaunchTemplate") or {}).get("LaunchTemplateSpecification"))
    out: list[str | None] = []
    for spec in specs:
        if isinstance(spec, dict):
            out.append(
                ref_target(spec.get("LaunchTemplateId"))
                or ref_target(spec.get("LaunchTemplateName"))
            )
    return out


def _literal_int(value: Any) -> int | None:
    try:
        return int(str(value))
    except ValueError:
        return None


def plan_roll(template: dict[str, Any], parameter_key: str) -> RollPlan:
    """Whether the groups launched from ``parameter_key``'s image can roll (and the edits)."""
    resources = template.get("Resources") or {}
    image_templates = {
        logical
        for logical, res in resources.items()
        if isinstance(res, dict)
        and res.get("Type") == _LT
        and _uses_parameter(
            ((res.get("Properties") or {}).get("LaunchTemplateData") or {}).get("ImageId"),
            parameter_key,
        )
    }
    groups: list[RollGroup] = []
    for logical, res in resources.items():
        if not isinstance(res, dict) or res.get("Type") != _ASG:
            continue
        props = res.get("Properties") or {}
        used = [t for t in _group_templates(props) if t in image_templates]
        if not used:
            continue
        groups.append(_judge(str(logical), res, props, used[0]))
    if not groups:
        without = [
            str(logical)
            for logical, res in resources.items()
            if isinstance(res, dict)
            and res.get("Type") == _ASG
            and "LaunchConfigurationName" in (res.get("Properties") or {})
        ]
        problem = (
            f"no Auto Scaling group launches from a launch template whose ImageId is the "
            f"parameter {parameter_key}"
        )
        if without:
            problem += (
                f"; {', '.join(without)} use(s) a launch configuration, which an instance "
                "refresh policy cannot roll: move the group to an AWS::EC2::LaunchTemplate "
                f"with ImageId: !Ref {parameter_key}"
            )
        return RollPlan((), problem)
    return RollPlan(tuple(groups))


def _judge(logical: str, res: dict[str, Any], props: dict[str, Any], lt: str | None) -> RollGroup:
    policy = res.get("UpdatePolicy") or {}
    low, high = _literal_int(props.get("MinSize")), _literal_int(props.get("MaxSize"))
    if low is not None and high is not None and low != high:
        return RollGroup(
            logical,
            lt,
            f"MinSize {low} and MaxSize {high} differ: AMI rotation is for auto-healing "
            "groups (MinSize = MaxSize); scale the group through its own deployment instead",
        )
    if "AutoScalingRollingUpdate" in policy:
        return RollGroup(
            logical,
            lt,
            "UpdatePolicy has AutoScalingRollingUpdate, which is mutually exclusive with "
            f"{INSTANCE_REFRESH_POLICY}: replace it with the instance refresh policy",
            policy_edit(logical),
        )
    found = policy.get(INSTANCE_REFRESH_POLICY)
    if not isinstance(found, dict):
        return RollGroup(
            logical,
            lt,
            f"UpdatePolicy has no {INSTANCE_REFRESH_POLICY}: without it CloudFormation "
            "updates the launch template and leaves the running instances as they are; "
            "add the policy (then deploy the template once) and --roll will replace them",
            policy_edit(logical),
        )
    return RollGroup(logical, lt, preferences=dict(found.get("Preferences") or {}))
