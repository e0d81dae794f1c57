"""The requests ``--exercise`` sends: CloudFormation's custom-resource request objects.

Fields as documented (AWS docs, "Custom resource request objects":
https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/crpg-ref-requests.html):
``RequestType``, ``ResponseURL``, ``StackId``, ``RequestId``, ``ResourceType``,
``LogicalResourceId``, ``ResourceProperties`` (the template's properties, with
``ServiceToken``), and on Update ``OldResourceProperties`` and on Update/Delete
``PhysicalResourceId``. Intrinsic functions in the properties are resolved as a
deploy with default parameter values would; what only a deployed stack knows (another
resource's id or attribute) becomes a readable stand-in (``Bucket-Ref``, ``Role-Arn``).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from typing import Any

from cfnops.guard._template import Template, resolve_string

ACCOUNT = "123456789012"
STACK_NAME = "cfnops-exercise"
CHANGED_KEY = "CfnopsExerciseChange"  # added on the "properties changed" Update
_SUB = re.compile(r"\$\{([^}!][^}]*)\}")


def plain(template: Template, value: Any, region: str) -> Any:
    """``value`` with intrinsic functions resolved to plain JSON.

    Scalars become strings: CloudFormation hands custom resources their property
    values as strings (numbers and booleans included).
    """
    if isinstance(value, Mapping):
        if len(value) == 1:
            ((name, arg),) = value.items()
            if name == "Ref" or name.startswith("Fn::"):
                return _intrinsic(template, name, arg, region)
        return {str(k): plain(template, v, region) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(template, v, region) for v in value]
    if isinstance(value, bool):
        return "true" if value else "false"
    return None if value is None else str(value)


def _pseudo(name: str, region: str) -> str | None:
    return {
        "AWS::Region": region,
        "AWS::AccountId": ACCOUNT,
        "AWS::StackName": STACK_NAME,
        "AWS::StackId": stack_id(region),
        "AWS::Partition": "aws",
        "AWS::URLSuffix": "amazonaws.com",
        "AWS::NoValue": None,
    }.get(name, f"{name}-value")


def _ref(template: Template, name: str, region: str) -> Any:
    if name.startswith("AWS::"):
        return _pseudo(name, region)
    resolved = resolve_string(template, {"Ref": name})
    return resolved if resolved is not None else f"{name}-Ref"


def _intrinsic(template: Template, name: str, arg: Any, region: str) -> Any:
    if name == "Ref" and isinstance(arg, str):
        return _ref(template, arg, region)
    if name == "Fn::GetAtt":
        parts = arg.split(".", 1) if isinstance(arg, str) else arg
        return "-".join(str(plain(template, p, region)) for p in parts)
    if name == "Fn::Sub":
        text, local = (arg, {}) if isinstance(arg, str) else ([*arg, {}][:2])
        local = local if isinstance(local, Mapping) else {}

        def substitute(match: re.Match[str]) -> str:
            key = match.group(1).strip()
            if key in local:
                return str(plain(template, local[key], region))
            if "." in key:
                return key.replace(".", "-")
            return str(_ref(template, key, region))

        return _SUB.sub(substitute, str(text)).replace("${!", "${")
    if name == "Fn::Join" and isinstance(arg, list) and len(arg) == 2:
        items = plain(template, arg[1], region)
        if isinstance(items, list):
            return str(arg[0]).join(str(i) for i in items if i is not None)
    if name == "Fn::Select" and isinstance(arg, list) and len(arg) == 2:
        items = plain(template, arg[1], region)
        index = plain(template, arg[0], region)
        if isinstance(items, list) and str(index).isdigit() and int(str(index)) < len(items):
            return items[int(str(index))]
    if name == "Fn::Split" and isinstance(arg, list) and len(arg) == 2:
        return str(plain(template, arg[1], region)).split(str(arg[0]))
    if name == "Fn::If" and isinstance(arg, list) and len(arg) == 3:
        return plain(template, arg[1], region)  # the condition's value is not known offline
    if name == "Fn::GetAZs":
        return [f"{region}a", f"{region}b", f"{region}c"]
    if name == "Fn::Base64":
        return plain(template, arg, region)
    return f"{name[4:]}-value"


def stack_id(region: str) -> str:
    return (
        f"arn:aws:cloudformation:{region}:{ACCOUNT}:stack/{STACK_NAME}/"
        "00000000-0000-4000-8000-000000000000"
    )


def request(
    request_type: str,
    resource: str,
    resource_type: str,
    properties: dict[str, Any],
    region: str,
    *,
    physical_id: str | None = None,
    old_properties: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One request object (its ``ResponseURL`` is set by the runner)."""
    event: dict[str, Any] = {
        "RequestType": request_type,
        "ServiceToken": properties.get("ServiceToken", ""),
        "StackId": stack_id(region),
        "RequestId": str(uuid.uuid4()),
        "ResourceType": resource_type,
        "LogicalResourceId": resource,
        "ResourceProperties": properties,
    }
    if physical_id is not None:
        event["PhysicalResourceId"] = physical_id
    if old_properties is not None:
        event["OldResourceProperties"] = old_properties
    return event


def changed(properties: dict[str, Any]) -> dict[str, Any]:
    """The properties with one more key: an update that changes the properties."""
    return {**properties, CHANGED_KEY: uuid.uuid4().hex[:8]}
