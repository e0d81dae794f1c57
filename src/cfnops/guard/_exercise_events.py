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
from collections.abc import Callable, Mapping
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


# A stand-in handler returns this when its argument is not in a form it understands.
_UNRESOLVED = object()


def _intrinsic(template: Template, name: str, arg: Any, region: str) -> Any:
    handler = _INTRINSICS.get(name)
    if handler is not None:
        value = handler(template, arg, region)
        if value is not _UNRESOLVED:
            return value
    return f"{name[4:]}-value"


def _pair(arg: Any) -> bool:
    return isinstance(arg, list) and len(arg) == 2


def _fn_ref(template: Template, arg: Any, region: str) -> Any:
    return _ref(template, arg, region) if isinstance(arg, str) else _UNRESOLVED


def _fn_get_att(template: Template, arg: Any, region: str) -> Any:
    parts = arg.split(".", 1) if isinstance(arg, str) else arg
    return "-".join(str(plain(template, p, region)) for p in parts)


def _fn_sub(template: Template, arg: Any, region: str) -> Any:
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


def _fn_join(template: Template, arg: Any, region: str) -> Any:
    if not _pair(arg):
        return _UNRESOLVED
    items = plain(template, arg[1], region)
    if isinstance(items, list):
        return str(arg[0]).join(str(i) for i in items if i is not None)
    return _UNRESOLVED


def _fn_select(template: Template, arg: Any, region: str) -> Any:
    if not _pair(arg):
        return _UNRESOLVED
    items = plain(template, arg[1], region)
    index = plain(template, arg[0], region)
    if isinstance(items, list) and str(index).isdigit() and int(str(index)) < len(items):
        return items[int(str(index))]
    return _UNRESOLVED


def _fn_split(template: Template, arg: Any, region: str) -> Any:
    if not _pair(arg):
        return _UNRESOLVED
    return str(plain(template, arg[1], region)).split(str(arg[0]))


def _fn_if(template: Template, arg: Any, region: str) -> Any:
    if not (isinstance(arg, list) and len(arg) == 3):
        return _UNRESOLVED
    return plain(template, arg[1], region)  # the condition's value is not known offline


def _fn_get_azs(template: Template, arg: Any, region: str) -> Any:
    return [f"{region}a", f"{region}b", f"{region}c"]


def _fn_base64(template: Template, arg: Any, region: str) -> Any:
    return plain(template, arg, region)


# Offline stand-ins for the intrinsics a handler's event may carry; any other
# intrinsic (or one whose argument is not understood) becomes "<Name>-value".
_INTRINSICS: dict[str, Callable[[Template, Any, str], Any]] = {
    "Ref": _fn_ref,
    "Fn::GetAtt": _fn_get_att,
    "Fn::Sub": _fn_sub,
    "Fn::Join": _fn_join,
    "Fn::Select": _fn_select,
    "Fn::Split": _fn_split,
    "Fn::If": _fn_if,
    "Fn::GetAZs": _fn_get_azs,
    "Fn::Base64": _fn_base64,
}


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
