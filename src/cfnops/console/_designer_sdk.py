"""AWS SDK integrations for the designer's form: services, operations and parameters.

Read from botocore's service models (shipped with botocore; no network). Step
Functions names a service as the AWS SDK for Java v2 client does, lowercased with
no dashes (``elasticloadbalancingv2`` for ``elbv2``), and an action in camelCase
("AWS SDK service integrations",
https://docs.aws.amazon.com/step-functions/latest/dg/supported-services-awssdk.html);
the parameters are the API's own PascalCase members.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import botocore.session
from botocore.exceptions import UnknownServiceError

from cfnops.console.errors import BadFilter

__all__ = ["sdk_operation", "sdk_operations", "sdk_services"]

# boto3 name → Step Functions name, where dropping the dashes is not enough.
_SFN_NAMES = {
    "stepfunctions": "sfn",
    "events": "eventbridge",
    "logs": "cloudwatchlogs",
    "elbv2": "elasticloadbalancingv2",
    "elb": "elasticloadbalancing",
}


@lru_cache(maxsize=1)
def _session() -> Any:
    return botocore.session.get_session()


@lru_cache(maxsize=1)
def _by_sfn_name() -> dict[str, str]:
    out: dict[str, str] = {}
    for name in _session().get_available_services():
        out.setdefault(_SFN_NAMES.get(name, name.replace("-", "")), name)
    return out


def sdk_services() -> list[str]:
    """Every service as Step Functions names it, sorted."""
    return sorted(_by_sfn_name())


@lru_cache(maxsize=64)
def _model(service: str) -> Any:
    name = _by_sfn_name().get(service.lower())
    if name is None:
        raise BadFilter("service", service, "an AWS service name from the list (ec2, ssm, rds…)")
    try:
        return _session().get_service_model(name)
    except UnknownServiceError:
        raise BadFilter("service", service, "a service botocore knows") from None


def _camel(operation: str) -> str:
    return operation[:1].lower() + operation[1:]


def sdk_operations(service: str) -> list[str]:
    """The service's actions in camelCase (``describeInstances``)."""
    return sorted(_camel(op) for op in _model(service).operation_names)


def _type_of(shape: Any) -> str:
    if shape.type_name == "list":
        return f"list of {_type_of(shape.member)}"
    return str(shape.type_name)


def sdk_operation(service: str, action: str) -> dict[str, Any]:
    """The action's resource ARN and its top-level parameters (name, type, required)."""
    model = _model(service)
    op = next((o for o in model.operation_names if o.lower() == action.lower()), None)
    if op is None:
        raise BadFilter("action", action, f"an action of {service} (pick one from the list)")
    shape = model.operation_model(op).input_shape
    required = set(shape.required_members) if shape is not None else set()
    members = shape.members.items() if shape is not None else []
    params = [
        {"name": name, "type": _type_of(member), "required": name in required}
        for name, member in members
    ]
    params.sort(key=lambda p: (not p["required"], p["name"]))
    return {
        "service": service.lower(),
        "action": _camel(op),
        "resource": f"arn:aws:states:::aws-sdk:{service.lower()}:{_camel(op)}",
        "parameters": params,
    }
