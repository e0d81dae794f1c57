"""``cfnops ami check``: find the drift-prone AMI pattern in a template; show the edit.

Drift-prone: an Auto Scaling group pinned to a launch template version (CloudFormation
cannot use ``$Latest``/``$Default`` there — ``AWS::AutoScaling::AutoScalingGroup
LaunchTemplateSpecification``, "Version") whose launch template's ``ImageId`` is

- a literal AMI id: rotating it outside the stack means a new template version
  and switching the group's version, which drift detection reports;
- a ``{{resolve:ssm:…}}`` dynamic reference, or a template parameter of type
  ``AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>``: CloudFormation resolves
  them only at stack create/update ("Get a plaintext value from Systems Manager
  Parameter Store", dynamic-references-ssm.html; drift detection compares
  against the value resolved at the last deployment), so a new AMI written to
  the parameter reaches nothing until someone updates the stack.

Good patterns: **1** ``ImageId: resolve:ssm:<name>`` (EC2 resolves it at launch,
EC2 User Guide "Use a Systems Manager parameter instead of an AMI ID"), with the
parameter created outside the stack; **2** ``ImageId: !Ref <Parameter>`` of type
``AWS::EC2::Image::Id`` (or ``String``), rotated by UpdateStack.

Templates are loaded by the shared loader (:mod:`cfnops.templates`), which keeps
line numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from cfnops.ami._refs import line_of, ref_target
from cfnops.ami.errors import TemplateLoadError

__all__ = ["CheckReport", "Edit", "Finding", "LaunchTemplateUse", "check_template", "load_template"]

_DYNAMIC_SSM = re.compile(r"^\{\{resolve:ssm:([^}]+)\}\}$")
_EC2_SSM = re.compile(r"^resolve:ssm:(.+)$")
_SSM_IMAGE_TYPE = "AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>"

Pattern = Literal[
    "ssm-parameter",
    "stack-parameter",
    "literal",
    "dynamic-reference",
    "ssm-typed-parameter",
    "stack-owned-parameter",
    "other",
]


@dataclass(frozen=True)
class Edit:
    """One change to make in the template (``pointer`` is a JSON pointer)."""

    pointer: str
    line: int | None
    before: str
    after: str
    note: str = ""


@dataclass(frozen=True)
class Finding:
    severity: Literal["error", "warning", "info"]
    code: str
    resource: str
    pointer: str
    line: int | None
    message: str
    fixes: dict[str, tuple[Edit, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class LaunchTemplateUse:
    launch_template: str
    pattern: Pattern
    image: str
    groups: tuple[str, ...]


@dataclass(frozen=True)
class CheckReport:
    path: str
    launch_templates: tuple[LaunchTemplateUse, ...]
    findings: tuple[Finding, ...]

    @property
    def drift_prone(self) -> bool:
        return any(f.severity == "error" for f in self.findings)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "driftProne": self.drift_prone,
            "launchTemplates": [
                {
                    "launchTemplate": u.launch_template,
                    "pattern": u.pattern,
                    "image": u.image,
                    "autoScalingGroups": list(u.groups),
                }
                for u in self.launch_templates
            ],
            "findings": [
                {
                    "severity": f.severity,
                    "code": f.code,
                    "resource": f.resource,
                    "pointer": f.pointer,
                    "line": f.line,
                    "message": f.message,
                    "fixes": {name: [e.__dict__ for e in edits] for name, edits in f.fixes.items()},
                }
                for f in self.findings
            ],
        }


def load_template(path: Path) -> dict[str, Any]:
    """Decode JSON or YAML with the shared loader (line numbers kept on the nodes)."""
    from cfnops.templates import TemplateError, decode

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TemplateLoadError(
            str(path), exc.strerror or str(exc), "check the path: give the template's file"
        ) from exc
    except UnicodeDecodeError:
        raise TemplateLoadError(
            str(path), "not UTF-8 text (a binary file?)", "give a JSON or YAML template"
        ) from None
    try:
        template = decode(text, str(path))
    except TemplateError as exc:
        where = f"line {exc.line}: " if exc.line else ""
        raise TemplateLoadError(str(path), f"{where}{exc.reason}") from exc
    if not isinstance(template, dict) or not template:
        raise TemplateLoadError(
            str(path),
            "empty file" if not template else "not a template object",
            "give a CloudFormation template (JSON or YAML) with a Resources section",
        )
    for section in ("Resources", "Parameters"):
        if section in template and not isinstance(template[section], dict):
            raise TemplateLoadError(
                str(path),
                f"{section} is {_kind(template[section])}, not a mapping of logical ids",
            )
    return dict(template)


def _kind(value: Any) -> str:
    for kind, name in ((str, "a string"), (list, "a list"), (bool, "a boolean")):
        if isinstance(value, kind):
            return name
    return "a number" if isinstance(value, (int, float)) else "null"


def _render(value: Any) -> str:
    if isinstance(value, dict) and len(value) == 1:
        ((fn, arg),) = value.items()
        short = {"Ref": "!Ref", "Fn::GetAtt": "!GetAtt", "Fn::Sub": "!Sub"}.get(fn)
        if short and not isinstance(arg, (dict, list)):
            return f"{short} {arg}"
    return str(value)


def _group_specs(props: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    specs: list[tuple[str, dict[str, Any]]] = []
    if isinstance(props.get("LaunchTemplate"), dict):
        specs.append(("/LaunchTemplate", props["LaunchTemplate"]))
    mixed = props.get("MixedInstancesPolicy")
    if isinstance(mixed, dict):
        spec = (mixed.get("LaunchTemplate") or {}).get("LaunchTemplateSpecification")
        if isinstance(spec, dict):
            specs.append(("/MixedInstancesPolicy/LaunchTemplate/LaunchTemplateSpecification", spec))
    return specs


def _stack_parameter_names(resources: dict[str, Any]) -> dict[str, str]:
    names: dict[str, str] = {}
    for logical, res in resources.items():
        if isinstance(res, dict) and res.get("Type") == "AWS::SSM::Parameter":
            name = (res.get("Properties") or {}).get("Name")
            if isinstance(name, str):
                names[name] = logical
    return names


def _classify(image: Any, parameters: dict[str, Any], owned: dict[str, str]) -> Pattern:
    if isinstance(image, str):
        if _DYNAMIC_SSM.match(image):
            return "dynamic-reference"
        found = _EC2_SSM.match(image)
        if found:
            name = found.group(1).rsplit(":", 1)[0] if found.group(1).count(":") else found.group(1)
            return "stack-owned-parameter" if name in owned else "ssm-parameter"
        return "literal"
    sub = image.get("Fn::Sub") if isinstance(image, dict) and len(image) == 1 else None
    if isinstance(sub, list) and sub:
        sub = sub[0]
    if isinstance(sub, str) and (_EC2_SSM.match(sub) or _DYNAMIC_SSM.match(sub)):
        return _classify(sub, parameters, owned)
    ref = ref_target(image) if isinstance(image, dict) and "Ref" in image else None
    if ref and ref in parameters:
        kind = str((parameters[ref] or {}).get("Type", ""))
        return (
            "ssm-typed-parameter"
            if kind.startswith("AWS::SSM::Parameter::Value")
            else ("stack-parameter")
        )
    return "other"


def _fixes(lt: str, image: Any, pointer: str, line: int | None) -> dict[str, tuple[Edit, ...]]:
    before = f"ImageId: {_render(image)}"
    current = image if isinstance(image, str) and image.startswith("ami-") else "ami-..."
    name = f"/cfnops/ami/{lt}"
    return {
        "pattern1": (
            Edit(
                pointer,
                line,
                before,
                f"ImageId: resolve:ssm:{name}",
                "EC2 resolves the parameter at each launch; no dynamic-reference braces",
            ),
            Edit(
                "(outside the stack)",
                None,
                "",
                f"aws ssm put-parameter --name {name} --type String --data-type aws:ec2:image "
                f"--value {current}",
                "create the parameter once, outside any stack",
            ),
            Edit(
                f"/Resources/{lt}/Properties/LaunchTemplateData/TagSpecifications",
                None,
                "",
                f"- ResourceType: instance\n  Tags: [{{Key: ImageIdParameterName, Value: {name}}}]",
                "backups of the instance then name the parameter to rotate",
            ),
        ),
        "pattern2": (
            Edit(
                "/Parameters/ImageId",
                None,
                "",
                "ImageId:\n  Type: AWS::EC2::Image::Id"
                + (f"\n  Default: {current}" if current != "ami-..." else ""),
                "a template parameter of type AWS::EC2::Image::Id",
            ),
            Edit(pointer, line, before, "ImageId: !Ref ImageId"),
            Edit(
                f"/Resources/{lt}/Properties/LaunchTemplateData/TagSpecifications",
                None,
                "",
                "- ResourceType: instance\n  Tags: [{Key: StackName, Value: !Ref AWS::StackName}]",
                "backups of the instance then name the stack to update",
            ),
        ),
    }


_MESSAGES: dict[str, tuple[str, str, str]] = {
    "literal": (
        "error",
        "AMI001",
        "literal ImageId {img}: rotating it means a new launch template version and "
        "switching the group's pinned version, which drift detection reports",
    ),
    "dynamic-reference": (
        "error",
        "AMI002",
        "ImageId {img} is a dynamic reference: resolved only at stack "
        "create/update and invisible to drift detection, so a rotated "
        "parameter reaches no instance until the stack is updated",
    ),
    "ssm-typed-parameter": (
        "error",
        "AMI003",
        "ImageId comes from a parameter of type "
        + _SSM_IMAGE_TYPE
        + ": resolved only at stack create/update, like a dynamic reference",
    ),
    "stack-owned-parameter": (
        "error",
        "AMI004",
        "ImageId {img} names an SSM parameter defined in this stack: "
        "automation writing it drifts the stack; create it outside",
    ),
    "other": (
        "warning",
        "AMI005",
        "ImageId {img} is neither pattern 1 nor pattern 2; cannot tell how it rotates",
    ),
}


def check_template(template: dict[str, Any], path: str = "<template>") -> CheckReport:
    """Classify every launch template's ImageId and the groups pinned to it."""
    resources = template.get("Resources") or {}
    parameters = template.get("Parameters") or {}
    owned = _stack_parameter_names(resources)
    users: dict[str, list[str]] = {}
    for logical, res in resources.items():
        if not isinstance(res, dict) or res.get("Type") != "AWS::AutoScaling::AutoScalingGroup":
            continue
        for _, spec in _group_specs(res.get("Properties") or {}):
            lt = ref_target(spec.get("LaunchTemplateId")) or ref_target(
                spec.get("LaunchTemplateName")
            )
            if lt and "Version" in spec:
                users.setdefault(lt, []).append(logical)
    uses: list[LaunchTemplateUse] = []
    findings: list[Finding] = []
    for logical, res in resources.items():
        if not isinstance(res, dict) or res.get("Type") != "AWS::EC2::LaunchTemplate":
            continue
        data = (res.get("Properties") or {}).get("LaunchTemplateData") or {}
        if "ImageId" not in data:
            continue
        image = data["ImageId"]
        pointer = f"/Resources/{logical}/Properties/LaunchTemplateData/ImageId"
        pattern = _classify(image, parameters, owned)
        groups = tuple(users.get(logical, ()))
        uses.append(LaunchTemplateUse(logical, pattern, _render(image), groups))
        if pattern in ("ssm-parameter", "stack-parameter"):
            continue
        severity, code, text = _MESSAGES[pattern]
        if not groups and severity == "error":
            severity = "warning"
            text += " (no Auto Scaling group in this template pins this launch template)"
        elif groups:
            text += f"; used by {', '.join(groups)} pinned to a version"
        findings.append(
            Finding(
                severity,  # type: ignore[arg-type]
                code,
                logical,
                pointer,
                line_of(image) or line_of(data),
                text.format(img=_render(image)),
                _fixes(logical, image, pointer, line_of(image) or line_of(data)),
            )
        )
    from cfnops.ami._check_groups import group_findings

    findings.extend(group_findings(template, tuple(uses)))
    return CheckReport(path, tuple(uses), tuple(findings))
