"""``arn:aws:states:::aws-sdk:<service>:<apiAction>``: any AWS API through boto3.

Follows "Learning to use AWS service SDK integrations in Step Functions"
(https://docs.aws.amazon.com/step-functions/latest/dg/supported-services-awssdk.html):
parameters are PascalCase as the API spells them; the action is camelCase; an error is
``<Service>.<ErrorName>`` with both parts in PascalCase and an ``Exception`` suffix added
when the service's own code lacks one (``S3.BucketAlreadyExistsException``).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import botocore.exceptions as bex
from botocore import xform_name

from cfnops.asl.errors import TaskFailure
from cfnops.aws import AwsClients, error_code, error_message

if TYPE_CHECKING:
    from botocore.client import BaseClient

__all__ = ["boto3_service", "call_aws_sdk", "sfn_error_name", "sfn_service_name"]

# Step Functions' service names (AWS SDK for Java v2 client names, lowercased) that do not
# match a boto3 service name once dashes are dropped.
SERVICE_ALIASES = {
    "sfn": "stepfunctions",
    "eventbridge": "events",
    "cloudwatchlogs": "logs",
    "elasticloadbalancingv2": "elbv2",
    "elasticloadbalancing": "elb",
    "cloudwatchevents": "events",
}
_known: dict[str, str] = {}


def boto3_service(sfn_service: str, clients: AwsClients) -> str:
    """The boto3 service name for a Step Functions SDK service name (``ec2``, ``sfn`` …)."""
    name = sfn_service.lower()
    if name in SERVICE_ALIASES:
        return SERVICE_ALIASES[name]
    if not _known:
        for svc in clients.session.get_available_services():
            _known.setdefault(svc.replace("-", ""), svc)
    found = _known.get(name)
    if found is None:
        raise TaskFailure(
            "States.Runtime", f"The AWS SDK service '{sfn_service}' is not supported by cfnops."
        )
    return found


def sfn_service_name(client: BaseClient) -> str:
    """The PascalCase service prefix of error names: ``Ec2``, ``AcmPca``, ``Rds``."""
    service_id = str(client.meta.service_model.service_id)
    return "".join(word[:1].upper() + word[1:].lower() for word in re.split(r"[\s\-]+", service_id))


def sfn_error_name(service: str, code: str) -> str:
    """``Ec2`` + ``InvalidInstanceID.NotFound`` → ``Ec2.InvalidInstanceIDNotFoundException``."""
    parts = [p for p in re.split(r"[.\s]", code) if p]
    name = "".join(p[:1].upper() + p[1:] for p in parts) or "Unknown"
    if not name.endswith("Exception"):
        name += "Exception"
    return f"{service}.{name}"


def _operation(client: BaseClient, action: str) -> str:
    wanted = action.lower()
    for op in client.meta.service_model.operation_names:
        if op.lower() == wanted:
            return str(op)
    raise TaskFailure(
        "States.Runtime",
        f"The API action '{action}' is not available for the service "
        f"'{client.meta.service_model.service_name}'.",
    )


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode()
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if hasattr(value, "read"):  # streaming body
        return value.read().decode("utf-8", "replace")
    return value


def _parameters(payload: Any) -> dict[str, Any]:
    if payload is None:
        return {}
    if not isinstance(payload, Mapping):
        raise TaskFailure("States.Runtime", "The AWS SDK task parameters must be a JSON object.")

    def fix(value: Any) -> Any:
        # "EqualsValue" stands for an API field named "Equals" (naming conventions note).
        if isinstance(value, Mapping):
            return {("Equals" if k == "EqualsValue" else k): fix(v) for k, v in value.items()}
        if isinstance(value, list):
            return [fix(v) for v in value]
        return value

    return dict(fix(payload))


def call_aws_sdk(clients: AwsClients, service: str, action: str, payload: Any) -> Any:
    """Call ``service:action`` with PascalCase parameters; the JSON response or TaskFailure."""
    client = clients.client(boto3_service(service, clients))
    op = _operation(client, action)
    params = _parameters(payload)
    prefix = sfn_service_name(client)
    try:
        response = getattr(client, xform_name(op))(**params)
    except bex.ParamValidationError as exc:
        raise TaskFailure(f"{prefix}.ValidationException", str(exc).replace("\n", " ")) from None
    except bex.ClientError as exc:
        meta = exc.response.get("ResponseMetadata", {})
        code = error_code(exc, "Unknown")
        cause = (
            f"{error_message(exc, code)} (Service: {prefix}, Status Code: "
            f"{meta.get('HTTPStatusCode', 400)}, Request ID: {meta.get('RequestId', '')})"
        )
        raise TaskFailure(sfn_error_name(prefix, code), cause) from None
    except bex.BotoCoreError as exc:
        raise TaskFailure("States.TaskFailed", f"{type(exc).__name__}: {exc}") from None
    response = dict(response)
    response.pop("ResponseMetadata", None)
    return _jsonable(response)
