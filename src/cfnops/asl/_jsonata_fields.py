"""JSONata-mode fields (Arguments, Output, Assign, Items, Seconds …): ``{% … %}`` strings
inside any JSON structure, evaluated with ``$states`` and the visible variables.

See https://docs.aws.amazon.com/step-functions/latest/dg/transforming-data.html
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cfnops.asl import _jsonata
from cfnops.asl._dataflow import Scope, StateError
from cfnops.asl._values import dumps_compact, json_type_name

__all__ = ["JsonataEnv", "evaluate_field", "evaluate_template"]


class JsonataEnv:
    """Bindings for one state's JSONata evaluations: ``$states`` plus variables."""

    __slots__ = ("states", "variables")

    def __init__(self, states: dict[str, Any], variables: Scope) -> None:
        self.states = states
        self.variables = variables

    def bindings(self) -> dict[str, Any]:
        b = self.variables.flatten()
        b["states"] = self.states
        return b


def _query_error(detail: str, location: str) -> StateError:
    return StateError("States.QueryEvaluationError", detail, location)


def evaluate_expression(expr: str, env: JsonataEnv, location: str) -> Any:
    """Evaluate ``{% expr %}`` text (without the braces); undefined stays UNDEFINED."""
    try:
        return _jsonata.evaluate(expr, env.bindings())
    except _jsonata.UnsupportedResult:
        raise _query_error(
            f"The JSONata expression '{expr}' specified for the field '{location}' returned "
            "an unsupported result type.",
            location,
        ) from None
    except _jsonata.JsonataError as exc:
        raise _query_error(
            f"The JSONata expression '{expr}' specified for the field '{location}' threw an "
            f"error during evaluation. {exc}",
            location,
        ) from None


def evaluate_field(value: Any, env: JsonataEnv, location: str) -> Any:
    """Evaluate one field's value: an expression string or a structure containing them."""
    if _jsonata.is_expression(value):
        expr = _jsonata.expression_of(value)
        result = evaluate_expression(expr, env, location)
        if result is _jsonata.UNDEFINED:
            raise _query_error(
                f"The JSONata expression '{expr}' specified for the field '{location}' "
                "returned nothing (undefined).",
                location,
            )
        return result
    if isinstance(value, dict):
        return {k: evaluate_field(v, env, f"{location}/{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [evaluate_field(v, env, f"{location}/{i}") for i, v in enumerate(value)]
    return value


def evaluate_template(value: Any, env: JsonataEnv, location: str) -> Any:
    return evaluate_field(value, env, location)


def evaluate_assign(assign: Mapping[str, Any], env: JsonataEnv) -> dict[str, Any]:
    return {k: evaluate_field(v, env, f"Assign/{k}") for k, v in assign.items()}


def expect_type(value: Any, expected: str, expr: str, location: str) -> None:
    """Raise the Step Functions error for a result of the wrong JSON type."""
    got = json_type_name(value)
    if got != expected:
        raise _query_error(
            f"The JSONata expression '{expr}' specified for the field '{location}' returned an "
            f"unexpected result type. Expected '{expected}', but was '{got}' for value: "
            f"{dumps_compact(value)}",
            location,
        )


def evaluate_integer(value: Any, env: JsonataEnv, location: str) -> int:
    """A JSONata field that must yield an integer (Seconds, TimeoutSeconds …)."""
    result = evaluate_field(value, env, location)
    if not isinstance(result, int | float) or isinstance(result, bool):
        expr = _jsonata.expression_of(value) if _jsonata.is_expression(value) else str(value)
        expect_type(result, "number", expr, location)
    if isinstance(result, float) and not result.is_integer():
        raise _query_error(
            f"The {location} field cannot be parsed as an integer: {result}", location
        )
    return int(result)
