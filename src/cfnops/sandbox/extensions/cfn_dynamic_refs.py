"""``{{resolve:ssm:NAME}}`` dynamic references in stack templates.

CloudFormation replaces an ``ssm`` dynamic reference by the parameter's value
when the stack operation runs: ``{{resolve:ssm:NAME}}`` takes the latest version,
``{{resolve:ssm:NAME:VERSION}}`` that version (User Guide, "Get a plaintext
value from Systems Manager Parameter Store",
https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/dynamic-references-ssm.html).
moto left the text in place, so a launch template's ``ImageId`` was the literal
``{{resolve:ssm:…}}``. Here resource properties are resolved from moto's SSM as
each resource is created or updated; a missing parameter fails the operation with
a ``ValidationError`` naming it.

"CloudFormation doesn't support drift detection on dynamic references" (same
page): :func:`without_dynamic_references` drops such properties from what drift
detection and drift-aware change sets compare.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from cfnops.sandbox.extensions._moto import install_once, moto_module

__all__ = [
    "DYNAMIC_SSM",
    "install",
    "resolve_dynamic_references",
    "without_dynamic_references",
]

DYNAMIC_SSM = re.compile(r"\{\{resolve:ssm:([A-Za-z0-9_.\-/]+)(?::(\d+))?\}\}")


def _lookup(account: str, region: str, name: str, version: str | None) -> str:
    backend = moto_module("moto.ssm.models").ssm_backends[account][region]
    try:
        found = backend.get_parameter(f"{name}:{version}" if version else name)
    except Exception:  # moto raises ParameterVersionNotFound and friends
        found = None
    if found is None:
        raise moto_module("moto.cloudformation.exceptions").ValidationError(
            message=f"Unable to resolve the dynamic reference {{{{resolve:ssm:{name}"
            f"{':' + version if version else ''}}}}}: no such Systems Manager parameter"
            " (create it, or correct the name)"
        )
    return str(found.value)


def _resolve(value: Any, account: str, region: str) -> Any:
    if isinstance(value, str) and "{{resolve:ssm:" in value:
        return DYNAMIC_SSM.sub(lambda m: _lookup(account, region, m[1], m[2]), value)
    if isinstance(value, dict):
        return {k: _resolve(v, account, region) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, account, region) for v in value]
    return value


def resolve_dynamic_references(value: Any, account: str, region: str) -> Any:
    """``value`` with every ``{{resolve:ssm:…}}`` replaced by the parameter's value."""
    return _resolve(value, account, region)


def _has_reference(value: Any) -> bool:
    if isinstance(value, str):
        return "{{resolve:" in value
    if isinstance(value, dict):
        return any(_has_reference(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_reference(v) for v in value)
    return False


def without_dynamic_references(value: Any) -> Any:
    """``value`` without the keys and items whose value holds a dynamic reference."""
    if isinstance(value, dict):
        return {k: without_dynamic_references(v) for k, v in value.items() if not _has_reference(v)}
    if isinstance(value, list):
        return [without_dynamic_references(v) for v in value if not _has_reference(v)]
    return value


def _wrap_parse_resource(original: Any) -> Any:
    @functools.wraps(original)
    def parse_resource(resource_json: dict[str, Any], resources_map: Any) -> Any:
        parsed = original(resource_json, resources_map)
        if not parsed:
            return parsed
        resource_class, cleaned, resource_type = parsed
        account = str(resources_map._account_id)
        region = str(resources_map._region_name)
        return resource_class, _resolve(cleaned, account, region), resource_type

    return parse_resource


@install_once
def install() -> None:
    """Patch moto's template parsing (idempotent)."""
    parsing = moto_module("moto.cloudformation.parsing")
    parsing.parse_resource = _wrap_parse_resource(parsing.parse_resource)
