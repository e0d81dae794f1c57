"""TestState's ``mock.fieldValidationMode`` for AWS SDK integrations, on botocore's models.

The API reference (https://docs.aws.amazon.com/step-functions/latest/apireference/API_MockInput.html):
``STRICT`` (the default): all required fields must be present and all present fields must
conform to the API's schema; ``PRESENT``: present fields must conform; ``NONE``: no check.
Checked here for ``arn:aws:states:::aws-sdk:SERVICE:action`` Tasks whose service and
operation botocore knows (others pass unchecked): member names, required members and JSON
types, recursively.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["mock_problem"]

_PREFIX = "arn:aws:states:::aws-sdk:"
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "timestamp": (str, int, float), "blob": (str,),
    "integer": (int,), "long": (int,), "double": (int, float), "float": (int, float),
    "boolean": (bool,), "list": (list,), "map": (dict,), "structure": (dict,),
}  # fmt: skip


def _state(request: dict[str, Any]) -> dict[str, Any]:
    definition = json.loads(request["definition"])
    if isinstance(definition, dict) and "States" in definition:
        name = request.get("stateName") or definition.get("StartAt")
        found = definition["States"].get(name, {})
        return found if isinstance(found, dict) else {}
    return definition if isinstance(definition, dict) else {}


def _check(value: Any, shape: Any, where: str, strict: bool) -> str | None:
    kind = shape.type_name
    allowed = _TYPES.get(kind, (object,))
    if isinstance(value, bool) and bool not in allowed:
        return f"{where} must be {kind}, not boolean"
    if not isinstance(value, allowed):
        return f"{where} must be {kind}, not {type(value).__name__}"
    data: Any = value  # narrowed by the tuple check above
    if kind == "structure":
        for key, item in data.items():
            if key not in shape.members:
                return f"{where}.{key} is not a field of {shape.name}"
            problem = _check(item, shape.members[key], f"{where}.{key}", strict)
            if problem:
                return problem
        if strict:
            missing = [m for m in shape.required_members if m not in data]
            if missing:
                return f"{where} lacks the required field {missing[0]}"
    if kind == "list":
        for i, item in enumerate(data):
            problem = _check(item, shape.member, f"{where}[{i}]", strict)
            if problem:
                return problem
    return None


def mock_problem(request: dict[str, Any]) -> str | None:
    """Why ``mock.result`` does not fit the AWS SDK operation's output (None: it fits)."""
    mock = request.get("mock")
    if not isinstance(mock, dict) or "result" not in mock:
        return None
    mode = mock.get("fieldValidationMode") or "STRICT"
    resource = str(_state(request).get("Resource", ""))
    if mode == "NONE" or not resource.startswith(_PREFIX):
        return None
    service, _, action = resource[len(_PREFIX) :].partition(":")
    action = action.split(".", 1)[0]
    import botocore.session
    from botocore.exceptions import UnknownServiceError

    try:
        model = botocore.session.get_session().get_service_model(service)
    except UnknownServiceError:
        return None
    operation = action[:1].upper() + action[1:]
    if operation not in model.operation_names:
        return None
    output = model.operation_model(operation).output_shape
    if output is None:
        return None
    result = json.loads(mock["result"])
    problem = _check(result, output, "mock.result", strict=mode == "STRICT")
    if problem is None:
        return None
    return f"{problem} ({service}:{action} output, fieldValidationMode {mode})"
