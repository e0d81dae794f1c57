"""JSONPath-mode input and output processing: InputPath, Parameters, ResultSelector,
ResultPath, OutputPath, ``.$`` keys, ``$$`` and variables. Pure functions on plain data.

See https://docs.aws.amazon.com/step-functions/latest/dg/input-output-inputpath-params.html
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cfnops.asl._intrinsics import evaluate_call, parse_intrinsic
from cfnops.asl._jsonpath import JsonPath, PathNotFound, parse_path
from cfnops.asl._values import deep_copy, dumps_compact
from cfnops.asl.errors import StatesFailure

__all__ = [
    "PathEnv",
    "StateError",
    "apply_input_path",
    "apply_output_path",
    "apply_result_path",
    "apply_template",
    "resolve",
]


class StateError(StatesFailure):
    """A runtime error raised while evaluating a state's fields.

    The interpreter prefixes ``cause`` with "An error occurred while executing the state …".
    ``location`` names the field (``Arguments/FunctionName``) for EvaluationFailed events.
    """

    def __init__(self, error: str, detail: str, location: str | None = None) -> None:
        super().__init__(error, detail)
        self.detail = detail
        self.location = location


class Scope:
    """Variables visible to a state: its own assignments over a read-only parent snapshot."""

    __slots__ = ("parent", "values")

    def __init__(self, parent: Scope | None = None, values: dict[str, Any] | None = None) -> None:
        self.parent = parent
        self.values: dict[str, Any] = values if values is not None else {}

    def lookup(self, name: str) -> Any:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.values:
                return scope.values[name]
            scope = scope.parent
        raise KeyError(name)

    def flatten(self) -> dict[str, Any]:
        chain: list[Scope] = []
        scope: Scope | None = self
        while scope is not None:
            chain.append(scope)
            scope = scope.parent
        out: dict[str, Any] = {}
        for s in reversed(chain):
            out.update(s.values)
        return out


@dataclass(slots=True)
class PathEnv:
    """What ``$``, ``$$`` and ``$name`` refer to while one field is evaluated."""

    input: Any
    context: Mapping[str, Any]
    variables: Scope


def lookup_path(path: JsonPath, env: PathEnv) -> Any:
    if path.root == "$":
        return path.evaluate(env.input)
    if path.root == "$$":
        return path.evaluate(env.context)
    try:
        root = env.variables.lookup(path.variable)
    except KeyError:
        raise PathNotFound(path.text) from None
    return path.evaluate(root)


def resolve(text: str, env: PathEnv) -> Any:
    """Value of a path text; raises PathNotFound for a definite miss."""
    return lookup_path(parse_path(text), env)


def _missing(path_text: str, field: str, env: PathEnv) -> StateError:
    return StateError(
        "States.Runtime",
        f"The JSONPath '{path_text}' specified for the field '{field}' could not be found "
        f"in the input '{dumps_compact(env.input)}'",
    )


def evaluate_dollar_value(text: str, field: str, env: PathEnv) -> Any:
    """The value of a ``key.$`` entry: a path or an intrinsic function call."""
    if text.startswith("States."):
        call = parse_intrinsic(text)

        def res(p: JsonPath) -> Any:
            try:
                return lookup_path(p, env)
            except PathNotFound:
                raise _missing(p.text, field, env) from None

        return evaluate_call(call, res)
    try:
        return resolve(text, env)
    except PathNotFound:
        raise _missing(text, field, env) from None


def apply_template(template: Any, env: PathEnv) -> Any:
    """Parameters / ResultSelector / ItemSelector: resolve every ``.$`` key, recursively."""
    if isinstance(template, dict):
        out: dict[str, Any] = {}
        for key, value in template.items():
            if key.endswith(".$") and isinstance(value, str):
                out[key[:-2]] = deep_copy(evaluate_dollar_value(value, key, env))
            else:
                out[key] = apply_template(value, env)
        return out
    if isinstance(template, list):
        return [apply_template(v, env) for v in template]
    return template


def invalid_path(text: str) -> StateError:
    """The Step Functions error for a path that selects nothing (InputPath, OutputPath …)."""
    try:
        bracket = parse_path(text).bracket_notation()
    except ValueError:
        bracket = text
    return StateError("States.Runtime", f"Invalid path '{text}' : No results for path: {bracket}")


def apply_input_path(value: Any, path: str | None, env: PathEnv, *, present: bool) -> Any:
    """InputPath: absent means ``$``; null means ``{}``."""
    if not present or path == "$":
        return value
    if path is None:
        return {}
    try:
        return resolve(path, env)
    except PathNotFound:
        raise invalid_path(path) from None


def apply_output_path(value: Any, path: str | None, env: PathEnv, *, present: bool) -> Any:
    """OutputPath: absent means ``$``; null means ``{}``."""
    if not present or path == "$":
        return value
    if path is None:
        return {}
    try:
        return lookup_path(parse_path(path), PathEnv(value, env.context, env.variables))
    except PathNotFound:
        raise invalid_path(path) from None


def apply_result_path(state_input: Any, result: Any, path: str | None, *, present: bool) -> Any:
    """ResultPath: absent means ``$`` (result replaces input); null discards the result."""
    if not present or path == "$":
        return result
    if path is None:
        return state_input
    parsed = parse_path(path)
    if parsed.root != "$" or not parsed.definite:
        raise StateError("States.Runtime", f"Invalid ResultPath '{path}'")
    if not parsed.steps:
        return result
    out = deep_copy(state_input)
    if not isinstance(out, dict):
        raise StateError(
            "States.Runtime",
            f"Unable to apply ResultPath '{path}' to input '{dumps_compact(state_input)}'",
        )
    cur: Any = out
    for step in parsed.steps[:-1]:
        if step.kind == "name":
            nxt = cur.get(step.name) if isinstance(cur, dict) else None
            if not isinstance(nxt, dict | list):
                nxt = {}
                cur[step.name] = nxt
            cur = nxt
        else:
            if not isinstance(cur, list) or not -len(cur) <= step.index < len(cur):
                raise StateError("States.Runtime", f"Unable to apply ResultPath '{path}'")
            cur = cur[step.index]
    last = parsed.steps[-1]
    if last.kind == "name" and isinstance(cur, dict):
        cur[last.name] = result
    elif last.kind == "index" and isinstance(cur, list) and -len(cur) <= last.index < len(cur):
        cur[last.index] = result
    else:
        raise StateError("States.Runtime", f"Unable to apply ResultPath '{path}'")
    return out


def evaluate_assign_jsonpath(assign: Mapping[str, Any], env: PathEnv) -> dict[str, Any]:
    """JSONPath-mode ``Assign``: keys ending ``.$`` take a path/intrinsic, others literals."""
    out: dict[str, Any] = {}
    for key, value in assign.items():
        if key.endswith(".$") and isinstance(value, str):
            out[key[:-2]] = deep_copy(evaluate_dollar_value(value, key, env))
        else:
            out[key] = apply_template(value, env)
    return out
