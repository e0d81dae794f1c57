"""Fixes for moto's CloudFormation met on the way (moto 5.2).

- ``UpdateStack`` / ``CreateChangeSet`` with ``UsePreviousValue`` for a parameter
  that took its ``Default`` raised ``KeyError``: previous values now come from
  the resolved parameters, as in AWS (API reference, ``Parameter.UsePreviousValue``);
- creates and updates get per-resource stack events, close moto's creation gaps
  and propagate ``Fn::GetAtt``-driven updates (see :mod:`_cfn_apply`);
- ``UpdateStack`` on a stack with an operation in progress is refused, as in AWS;
- ``ChangeSetType`` defaults to ``UPDATE`` (API reference, CreateChangeSet) — done
  in :mod:`cfn_changesets`, which owns change sets;
- a stack parameter of type ``AWS::SSM::Parameter::Name`` is the parameter's *name*:
  CloudFormation only checks that it exists and "won't retrieve the actual value"
  (User Guide, "Supported Systems Manager parameter types",
  https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-supplied-parameter-types.html);
  moto resolved it like ``AWS::SSM::Parameter::Value<String>``;
- an ``AWS::SSM::Parameter`` without ``Name`` gets a generated name, as any
  resource whose name is omitted ("If you don't specify a name, CloudFormation
  generates a unique physical ID", e.g. ``MyStack-MyBucket-abcdefghijk1``:
  https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-name.html;
  ``Name`` in https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-ssm-parameter.html).
  moto called PutParameter with no name (HTTP 500). An update keeps the name.
- ``ValidateTemplate`` without cfn-lint installed (the ``sandbox`` extra leaves it out:
  docs/packaging.md) checks the template's syntax only, as CloudFormation does ("first
  checks if the template is valid JSON. If it isn't, … valid YAML",
  https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_ValidateTemplate.html);
  moto ran cfn-lint's rules and failed with ``ImportError`` (HTTP 500) without it.
"""

from __future__ import annotations

import functools
import importlib.util
from typing import Any

from cfnops.sandbox._state import current_state
from cfnops.sandbox.extensions._cfn_apply import after_create, after_update
from cfnops.sandbox.extensions._cfn_deploy import deployment_of
from cfnops.sandbox.extensions._moto import install_once, moto_module

__all__ = ["install", "previous_parameter_values"]


def previous_parameter_values(stack: Any) -> dict[str, str]:
    """The stack's parameter values as strings (lists comma-joined), defaults included."""
    values: dict[str, str] = {}
    for key, value in (stack.resource_map.resolved_parameters or {}).items():
        values[key] = ",".join(str(v) for v in value) if isinstance(value, list) else str(value)
    values.update({k: str(v) for k, v in (stack.parameters or {}).items()})
    return values


def _resolve_update_parameters(
    self: Any, instance: Any, incoming_params: list[dict[str, str]]
) -> dict[str, str]:
    parameters = {
        p["ParameterKey"]: p["ParameterValue"] for p in incoming_params if "ParameterValue" in p
    }
    previous = (
        previous_parameter_values(instance)
        if hasattr(instance, "resource_map")
        else dict(instance.parameters)
    )
    for p in incoming_params:
        if p.get("UsePreviousValue", False):
            parameters[p["ParameterKey"]] = previous[p["ParameterKey"]]
    return parameters


def _wrap_create_stack(original: Any) -> Any:
    @functools.wraps(original)
    def create_stack(self: Any, *args: Any, **kwargs: Any) -> Any:
        stack = original(self, *args, **kwargs)
        after_create(stack)
        return stack

    return create_stack


def _wrap_update_stack(original: Any) -> Any:
    @functools.wraps(original)
    def update_stack(self: Any, name: str, *args: Any, **kwargs: Any) -> Any:
        before = deployment_of(self.get_stack(name))
        stack = original(self, name, *args, **kwargs)
        after_update(stack, before)
        return stack

    return update_stack


def _get_param_values(
    self: Any, parameters_list: list[dict[str, str]], existing: dict[str, Any]
) -> dict[str, Any]:
    MissingParameterError = moto_module("moto.cloudformation.exceptions").MissingParameterError

    result: dict[str, Any] = {}
    for parameter in parameters_list:
        key = parameter["ParameterKey"]
        if "ParameterValue" in parameter:
            result[key] = parameter["ParameterValue"]
        elif parameter.get("UsePreviousValue") and key in existing:
            result[key] = existing[key]
        else:
            raise MissingParameterError(key)
    return result


