"""What a mocked test case expects, and the check of a run against it.

Expectations sit in the mock configuration under a top-level ``cfnops`` key (Step
Functions Local reads only ``StateMachines`` and ``MockedResponses``), or in a side file
of the same shape::

    {"cfnops": {"StateMachines": {"webapp-stop": {"TestCases": {"HappyPath": {
        "input": {...},                         # the execution input (default {})
        "status": "SUCCEEDED",                  # SUCCEEDED | FAILED | TIMED_OUT | ABORTED
        "error": "…", "cause": "…",             # exact, for a failed run
        "output": {...},                        # the whole output (JSON equality)
        "outputIncludes": {...},                # a subset of the output's objects
        "outputPaths": {"$.report.ok": true},   # JSONPath ($.a.b[0]) → value
        "states": ["Init", "…"],                # every state entered, in order
        "statesInclude": ["StopCluster", "…"],  # these, in this order, others between
        "taskCalls": {"StopApache": 3}          # Task calls (attempts) per state
    }}, "Input": {...}}}}}                      # the input of cases that give none

Values compare as JSON: object key order is ignored, ``1 == 1.0``, booleans are never
numbers.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cfnops.jobs.errors import MockConfigError

__all__ = ["Expectation", "check_expectation", "parse_expectations"]

_KEYS = (
    "input",
    "status",
    "error",
    "cause",
    "output",
    "outputIncludes",
    "outputPaths",
    "states",
    "statesInclude",
    "taskCalls",
)
_STATUSES = ("SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED")
_MISSING = object()


@dataclass(frozen=True)
class Expectation:
    """One test case's expectations (every field optional)."""

    fields: Mapping[str, Any]

    @property
    def input(self) -> Any:
        return self.fields.get("input", {})


def parse_expectations(data: Any, where: str) -> dict[str, dict[str, Expectation]]:
    """``{"StateMachines": {M: {"TestCases": {C: {...}}}}}`` (or under ``cfnops``) → M → C."""
    if isinstance(data, Mapping) and "cfnops" in data:
        data, where = data["cfnops"], f"{where}: cfnops"
    if not isinstance(data, Mapping) or not isinstance(data.get("StateMachines"), Mapping):
        raise MockConfigError(where, "has no StateMachines object of expectations")
    out: dict[str, dict[str, Expectation]] = {}
    for machine, body in data["StateMachines"].items():
        cases = body.get("TestCases") if isinstance(body, Mapping) else None
        if not isinstance(cases, Mapping):
            raise MockConfigError(f"{where}.StateMachines.{machine}", "has no TestCases object")
        out[machine] = {}
        default_input = body.get("Input", {})
        for case, fields in cases.items():
            here = f"{where}.StateMachines.{machine}.TestCases.{case}"
            exp = _expectation(fields, here)
            if "input" not in exp.fields:
                exp = Expectation({**exp.fields, "input": default_input})
            out[machine][case] = exp
    return out


def _expectation(fields: Any, where: str) -> Expectation:
    if not isinstance(fields, Mapping):
        raise MockConfigError(where, "is not an object")
    unknown = sorted(set(fields) - set(_KEYS))
    if unknown:
        raise MockConfigError(where, f"has unknown keys {unknown}: use {', '.join(_KEYS)}")
    if "status" in fields and fields["status"] not in _STATUSES:
        raise MockConfigError(f"{where}.status", f"must be one of {', '.join(_STATUSES)}")
    for key in ("states", "statesInclude"):
        states = fields.get(key, [])
        if not isinstance(states, list) or not all(isinstance(s, str) for s in states):
            raise MockConfigError(f"{where}.{key}", "must be a list of state names")
    calls = fields.get("taskCalls", {})
    if not isinstance(calls, Mapping) or not all(
        isinstance(n, int) and not isinstance(n, bool) for n in calls.values()
    ):
        raise MockConfigError(f"{where}.taskCalls", "must map state names to call counts")
    paths = fields.get("outputPaths", {})
    if not isinstance(paths, Mapping) or not all(_PATH.fullmatch(p) for p in paths):
        raise MockConfigError(f"{where}.outputPaths", "must map JSONPaths ($.a.b[0]) to values")
    return Expectation(dict(fields))


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: key order ignored, 1 == 1.0, booleans never equal numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return float(a) == float(b)
    if isinstance(a, dict):
        return (
            isinstance(b, dict) and a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
        )
    if isinstance(a, list):
        return (
            isinstance(b, list)
            and len(a) == len(b)
            and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
        )
    return type(a) is type(b) and bool(a == b)


