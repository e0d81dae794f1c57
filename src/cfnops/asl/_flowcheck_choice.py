"""Choice rules in the data-flow check: which branch can never match.

A rule *can never match* when it repeats an earlier rule of the same Choice (the earlier
one always wins), when it is a JSONata condition that reads no data and is false, or when
(JSONPath) the type of the value it tests, on every path that reaches it, rules the
operator out (``NumericEquals`` on a string, ``IsString: true`` on a number …).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from cfnops.asl._choice import evaluate_rule
from cfnops.asl._flowcheck_model import Unknown
from cfnops.asl._jsonpath import PathNotFound

__all__ = ["duplicate_of", "feasible"]

_IGNORED = ("Next", "Assign", "Output", "Comment")
_TYPE_ONLY = ("IsNull", "IsNumeric", "IsString", "IsBoolean", "IsTimestamp", "IsPresent")


def _condition(rule: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in rule.items() if k not in _IGNORED}


def duplicate_of(rules: list[Any], index: int) -> int | None:
    """The index of an earlier rule with the same condition, if any."""
    mine = _condition(rules[index]) if isinstance(rules[index], Mapping) else None
    for j in range(index):
        if isinstance(rules[j], Mapping) and _condition(rules[j]) == mine:
            return j
    return None


def _type_ok(op: str, value: Any) -> bool:
    base = op[:-4] if op.endswith("Path") else op
    if base.startswith(("String", "Timestamp")):
        return isinstance(value, str)
    if base.startswith("Numeric"):
        return isinstance(value, int | float) and not isinstance(value, bool)
    if base == "BooleanEquals":
        return isinstance(value, bool)
    return True


def feasible(rule: Mapping[str, Any], resolve: Callable[[str], Any]) -> bool:
    """False when the tested values' types make the rule false whatever their values."""
    if "And" in rule:
        return all(feasible(r, resolve) for r in rule["And"])
    if "Or" in rule:
        return any(feasible(r, resolve) for r in rule["Or"])
    if "Not" in rule:
        inner = rule["Not"]
        if isinstance(inner, Mapping) and any(k in inner for k in _TYPE_ONLY):
            try:
                return not evaluate_rule(inner, resolve)
            except (PathNotFound, _Undecidable):
                return True
        return True
    variable = rule.get("Variable")
    if not isinstance(variable, str):
        return True
    for op in rule:
        if op in ("Variable", *_IGNORED):
            continue
        if op in _TYPE_ONLY:
            try:
                return bool(evaluate_rule(rule, resolve))
            except (PathNotFound, _Undecidable):
                return True
        try:
            value = resolve(variable)
        except (PathNotFound, _Undecidable):
            return True
        return _type_ok(op, value)
    return True


class _Undecidable(Exception):
    pass


def deciding(resolve: Callable[[str], Any]) -> Callable[[str], Any]:
    """A resolver that raises instead of returning an unknown value."""

    def res(text: str) -> Any:
        value = resolve(text)
        if isinstance(value, Unknown):
            raise _Undecidable(text)
        return value

    return res


Undecidable = _Undecidable
