"""Pass, Choice, Wait, Succeed and Fail: the states without side effects (besides waiting).

See https://docs.aws.amazon.com/step-functions/latest/dg/concepts-states.html
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from cfnops.asl import _jsonata
from cfnops.asl._choice import evaluate_rule
from cfnops.asl._dataflow import (
    PathEnv,
    StateError,
    apply_input_path,
    apply_output_path,
    apply_result_path,
    apply_template,
    evaluate_assign_jsonpath,
    evaluate_dollar_value,
    resolve,
)
from cfnops.asl._engine import Branch, StateOutcome, handler
from cfnops.asl._jsonata_fields import (
    JsonataEnv,
    evaluate_assign,
    evaluate_field,
    evaluate_integer,
)
from cfnops.asl._jsonpath import PathNotFound
from cfnops.asl._timestamps import parse_timestamp
from cfnops.asl._values import deep_copy
from cfnops.asl.errors import StatesFailure

__all__: list[str] = []

_MAX_WAIT_SECONDS = 2**31 - 1


def _next(state: Mapping[str, Any]) -> str | None:
    return None if state.get("End") else state.get("Next")


def jsonpath_env(branch: Branch, value: Any, ctx: dict[str, Any]) -> PathEnv:
    return PathEnv(value, ctx, branch.scope)


def jsonata_env(branch: Branch, value: Any, ctx: dict[str, Any], **extra: Any) -> JsonataEnv:
    states: dict[str, Any] = {"input": value, "context": ctx}
    states.update(extra)
    return JsonataEnv(states, branch.scope)


def jsonpath_output(
    state: Mapping[str, Any], raw: Any, result: Any, ctx: dict[str, Any], branch: Branch
) -> Any:
    """ResultPath then OutputPath (JSONPath mode)."""
    out = apply_result_path(raw, result, state.get("ResultPath"), present="ResultPath" in state)
    return apply_output_path(
        out, state.get("OutputPath"), jsonpath_env(branch, out, ctx),
        present="OutputPath" in state,
    )  # fmt: skip


@handler("Pass")
def _pass(
    branch: Branch, name: str, state: Mapping[str, Any], raw: Any, ctx: dict[str, Any]
) -> StateOutcome:
    if branch.query_language_of(state) == "JSONata":
        env = jsonata_env(branch, raw, ctx)
        assigned = evaluate_assign(state["Assign"], env) if "Assign" in state else None
        output = evaluate_field(state["Output"], env, "Output") if "Output" in state else raw
        return StateOutcome(_next(state), output, assigned)
    env0 = jsonpath_env(branch, raw, ctx)
    effective = apply_input_path(raw, state.get("InputPath"), env0, present="InputPath" in state)
    if "Parameters" in state:
        result = apply_template(state["Parameters"], jsonpath_env(branch, effective, ctx))
    elif "Result" in state:
        result = deep_copy(state["Result"])
    else:
        result = effective
    assigned = None
    if "Assign" in state:
        assigned = evaluate_assign_jsonpath(state["Assign"], jsonpath_env(branch, result, ctx))
    return StateOutcome(_next(state), jsonpath_output(state, raw, result, ctx, branch), assigned)


@handler("Succeed")
def _succeed(
    branch: Branch, name: str, state: Mapping[str, Any], raw: Any, ctx: dict[str, Any]
) -> StateOutcome:
    if branch.query_language_of(state) == "JSONata":
        env = jsonata_env(branch, raw, ctx)
        output = evaluate_field(state["Output"], env, "Output") if "Output" in state else raw
        return StateOutcome(None, output)
    env0 = jsonpath_env(branch, raw, ctx)
    effective = apply_input_path(raw, state.get("InputPath"), env0, present="InputPath" in state)
    output = apply_output_path(
        effective, state.get("OutputPath"), env0, present="OutputPath" in state
    )
    return StateOutcome(None, output)


@handler("Fail")
def _fail(
    branch: Branch, name: str, state: Mapping[str, Any], raw: Any, ctx: dict[str, Any]
) -> StateOutcome:
    if branch.query_language_of(state) == "JSONata":
        env = jsonata_env(branch, raw, ctx)
        error = evaluate_field(state["Error"], env, "Error") if "Error" in state else None
        cause = evaluate_field(state["Cause"], env, "Cause") if "Cause" in state else None
        raise StatesFailure(_as_text(error), _as_text(cause))
    env0 = jsonpath_env(branch, raw, ctx)
    error = state.get("Error")
    cause = state.get("Cause")
    if "ErrorPath" in state:
        error = evaluate_dollar_value(state["ErrorPath"], "ErrorPath", env0)
    if "CausePath" in state:
        cause = evaluate_dollar_value(state["CausePath"], "CausePath", env0)
    raise StatesFailure(_as_text(error), _as_text(cause))


def _as_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return _jsonata_json(value)


def _jsonata_json(value: Any) -> str:
    import json

    return json.dumps(value, separators=(",", ":"))


@handler("Choice")
def _choice(
    branch: Branch, name: str, state: Mapping[str, Any], raw: Any, ctx: dict[str, Any]
) -> StateOutcome:
    if branch.query_language_of(state) == "JSONata":
        env = jsonata_env(branch, raw, ctx)
        for i, rule in enumerate(state.get("Choices", [])):
            location = f"Choices/{i}/Condition"
            if _condition(rule["Condition"], env, location):
                return _choice_outcome(rule["Next"], rule, state, env, raw)
        if "Default" not in state:
            raise StatesFailure("States.NoChoiceMatched", "No Matches!")
        return _choice_outcome(state["Default"], state, state, env, raw)
    env0 = jsonpath_env(branch, raw, ctx)
    effective = apply_input_path(raw, state.get("InputPath"), env0, present="InputPath" in state)
    env1 = jsonpath_env(branch, effective, ctx)

    def lookup(path: str) -> Any:
        return resolve(path, env1)

    target: str | None = None
    source: Mapping[str, Any] = state
    for rule in state.get("Choices", []):
        try:
            matched = evaluate_rule(rule, lookup)
        except PathNotFound as exc:
            raise StateError(
                "States.Runtime",
                f"Invalid path '{exc.path}': The choice state's condition path references "
                "an invalid value.",
            ) from None
        if matched:
            target, source = rule["Next"], rule
            break
    if target is None:
        if "Default" not in state:
            raise StatesFailure("States.NoChoiceMatched", "No Matches!")
        target = state["Default"]
    assigned = None
    if "Assign" in source:
        assigned = evaluate_assign_jsonpath(source["Assign"], env1)
    output = apply_output_path(
        effective, state.get("OutputPath"), env1, present="OutputPath" in state
    )
    return StateOutcome(target, output, assigned)


def _condition(expr: Any, env: JsonataEnv, location: str) -> bool:
    value = evaluate_field(expr, env, location) if _jsonata.is_expression(expr) else expr
    if not isinstance(value, bool):
        text = _jsonata.expression_of(expr) if isinstance(expr, str) else expr
        raise StateError(
            "States.QueryEvaluationError",
            f"The JSONata expression '{text}'"
            f" specified for the field '{location}' returned an unexpected result type. "
            f"Expected 'boolean', but was '{type(value).__name__}' for value: {value}",
            location,
        )
    return value


def _choice_outcome(
    target: str, source: Mapping[str, Any], state: Mapping[str, Any], env: JsonataEnv, raw: Any
) -> StateOutcome:
    assigned = evaluate_assign(source["Assign"], env) if "Assign" in source else None
    output = evaluate_field(source["Output"], env, "Output") if "Output" in source else raw
    return StateOutcome(target, output, assigned)


@handler("Wait")
def _wait(
    branch: Branch, name: str, state: Mapping[str, Any], raw: Any, ctx: dict[str, Any]
) -> StateOutcome:
    now = branch.execution.clock.now()
    if branch.query_language_of(state) == "JSONata":
        env = jsonata_env(branch, raw, ctx)
        assigned = evaluate_assign(state["Assign"], env) if "Assign" in state else None
        _do_wait(branch, _jsonata_delay(state, env, now))
        output = evaluate_field(state["Output"], env, "Output") if "Output" in state else raw
        return StateOutcome(_next(state), output, assigned)
    env0 = jsonpath_env(branch, raw, ctx)
    effective = apply_input_path(raw, state.get("InputPath"), env0, present="InputPath" in state)
    env1 = jsonpath_env(branch, effective, ctx)
    delay = _jsonpath_delay(state, env1, now)
    assigned = None
    if "Assign" in state:
        assigned = evaluate_assign_jsonpath(state["Assign"], env1)
    _do_wait(branch, delay)
    output = apply_output_path(
        effective, state.get("OutputPath"), env1, present="OutputPath" in state
    )
    return StateOutcome(_next(state), output, assigned)


def _jsonata_delay(state: Mapping[str, Any], env: JsonataEnv, now: datetime) -> float:
    """The seconds a JSONata Wait state waits from ``now`` (its Seconds or Timestamp)."""
    if "Seconds" in state:
        seconds = evaluate_integer(state["Seconds"], env, "Seconds")
        if seconds < 0:
            raise StateError(
                "States.QueryEvaluationError",
                f"The Seconds field must be a non-negative integer: {seconds}",
                "Seconds",
            )
        return float(seconds)
    text = evaluate_field(state["Timestamp"], env, "Timestamp")
    moment = parse_timestamp(text)
    if moment is None:
        raise StateError(
            "States.QueryEvaluationError",
            "The Timestamp field cannot be parsed as an ISO-8601 extended offset "
            f"date-time format string: {text}",
            "Timestamp",
        )
    return (moment - now).total_seconds()


def _jsonpath_delay(state: Mapping[str, Any], env: PathEnv, now: datetime) -> float:
    """The seconds a JSONPath Wait state waits from ``now``: Seconds, SecondsPath,
    Timestamp or TimestampPath (``env`` holds the effective input)."""
    if "Seconds" in state:
        return float(state["Seconds"])
    if "SecondsPath" in state:
        return _seconds_path(state["SecondsPath"], env)
    if "Timestamp" in state:
        moment = parse_timestamp(state["Timestamp"])
        return (moment - now).total_seconds() if moment else 0.0
    return (_timestamp_path(state["TimestampPath"], env) - now).total_seconds()


def _seconds_path(path: str, env: PathEnv) -> float:
    try:
        value = resolve(path, env)
    except PathNotFound:
        raise StateError(
            "States.Runtime",
            f"The SecondsPath parameter does not reference an input value: {path}",
        ) from None
    if not _is_long(value):
        raise StateError(
            "States.Runtime",
            f"The SecondsPath parameter cannot be parsed as a long value: {path} == "
            f"{_jsonata_json(value)}",
        )
    if value < 0:
        raise StateError(
            "States.Runtime",
            f"The SecondsPath parameter references a negative value: {path} == {value}",
        )
    return float(value)


def _timestamp_path(path: str, env: PathEnv) -> datetime:
    try:
        value = resolve(path, env)
    except PathNotFound:
        raise StateError(
            "States.Runtime",
            f"The TimestampPath parameter does not reference an input value: {path}",
        ) from None
    moment = parse_timestamp(value)
    if moment is None:
        raise StateError(
            "States.Runtime",
            "The TimestampPath parameter does not reference a valid ISO-8601 extended "
            f"offset date-time format string: {path} == {value}",
        )
    return moment


def _is_long(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _do_wait(branch: Branch, delay: float) -> None:
    if delay > _MAX_WAIT_SECONDS:
        raise StateError("States.Runtime", "Wait state delay is too long.")
    branch.sleep(delay)
