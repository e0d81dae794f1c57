"""Choice rules: pure evaluation of JSONPath-mode comparison rules.

See https://docs.aws.amazon.com/step-functions/latest/dg/state-choice.html
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from cfnops.asl._jsonpath import PathNotFound
from cfnops.asl._timestamps import parse_timestamp

__all__ = ["COMPARISON_OPERATORS", "evaluate_rule"]

Resolve = Callable[[str], Any]
"""Resolves a path text (``$.x``, ``$$.x`` or ``$var``); raises PathNotFound when absent."""


def _num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _str_cmp(op: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    return lambda a, b: isinstance(a, str) and isinstance(b, str) and op(a, b)


def _num_cmp(op: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    return lambda a, b: _num(a) and _num(b) and op(a, b)


def _ts_cmp(op: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    def cmp(a: Any, b: Any) -> bool:
        ta, tb = parse_timestamp(a), parse_timestamp(b)
        return ta is not None and tb is not None and op(ta, tb)

    return cmp


def _bool_eq(a: Any, b: Any) -> bool:
    return isinstance(a, bool) and isinstance(b, bool) and a == b


@lru_cache(maxsize=512)
def _wildcard(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if c == "*" else re.escape(c))
        i += 1
    return re.compile("".join(out), re.DOTALL)


def _matches(a: Any, b: Any) -> bool:
    return isinstance(a, str) and isinstance(b, str) and _wildcard(b).fullmatch(a) is not None


_BINARY: dict[str, Callable[[Any, Any], bool]] = {
    "StringEquals": _str_cmp(lambda a, b: a == b),
    "StringLessThan": _str_cmp(lambda a, b: a < b),
    "StringGreaterThan": _str_cmp(lambda a, b: a > b),
    "StringLessThanEquals": _str_cmp(lambda a, b: a <= b),
    "StringGreaterThanEquals": _str_cmp(lambda a, b: a >= b),
    "StringMatches": _matches,
    "NumericEquals": _num_cmp(lambda a, b: a == b),
    "NumericLessThan": _num_cmp(lambda a, b: a < b),
    "NumericGreaterThan": _num_cmp(lambda a, b: a > b),
    "NumericLessThanEquals": _num_cmp(lambda a, b: a <= b),
    "NumericGreaterThanEquals": _num_cmp(lambda a, b: a >= b),
    "BooleanEquals": _bool_eq,
    "TimestampEquals": _ts_cmp(lambda a, b: a == b),
    "TimestampLessThan": _ts_cmp(lambda a, b: a < b),
    "TimestampGreaterThan": _ts_cmp(lambda a, b: a > b),
    "TimestampLessThanEquals": _ts_cmp(lambda a, b: a <= b),
    "TimestampGreaterThanEquals": _ts_cmp(lambda a, b: a >= b),
}

_TYPE_TESTS: dict[str, Callable[[Any], bool]] = {
    "IsNull": lambda v: v is None,
    "IsNumeric": _num,
    "IsString": lambda v: isinstance(v, str),
    "IsBoolean": lambda v: isinstance(v, bool),
    "IsTimestamp": lambda v: parse_timestamp(v) is not None,
}

COMPARISON_OPERATORS: frozenset[str] = frozenset(
    [*_BINARY, *(k + "Path" for k in _BINARY if k != "StringMatches"), *_TYPE_TESTS, "IsPresent"]
)


def evaluate_rule(rule: Mapping[str, Any], resolve: Resolve) -> bool:
    """Evaluate one JSONPath-mode choice rule (top-level or nested)."""
    if "And" in rule:
        return all(evaluate_rule(r, resolve) for r in rule["And"])
    if "Or" in rule:
        return any(evaluate_rule(r, resolve) for r in rule["Or"])
    if "Not" in rule:
        return not evaluate_rule(rule["Not"], resolve)
    variable = rule["Variable"]
    for op, expected in rule.items():
        if op in ("Variable", "Next", "Comment", "Assign", "Output"):
            continue
        if op == "IsPresent":
            try:
                resolve(variable)
                present = True
            except PathNotFound:
                present = False
            return bool(present == expected)
        value = resolve(variable)
        if op in _TYPE_TESTS:
            return bool(_TYPE_TESTS[op](value) == expected)
        if op.endswith("Path") and op[:-4] in _BINARY:
            return _BINARY[op[:-4]](value, resolve(expected))
        if op in _BINARY:
            return _BINARY[op](value, expected)
        raise ValueError(f"unknown comparison operator {op}")
    raise ValueError("choice rule without a comparison operator")
