"""``cfnops ami check`` rules on the groups themselves: versions, update policies.

- **AMI006** (error) a group's launch template ``Version`` is ``$Latest`` or
  ``$Default``: CloudFormation requires a version number there
  (AWS::AutoScaling::AutoScalingGroup LaunchTemplateSpecification, "Version",
  https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-properties-autoscaling-autoscalinggroup-launchtemplatespecification.html),
  and whoever makes a new version changes the group's instances behind the stack.
- **AMI007** (error) a launch template of this stack is versioned outside it: an
  EC2 Image Builder distribution writes new versions into it
  (``LaunchTemplateConfigurations``,
  https://docs.aws.amazon.com/imagebuilder/latest/userguide/dist-using-launch-templates.html),
  while a group pins ``LatestVersionNumber`` as CloudFormation last resolved it: the
  new AMI reaches no instance until the next stack update, which then resets the
  launch template's default version.
- **AMI008** (error) ``AutoScalingRollingUpdate`` and ``AutoScalingInstanceRefresh``
  on one group: the two are mutually exclusive ("This policy is mutually exclusive
  with AutoScalingRollingUpdate",
  https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.CfnAutoScalingInstanceRefresh.html).
- **AMI009** (info) a pattern 2 group whose update policy replaces the instances on
  every launch template change: a rotation through the stack parameter rolls them
  anyway, even without ``--roll`` — say so, so nobody is surprised.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cfnops.ami._check import Edit, Finding, LaunchTemplateUse
from cfnops.ami._refs import line_of, ref_target

__all__ = ["group_findings"]

_ASG = "AWS::AutoScaling::AutoScalingGroup"
_DISTRIBUTION = "AWS::ImageBuilder::DistributionConfiguration"
_REFRESH = "AutoScalingInstanceRefresh"
_ROLLING = "AutoScalingRollingUpdate"


def _specs(props: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(props.get("LaunchTemplate"), dict):
        yield "/LaunchTemplate", props["LaunchTemplate"]
    mixed = props.get("MixedInstancesPolicy")
    if isinstance(mixed, dict):
        spec = (mixed.get("LaunchTemplate") or {}).get("LaunchTemplateSpecification")
        if isinstance(spec, dict):
            yield "/MixedInstancesPolicy/LaunchTemplate/LaunchTemplateSpecification", spec


def _versioned_outside(resources: dict[str, Any]) -> dict[str, str]:
    """Launch template logical id → the Image Builder distribution that versions it."""
    found: dict[str, str] = {}
    for logical, res in resources.items():
        if not isinstance(res, dict) or res.get("Type") != _DISTRIBUTION:
            continue
        props = res.get("Properties") or {}
        for dist in props.get("Distributions") or []:
            if not isinstance(dist, dict):
                continue
            for config in dist.get("LaunchTemplateConfigurations") or []:
                lt = ref_target((config or {}).get("LaunchTemplateId"))
                if lt:
                    found[lt] = str(logical)
    return found


def group_findings(template: dict[str, Any], uses: tuple[LaunchTemplateUse, ...]) -> list[Finding]:
    """AMI006 to AMI009 for every Auto Scaling group of ``template``."""
    resources = template.get("Resources") or {}
    patterns = {u.launch_template: u.pattern for u in uses}
    outside = _versioned_outside(resources)
    findings: list[Finding] = []
    for logical, res in resources.items():
        if not isinstance(res, dict) or res.get("Type") != _ASG:
            continue
        props = res.get("Properties") or {}
        policy = res.get("UpdatePolicy") or {}
        base = f"/Resources/{logical}"
        for where, spec in _specs(props):
            lt = ref_target(spec.get("LaunchTemplateId")) or ref_target(
                spec.get("LaunchTemplateName")
            )
            version = spec.get("Version")
            pointer = f"{base}/Properties{where}/Version"
            if isinstance(version, str) and version in ("$Latest", "$Default"):
                findings.append(_floating(str(logical), lt, version, pointer, line_of(version)))
            if lt and lt in outside:
                findings.append(_outside(str(logical), lt, outside[lt], pointer, line_of(spec)))
        if _ROLLING in policy and _REFRESH in policy:
            findings.append(
                Finding(
                    "error",
                    "AMI008",
                    str(logical),
                    f"{base}/UpdatePolicy",
                    line_of(policy),
                    f"UpdatePolicy has both {_ROLLING} and {_REFRESH}: they are mutually "
                    "exclusive; keep the instance refresh (it can be awaited with "
                    "'cfnops ami rotate --roll')",
                    {"remove": (Edit(f"{base}/UpdatePolicy/{_ROLLING}", None, _ROLLING, ""),)},
                )
            )
        rolls = _REFRESH if _REFRESH in policy else (_ROLLING if _ROLLING in policy else None)
        stack_parameter = [
            lt
            for _, spec in _specs(props)
            if (
                lt := ref_target(spec.get("LaunchTemplateId"))
                or ref_target(spec.get("LaunchTemplateName"))
            )
            and patterns.get(lt) == "stack-parameter"
        ]
        if rolls and stack_parameter and not (_ROLLING in policy and _REFRESH in policy):
            how = (
                "CloudFormation starts an instance refresh; 'cfnops ami rotate --stack NAME "
                "--roll' waits for it and reports its progress (pattern 3)"
                if rolls == _REFRESH
                else "CloudFormation replaces them in a rolling update; --roll needs "
                f"{_REFRESH} instead"
            )
            findings.append(
                Finding(
                    "info",
                    "AMI009",
                    str(logical),
                    f"{base}/UpdatePolicy/{rolls}",
                    line_of(policy),
                    f"rotating the image parameter of launch template {stack_parameter[0]} "
                    f"replaces this group's running instances at once, even without --roll: {how}",
                )
            )
    return findings


def _floating(group: str, lt: str | None, version: str, pointer: str, line: int | None) -> Finding:
    after = f"Version: !GetAtt {lt}.LatestVersionNumber" if lt else "Version: <a version number>"
    return Finding(
        "error",
        "AMI006",
        group,
        pointer,
        line,
        f"the group's launch template version is {version}: CloudFormation needs a version "
        "number here, and whoever creates a new version changes the group's instances "
        "without the stack knowing",
        {"pin": (Edit(pointer, line, f"Version: {version}", after),)},
    )


def _outside(group: str, lt: str, distribution: str, pointer: str, line: int | None) -> Finding:
    return Finding(
        "error",
        "AMI007",
        group,
        pointer,
        line,
        f"launch template {lt} gets new versions from the Image Builder distribution "
        f"{distribution} (outside CloudFormation): this group keeps the version the stack "
        "last resolved, so the new AMI reaches no instance, and the next stack update "
        "resets the launch template's default version",
        {
            "pattern1": (
                Edit(
                    f"/Resources/{distribution}/Properties/Distributions",
                    None,
                    "LaunchTemplateConfigurations: [...]",
                    "SsmParameterConfigurations:\n"
                    "  - ParameterName: /cfnops/ami/" + lt + "\n    DataType: aws:ec2:image",
                    "let Image Builder write the AMI id to an SSM parameter instead",
                ),
                Edit(
                    f"/Resources/{lt}/Properties/LaunchTemplateData/ImageId",
                    None,
                    "",
                    f"ImageId: resolve:ssm:/cfnops/ami/{lt}",
                    "the launch template resolves it at each launch (pattern 1)",
                ),
            )
        },
    )