def _includes(want: Any, got: Any) -> bool:
    if isinstance(want, dict):
        return isinstance(got, dict) and all(
            k in got and _includes(v, got[k]) for k, v in want.items()
        )
    return json_equal(want, got)


_PATH = re.compile(r"\$(?:\.[A-Za-z_$][\w$-]*|\[\d+\]|\['[^']*'\])*")
_STEP = re.compile(r"\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['([^']*)'\]")


def _at(value: Any, path: str) -> Any:
    for m in _STEP.finditer(path[1:]):
        key, index, quoted = m.groups()
        if index is not None:
            if not isinstance(value, list) or int(index) >= len(value):
                return _MISSING
            value = value[int(index)]
        else:
            name = key if key is not None else quoted
            if not isinstance(value, dict) or name not in value:
                return _MISSING
            value = value[name]
    return value


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def states_diff(want: Sequence[str], got: Sequence[str]) -> str:
    """A unified diff of the expected and the visited states, one state a line."""
    lines = difflib.unified_diff(list(want), list(got), "expected", "visited", lineterm="", n=2)
    return "\n".join(lines)


def check_expectation(
    exp: Expectation,
    *,
    status: str,
    output: Any,
    error: str | None,
    cause: str | None,
    states: Sequence[str],
    calls: Mapping[str, int] | None = None,
) -> list[str]:
    """The ways the run differs from what the case expects (empty: it passed)."""
    f = exp.fields
    problems: list[str] = []
    if "status" in f and f["status"] != status:
        detail = f" ({error}: {cause})" if error else ""
        problems.append(f"status: expected {f['status']}, got {status}{detail}")
    for key, got in (("error", error), ("cause", cause)):
        if key in f and f[key] != got:
            problems.append(f"{key}: expected {f[key]!r}, got {got!r}")
    problems += _output_problems(f, output)
    if "states" in f and list(f["states"]) != list(states):
        problems.append("visited states differ:\n" + states_diff(f["states"], states))
    if "statesInclude" in f and not _subsequence(f["statesInclude"], states):
        problems.append(
            f"visited states do not include {' → '.join(f['statesInclude'])} in that order:\n"
            + states_diff(f["statesInclude"], states)
        )
    for state, want_calls in f.get("taskCalls", {}).items():
        got_calls = (calls or {}).get(state, 0)
        if got_calls != want_calls:
            problems.append(f"task calls of {state!r}: expected {want_calls}, got {got_calls}")
    return problems


def _output_problems(f: Mapping[str, Any], output: Any) -> list[str]:
    """How the run's output differs from ``output``, ``outputIncludes``, ``outputPaths``."""
    problems: list[str] = []
    if "output" in f and not json_equal(f["output"], output):
        problems.append(f"output: expected {_text(f['output'])}, got {_text(output)}")
    if "outputIncludes" in f and not _includes(f["outputIncludes"], output):
        problems.append(f"output does not include {_text(f['outputIncludes'])}: {_text(output)}")
    for path, want in f.get("outputPaths", {}).items():
        got = _at(output, path)
        if got is _MISSING:
            problems.append(f"output {path}: missing (expected {_text(want)})")
        elif not json_equal(want, got):
            problems.append(f"output {path}: expected {_text(want)}, got {_text(got)}")
    return problems


def _subsequence(want: Sequence[str], got: Sequence[str]) -> bool:
    it = iter(got)
    return all(any(name == seen for seen in it) for name in want)
