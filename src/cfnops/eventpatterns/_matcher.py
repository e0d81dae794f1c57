"""EventBridge event patterns: validation and matching, as pure functions.

Mirrors the Amazon EventBridge User Guide, "Creating Amazon EventBridge event
patterns" and "Content filtering in Amazon EventBridge event patterns"
(https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-event-patterns.html,
https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-event-patterns-content-based-filtering.html,
https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-create-pattern-operators.html):

- a pattern is a JSON object with the event's nesting; every key must match (AND);
- a leaf is a non-empty array of alternatives (OR): exact values (string, number,
  ``true``/``false``, ``null``) or one-key filter objects: ``prefix``, ``suffix``
  (both also with ``{"equals-ignore-case": ...}``), ``equals-ignore-case``,
  ``wildcard``, ``anything-but`` (value, list, or ``prefix`` / ``suffix`` /
  ``equals-ignore-case`` / ``wildcard``), ``numeric`` (``["<", 5, ">=", 1]``),
  ``cidr`` and ``exists``;
- ``{"$or": [pattern, ...]}`` at any object level;
- an array in the event matches when any of its elements matches;
- ``null`` and ``""`` are different values; numbers compare numerically
  (``300`` equals ``3.0e2``), never equal to booleans.

Example::

    >>> matches({"source": ["aws.backup"], "detail": {"state": ["COMPLETED"]}},
    ...         {"source": "aws.backup", "detail": {"state": "COMPLETED"}})
    True
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from cfnops.eventpatterns.errors import InvalidEventPattern

__all__ = ["InvalidEventPattern", "matches", "parse_pattern", "validate_pattern"]

_MISSING = object()
_NUMERIC_OPS = {"<", "<=", "=", ">", ">="}
_ANYTHING_BUT_KEYS = {"prefix", "suffix", "equals-ignore-case", "wildcard"}


def parse_pattern(pattern: str | Mapping[str, Any]) -> dict[str, Any]:
    """Parse (if JSON text) and validate ``pattern``; return it as a dict."""
    if isinstance(pattern, str):
        try:
            loaded = json.loads(pattern)
        except json.JSONDecodeError as exc:
            raise InvalidEventPattern(f"not JSON: {exc.msg}") from exc
    else:
        loaded = pattern
    validate_pattern(loaded)
    return dict(loaded)


def validate_pattern(pattern: Any) -> None:
    """Raise :class:`InvalidEventPattern` unless ``pattern`` is a valid event pattern."""
    if not isinstance(pattern, Mapping) or not pattern:
        raise InvalidEventPattern("a pattern must be a non-empty JSON object")
    _validate_object(pattern, "")


def _validate_object(node: Mapping[str, Any], path: str) -> None:
    for key, value in node.items():
        here = f"{path}/{key}"
        if key == "$or":
            if not isinstance(value, list) or len(value) < 2:
                raise InvalidEventPattern("$or takes an array of at least two patterns", here)
            for index, sub in enumerate(value):
                if not isinstance(sub, Mapping) or not sub:
                    raise InvalidEventPattern("each $or member must be an object", here)
                _validate_object(sub, f"{here}/{index}")
        elif isinstance(value, Mapping):
            if not value:
                raise InvalidEventPattern("an object must not be empty", here)
            _validate_object(value, here)
        elif isinstance(value, list):
            if not value:
                raise InvalidEventPattern("a match array must not be empty", here)
            for item in value:
                _validate_leaf(item, here)
        else:
            raise InvalidEventPattern("a match value must be an array or an object", here)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _validate_leaf(item: Any, path: str) -> None:
    if item is None or isinstance(item, str | bool) or _is_number(item):
        return
    if not isinstance(item, Mapping) or len(item) != 1:
        raise InvalidEventPattern("a filter must be an object with exactly one key", path)
    ((op, arg),) = item.items()
    check = _FILTER_CHECKS.get(op)
    if check is None:
        raise InvalidEventPattern(f"unrecognized match type {op!r}", path)
    check(arg, path)


def _check_prefix(arg: Any, path: str) -> None:
    _check_string_or_ignore_case(arg, "prefix", path)


def _check_suffix(arg: Any, path: str) -> None:
    _check_string_or_ignore_case(arg, "suffix", path)


def _check_equals_ignore_case(arg: Any, path: str) -> None:
    if not isinstance(arg, str):
        raise InvalidEventPattern("equals-ignore-case takes a string", path)


def _check_exists(arg: Any, path: str) -> None:
    if not isinstance(arg, bool):
        raise InvalidEventPattern("exists takes true or false", path)


def _check_cidr(arg: Any, path: str) -> None:
    try:
        ipaddress.ip_network(str(arg), strict=False)
    except ValueError as exc:
        raise InvalidEventPattern(f"cidr: {exc}", path) from exc


def _check_string_or_ignore_case(arg: Any, op: str, path: str) -> None:
    if isinstance(arg, str):
        return
    if (
        isinstance(arg, Mapping)
        and set(arg) == {"equals-ignore-case"}
        and isinstance(arg["equals-ignore-case"], str)
    ):
        return
    raise InvalidEventPattern(f"{op} takes a string or {{'equals-ignore-case': string}}", path)


def _check_wildcard(arg: Any, path: str) -> None:
    if not isinstance(arg, str):
        raise InvalidEventPattern("wildcard takes a string", path)
    if "**" in arg:
        raise InvalidEventPattern("consecutive wildcard characters are not allowed", path)


def _check_anything_but(arg: Any, path: str) -> None:
    if isinstance(arg, str) or _is_number(arg):
        return
    if isinstance(arg, list):
        if not arg:
            raise InvalidEventPattern("anything-but list must not be empty", path)
        if all(isinstance(v, str) for v in arg) or all(_is_number(v) for v in arg):
            return
        raise InvalidEventPattern("anything-but list must be all strings or all numbers", path)
    if isinstance(arg, Mapping) and len(arg) == 1:
        ((op, value),) = arg.items()
        if op in ("prefix", "suffix") and isinstance(value, str):
            return
        if op in ("equals-ignore-case", "wildcard"):
            values = value if isinstance(value, list) else [value]
            if values and all(isinstance(v, str) for v in values):
                if op == "wildcard":
                    for v in values:
                        _check_wildcard(v, path)
                return
    raise InvalidEventPattern(
        "anything-but takes a value, a list, or one of " + ", ".join(sorted(_ANYTHING_BUT_KEYS)),
        path,
    )


def _numeric_conditions(arg: Any, path: str) -> list[tuple[str, float]]:
    if not isinstance(arg, list) or not arg or len(arg) % 2:
        raise InvalidEventPattern("numeric takes pairs of operator and number", path)
    conditions: list[tuple[str, float]] = []
    for op, number in zip(arg[::2], arg[1::2], strict=True):
        if op not in _NUMERIC_OPS or not _is_number(number):
            raise InvalidEventPattern(f"bad numeric condition {op!r} {number!r}", path)
        conditions.append((op, float(number)))
    if len(conditions) > 2 or (len(conditions) == 2 and conditions[0][0] == "="):
        raise InvalidEventPattern("numeric takes one condition or a lower and upper bound", path)
    return conditions


# -- matching ----------------------------------------------------------------


# One check per filter type; each raises InvalidEventPattern when its argument is wrong.
_FILTER_CHECKS: dict[str, Callable[[Any, str], object]] = {
    "prefix": _check_prefix,
    "suffix": _check_suffix,
    "equals-ignore-case": _check_equals_ignore_case,
    "wildcard": _check_wildcard,
    "exists": _check_exists,
    "cidr": _check_cidr,
    "numeric": _numeric_conditions,
    "anything-but": _check_anything_but,
}


def matches(pattern: str | Mapping[str, Any], event: Mapping[str, Any]) -> bool:
    """Whether ``event`` (a full EventBridge event) matches ``pattern``.

    Raises :class:`InvalidEventPattern` for an invalid pattern.
    """
    return _match_object(parse_pattern(pattern), event)


def _match_object(pattern: Mapping[str, Any], node: Any) -> bool:
    for key, spec in pattern.items():
        if key == "$or":
            if not any(_match_object(sub, node) for sub in spec):
                return False
            continue
        values = list(_values_at(node, key))
        if isinstance(spec, Mapping):
            children = [v for v in values if isinstance(v, Mapping)]
            if not any(_match_object(spec, child) for child in children):
                return False
        elif not _match_leaf(spec, values):
            return False
    return True


def _values_at(node: Any, key: str) -> Iterator[Any]:
    """The values under ``key``; arrays (in the node or the value) are flattened."""
    containers = node if isinstance(node, list) else [node]
    for container in containers:
        if not isinstance(container, Mapping):
            continue
        value = container.get(key, _MISSING)
        if value is _MISSING:
            continue
        if isinstance(value, list):
            yield from _flatten(value)
        else:
            yield value


def _flatten(values: list[Any]) -> Iterator[Any]:
    for value in values:
        if isinstance(value, list):
            yield from _flatten(value)
        else:
            yield value


def _match_leaf(alternatives: list[Any], values: list[Any]) -> bool:
    leaves = [v for v in values if not isinstance(v, Mapping)]
    for alt in alternatives:
        if isinstance(alt, Mapping) and "exists" in alt:
            if bool(leaves) == alt["exists"]:
                return True
            continue
        if any(_match_value(alt, value) for value in leaves):
            return True
    return False


def _equal(expected: Any, actual: Any) -> bool:
    if expected is None or isinstance(expected, bool):
        return actual is expected
    if _is_number(expected):
        return _is_number(actual) and float(actual) == float(expected)
    return isinstance(actual, str) and actual == expected


def _match_value(alt: Any, value: Any) -> bool:
    if not isinstance(alt, Mapping):
        return _equal(alt, value)
    ((op, arg),) = alt.items()
    if op == "numeric":
        return _is_number(value) and _numeric(_numeric_conditions(arg, ""), float(value))
    if op == "cidr":
        return _in_cidr(str(arg), value)
    if op == "anything-but":
        return _anything_but(arg, value)
    if not isinstance(value, str):
        return False
    return _string_filter(op, arg, value)


def _string_filter(op: str, arg: Any, value: str) -> bool:
    if op in ("prefix", "suffix"):
        ignore_case = isinstance(arg, Mapping)
        needle = arg["equals-ignore-case"] if ignore_case else arg
        hay = value.casefold() if ignore_case else value
        needle = needle.casefold() if ignore_case else needle
        return hay.startswith(needle) if op == "prefix" else hay.endswith(needle)
    if op == "equals-ignore-case":
        return value.casefold() == str(arg).casefold()
    if op == "wildcard":
        return _wildcard_regex(str(arg)).fullmatch(value) is not None
    return False


def _numeric(conditions: list[tuple[str, float]], value: float) -> bool:
    checks = {
        "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b,
        "=": lambda a, b: a == b,
        ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b,
    }
    return all(checks[op](value, bound) for op, bound in conditions)


def _in_cidr(cidr: str, value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        return ipaddress.ip_address(value) in ipaddress.ip_network(cidr, strict=False)
    except ValueError:
        return False


def _anything_but(arg: Any, value: Any) -> bool:
    if isinstance(arg, Mapping):
        ((op, inner),) = arg.items()
        if not isinstance(value, str):
            return True
        options = inner if isinstance(inner, list) else [inner]
        return not any(_string_filter(op, option, value) for option in options)
    excluded = arg if isinstance(arg, list) else [arg]
    return not any(_equal(option, value) for option in excluded)


def _wildcard_regex(text: str) -> re.Pattern[str]:
    parts: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            parts.append(re.escape(text[i + 1]))
            i += 2
            continue
        parts.append(".*" if char == "*" else re.escape(char))
        i += 1
    return re.compile("".join(parts), re.DOTALL)
