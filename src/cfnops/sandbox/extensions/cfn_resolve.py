"""Resolve CloudFormation intrinsic functions with the values of a deployment.

Drift detection compares the *template's* property values, "as defined in the
stack template and any values specified as template parameters", with the live
resource (AWS CloudFormation API Reference, DetectStackDrift:
https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_DetectStackDrift.html).
So template properties are resolved here with what the deployment used:
parameter values, pseudo parameters, physical ids (``Ref``) and attributes
(``Fn::GetAtt``) of the resources moto created, conditions and mappings.

The resolver itself is pure: it asks a :class:`DeploymentValues` for those
values; :func:`values_from_resource_map` adapts moto's ``ResourceMap``.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "NO_VALUE",
    "DeploymentValues",
    "UnresolvableError",
    "resolve",
    "values_from_resource_map",
]


class _NoValue:
    def __repr__(self) -> str:
        return "AWS::NoValue"


NO_VALUE: Any = _NoValue()

_SUB_VAR = re.compile(r"\$\{([^!}][^}]*)\}")


class UnresolvableError(ValueError):
    """An intrinsic could not be resolved with the deployment's values."""


@dataclass
class DeploymentValues:
    """What a stack's deployment knows: parameters, resources, conditions, mappings."""

    parameters: Mapping[str, Any] = field(default_factory=dict)
    pseudo: Mapping[str, Any] = field(default_factory=dict)
    physical_ids: Mapping[str, str] = field(default_factory=dict)
    get_att: Callable[[str, str], Any] = lambda logical_id, attr: None
    conditions: Mapping[str, bool] = field(default_factory=dict)
    mappings: Mapping[str, Any] = field(default_factory=dict)
    exports: Mapping[str, Any] = field(default_factory=dict)
    azs: tuple[str, ...] = ()

    def ref(self, name: str) -> Any:
        if name == "AWS::NoValue":
            return NO_VALUE
        if name in self.pseudo:
            return self.pseudo[name]
        if name in self.parameters:
            return self.parameters[name]
        if name in self.physical_ids:
            return self.physical_ids[name]
        raise UnresolvableError(f"Ref to unknown name {name!r}")


