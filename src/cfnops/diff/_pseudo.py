"""Pseudo parameters with known values (a diff against a deployed stack).

The stack's ARN gives ``AWS::Region``, ``AWS::AccountId``, ``AWS::Partition``,
``AWS::StackName`` and ``AWS::StackId`` (AWS docs, "Pseudo parameters reference",
pseudo-parameter-reference.html). Substituting them in both templates before the
comparison makes a literal and its pseudo-parameter spelling one value
(``us-east-1a`` and ``!Sub "${AWS::Region}a"``). ``AWS::NoValue``,
``AWS::NotificationARNs`` and ``AWS::URLSuffix`` are left alone. ``Fn::GetAZs`` of
``""`` (or no argument) becomes ``Fn::GetAZs`` of the stack's region, as written
out it equals (intrinsic-function-reference-getavailabilityzones.html).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_SUB_TOKEN = re.compile(r"\$\{(AWS::[A-Za-z]+)\}")


def stack_pseudo_parameters(stack_id: str) -> dict[str, str]:
    """The pseudo parameters a stack ARN determines (empty for anything else)."""
    parts = stack_id.split(":", 5)
    if len(parts) != 6 or parts[0] != "arn" or not parts[5].startswith("stack/"):
        return {}
    name = parts[5].split("/")[1] if parts[5].count("/") >= 2 else ""
    out = {
        "AWS::Partition": parts[1],
        "AWS::Region": parts[3],
        "AWS::AccountId": parts[4],
        "AWS::StackId": stack_id,
    }
    if name:
        out["AWS::StackName"] = name
    return {k: v for k, v in out.items() if v}


def _sub_text(text: str, known: Mapping[str, str]) -> str:
    return _SUB_TOKEN.sub(lambda m: known.get(m.group(1), m.group(0)), text)


def substitute(value: Any, known: Mapping[str, str]) -> Any:
    """``value`` with ``Ref`` / ``${…}`` of the ``known`` pseudo parameters replaced."""
    if isinstance(value, dict):
        if len(value) == 1:
            ((name, arg),) = value.items()
            if name == "Ref" and isinstance(arg, str) and arg in known:
                return known[arg]
            if name == "Fn::GetAZs" and arg in ("", None) and "AWS::Region" in known:
                return {name: known["AWS::Region"]}  # "" (or none) is the stack's region
            if name == "Fn::Sub":
                if isinstance(arg, str):
                    return {name: _sub_text(arg, known)}
                if isinstance(arg, list) and len(arg) == 2 and isinstance(arg[0], str):
                    variables = arg[1] if isinstance(arg[1], dict) else {}
                    shadowed = {k: v for k, v in known.items() if k not in variables}
                    return {name: [_sub_text(arg[0], shadowed), substitute(arg[1], known)]}
        return {k: substitute(v, known) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, known) for v in value]
    return value


def apply_pseudo(template: dict[str, Any], known: Mapping[str, str]) -> dict[str, Any]:
    """``template`` with known pseudo parameters substituted in Resources and Outputs."""
    if not known:
        return template
    out = dict(template)
    for section in ("Resources", "Outputs", "Conditions"):
        if isinstance(template.get(section), Mapping):
            out[section] = substitute(dict(template[section]), known)
    return out