def _wrap_validate_status(original: Any) -> Any:
    @functools.wraps(original)
    def _validate_status(self: Any, stack: Any) -> None:
        # AWS refuses to update a stack while an operation runs on it (moto did not).
        if str(stack.status).endswith("_IN_PROGRESS"):
            message = f"Stack:{stack.stack_id} is in {stack.status} state and can not be updated."
            raise moto_module("moto.cloudformation.exceptions").ValidationError(
                stack.stack_id, message=message
            )
        original(self, stack)

    return _validate_status


def _locked(original: Any) -> Any:
    @functools.wraps(original)
    def call_action(self: Any) -> Any:
        # Sandbox timers (change-set execution, drift detection) change the same
        # moto objects under the sandbox lock; CloudFormation requests take it too.
        with current_state().lock:
            return original(self)

    return call_action


def _parse_ssm_parameter(original: Any) -> Any:
    @functools.wraps(original)
    def parse_ssm_parameter(self: Any, value: str, value_type: str) -> Any:
        if value_type != "AWS::SSM::Parameter::Name":
            return original(self, value, value_type)
        backend = moto_module("moto.ssm.models").ssm_backends[self._account_id][self._region_name]
        if backend.get_parameter(value) is None:
            raise moto_module("moto.cloudformation.exceptions").ValidationError(
                message=f"Parameter {value} of type AWS::SSM::Parameter::Name does not exist"
                " in Systems Manager Parameter Store; create it first or pass an existing name"
            )
        return value

    return parse_ssm_parameter


def _named(properties: dict[str, Any], name: str) -> dict[str, Any]:
    return properties if properties.get("Name") else {**properties, "Name": name}


def _ssm_create(original: Any) -> Any:
    def create_from_cloudformation_json(
        cls: Any, resource_name: str, cloudformation_json: Any, *args: Any, **kwargs: Any
    ) -> Any:
        props = _named(cloudformation_json.get("Properties") or {}, resource_name)
        json_with_name = {**cloudformation_json, "Properties": props}
        return original.__func__(cls, resource_name, json_with_name, *args, **kwargs)

    return classmethod(create_from_cloudformation_json)


def _ssm_update(original: Any) -> Any:
    def update_from_cloudformation_json(
        cls: Any,
        /,
        original_resource: Any,
        new_resource_name: str,
        cloudformation_json: Any,
        **kwargs: Any,
    ) -> Any:
        # A generated name stays across updates (only a new Name replaces the parameter).
        props = _named(cloudformation_json.get("Properties") or {}, original_resource.name)
        json_with_name = {**cloudformation_json, "Properties": props}
        return original.__func__(cls, original_resource, props["Name"], json_with_name, **kwargs)

    return classmethod(update_from_cloudformation_json)


def _syntax_problems(template: str) -> list[Any]:
    """moto's response raises ValidationError with the first problem's ``message``."""
    from types import SimpleNamespace

    from cfnops.templates import TemplateError, parse_template

    try:
        parse_template(template, source="TemplateBody")
    except TemplateError as exc:
        return [SimpleNamespace(message=f"Template format error: {exc}")]
    return []


def _lint_if_installed(validate: Any) -> Any:
    @functools.wraps(validate)
    def validate_template(self: Any, template: str) -> list[Any]:
        if importlib.util.find_spec("cfnlint") is None:  # moto lints with it when present
            return _syntax_problems(template)
        return list(validate(self, template))

    return validate_template


@install_once
def install() -> None:
    """Patch moto's CloudFormation backend and responses (idempotent)."""
    models = moto_module("moto.cloudformation.models")
    responses = moto_module("moto.cloudformation.responses")

    backend = models.CloudFormationBackend
    backend._resolve_update_parameters = _resolve_update_parameters
    backend.create_stack = _wrap_create_stack(backend.create_stack)
    backend.update_stack = _wrap_update_stack(backend.update_stack)
    backend.validate_template = _lint_if_installed(backend.validate_template)
    responses.CloudFormationResponse.call_action = _locked(
        responses.CloudFormationResponse.call_action
    )
    responses.CloudFormationResponse._get_param_values = _get_param_values
    responses.CloudFormationResponse._validate_status = _wrap_validate_status(
        responses.CloudFormationResponse._validate_status
    )
    resource_map = moto_module("moto.cloudformation.parsing").ResourceMap
    resource_map.parse_ssm_parameter = _parse_ssm_parameter(resource_map.parse_ssm_parameter)
    parameter = moto_module("moto.ssm.models").Parameter
    parameter.create_from_cloudformation_json = _ssm_create(
        parameter.__dict__["create_from_cloudformation_json"]
    )
    parameter.update_from_cloudformation_json = _ssm_update(
        parameter.__dict__["update_from_cloudformation_json"]
    )