def _strip(value: Any) -> Any:
    """Drop ``AWS::NoValue`` from objects and lists."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if v is not NO_VALUE}
    if isinstance(value, list):
        return [_strip(v) for v in value if v is not NO_VALUE]
    return value


def resolve(value: Any, ctx: DeploymentValues) -> Any:
    """``value`` with every intrinsic replaced by its deployment value."""
    return _strip(_resolve(value, ctx))


def _sub(template: str, variables: Mapping[str, Any], ctx: DeploymentValues) -> str:
    def one(match: re.Match[str]) -> str:
        name = match.group(1).strip()
        if name in variables:
            return str(variables[name])
        if "." in name and not name.startswith("AWS::"):
            logical, attr = name.split(".", 1)
            return str(ctx.get_att(logical, attr))
        return str(ctx.ref(name))

    # ``${!Literal}`` renders as ``${Literal}``.
    return _SUB_VAR.sub(one, template).replace("${!", "${")


def _condition(name: str, ctx: DeploymentValues) -> bool:
    if name not in ctx.conditions:
        raise UnresolvableError(f"unknown condition {name!r}")
    return bool(ctx.conditions[name])


def _fn(name: str, arg: Any, ctx: DeploymentValues) -> Any:
    handler = _FUNCTIONS.get(name)
    if handler is None:
        raise UnresolvableError(f"unsupported intrinsic {name}")
    return handler(arg, ctx)


def _truth(value: Any, ctx: DeploymentValues) -> bool:
    return bool(_resolve(value, ctx))


def _ref(arg: Any, ctx: DeploymentValues) -> Any:
    return ctx.ref(str(arg))


def _get_att(arg: Any, ctx: DeploymentValues) -> Any:
    logical, attr = arg.split(".", 1) if isinstance(arg, str) else arg
    return ctx.get_att(str(logical), str(_resolve(attr, ctx)))


def _fn_sub(arg: Any, ctx: DeploymentValues) -> Any:
    if isinstance(arg, list):
        text, variables = arg[0], _resolve(arg[1], ctx)
    else:
        text, variables = arg, {}
    return _sub(str(text), variables, ctx)


def _join(arg: Any, ctx: DeploymentValues) -> Any:
    sep, items = arg
    return str(sep).join(str(v) for v in _resolve(items, ctx) if v is not NO_VALUE)


def _select(arg: Any, ctx: DeploymentValues) -> Any:
    index, items = _resolve(arg[0], ctx), _resolve(arg[1], ctx)
    return items[int(index)]


def _split(arg: Any, ctx: DeploymentValues) -> Any:
    sep, text = arg
    return str(_resolve(text, ctx)).split(str(sep))


def _if(arg: Any, ctx: DeploymentValues) -> Any:
    cond, yes, no = arg
    return _resolve(yes if _condition(str(cond), ctx) else no, ctx)


def _equals(arg: Any, ctx: DeploymentValues) -> Any:
    a, b = (_resolve(v, ctx) for v in arg)
    return str(a) == str(b)


def _not(arg: Any, ctx: DeploymentValues) -> Any:
    return not _truth(arg[0], ctx)


def _and(arg: Any, ctx: DeploymentValues) -> Any:
    return all(_truth(v, ctx) for v in arg)


def _or(arg: Any, ctx: DeploymentValues) -> Any:
    return any(_truth(v, ctx) for v in arg)


def _condition_ref(arg: Any, ctx: DeploymentValues) -> Any:
    return _condition(str(arg), ctx)


def _find_in_map(arg: Any, ctx: DeploymentValues) -> Any:
    mapping, top, second = (_resolve(v, ctx) for v in arg[:3])
    return ctx.mappings[mapping][top][second]


def _base64(arg: Any, ctx: DeploymentValues) -> Any:
    return base64.b64encode(str(_resolve(arg, ctx)).encode()).decode()


def _get_azs(arg: Any, ctx: DeploymentValues) -> Any:
    return list(ctx.azs)


def _import_value(arg: Any, ctx: DeploymentValues) -> Any:
    export = str(_resolve(arg, ctx))
    if export not in ctx.exports:
        raise UnresolvableError(f"no export named {export!r}")
    return ctx.exports[export]


def _to_json_string(arg: Any, ctx: DeploymentValues) -> Any:
    return json.dumps(_resolve(arg, ctx), separators=(",", ":"))


def _length(arg: Any, ctx: DeploymentValues) -> Any:
    return len(_resolve(arg, ctx))


# The intrinsic functions (and the ``Condition`` reference) this resolver evaluates.
_FUNCTIONS: dict[str, Callable[[Any, DeploymentValues], Any]] = {
    "Ref": _ref,
    "Fn::GetAtt": _get_att,
    "Fn::Sub": _fn_sub,
    "Fn::Join": _join,
    "Fn::Select": _select,
    "Fn::Split": _split,
    "Fn::If": _if,
    "Fn::Equals": _equals,
    "Fn::Not": _not,
    "Fn::And": _and,
    "Fn::Or": _or,
    "Condition": _condition_ref,
    "Fn::FindInMap": _find_in_map,
    "Fn::Base64": _base64,
    "Fn::GetAZs": _get_azs,
    "Fn::ImportValue": _import_value,
    "Fn::ToJsonString": _to_json_string,
    "Fn::Length": _length,
}


def _resolve(value: Any, ctx: DeploymentValues) -> Any:
    if isinstance(value, dict):
        if len(value) == 1:
            ((key, arg),) = value.items()
            if key in _FUNCTIONS:
                return _fn(key, arg, ctx)
        return {str(k): _resolve(v, ctx) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, ctx) for v in value]
    return value


def values_from_resource_map(resource_map: Any) -> DeploymentValues:
    """Deployment values read from moto's ``ResourceMap`` of a stack."""
    parsed: dict[str, Any] = dict(resource_map._parsed_resources)
    pseudo = {k: v for k, v in parsed.items() if k.startswith("AWS::")}
    parameters = dict(getattr(resource_map, "resolved_parameters", {}) or {})
    template = getattr(resource_map, "_template", {}) or {}
    physical_ids: dict[str, str] = {}
    for logical_id in template.get("Resources", {}):
        model = parsed.get(logical_id)
        if model is not None and hasattr(model, "physical_resource_id"):
            physical_ids[logical_id] = str(model.physical_resource_id)

    def get_att(logical_id: str, attr: str) -> Any:
        model = parsed.get(logical_id)
        if model is None:
            raise UnresolvableError(f"Fn::GetAtt on unknown resource {logical_id!r}")
        try:
            return model.get_cfn_attribute(attr)
        except Exception as exc:  # moto raises assorted errors for unknown attributes
            raise UnresolvableError(f"Fn::GetAtt {logical_id}.{attr}: {exc}") from exc

    conditions: dict[str, bool] = {}
    lazy = getattr(resource_map, "lazy_condition_map", None)
    for name in template.get("Conditions", {}):
        try:
            conditions[name] = bool(lazy[name]) if lazy is not None else False
        except Exception:  # an unresolvable condition counts as false
            conditions[name] = False
    exports = {
        name: export.value
        for name, export in (getattr(resource_map, "cross_stack_resources", None) or {}).items()
    }
    region = str(pseudo.get("AWS::Region", "us-east-1"))
    return DeploymentValues(
        parameters=parameters,
        pseudo=pseudo,
        physical_ids=physical_ids,
        get_att=get_att,
        conditions=conditions,
        mappings=dict(template.get("Mappings", {})),
        exports=exports,
        azs=tuple(f"{region}{s}" for s in "abc"),
    )
