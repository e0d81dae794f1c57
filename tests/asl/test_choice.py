"""Choice rules: every comparison operator, Path forms, type tests and combinators."""

from __future__ import annotations

from typing import Any

import pytest

from cfnops.asl._choice import COMPARISON_OPERATORS, evaluate_rule
from cfnops.asl._jsonpath import parse_path

DATA: dict[str, Any] = {
    "s": "abc",
    "n": 5,
    "f": 5.0,
    "b": True,
    "t": "2024-01-01T00:00:00Z",
    "t2": "2024-01-01T01:00:00+01:00",
    "z": None,
    "file": "log-2024.txt",
}


def rule(rule_: dict[str, Any]) -> bool:
    return evaluate_rule(rule_, lambda p: parse_path(p).evaluate(DATA))


@pytest.mark.parametrize(
    ("op", "variable", "value", "expected"),
    [
        ("StringEquals", "$.s", "abc", True),
        ("StringEquals", "$.n", "5", False),
        ("StringLessThan", "$.s", "abd", True),
        ("StringGreaterThanEquals", "$.s", "abc", True),
        ("StringMatches", "$.file", "log-*.txt", True),
        ("StringMatches", "$.file", "log-\\*.txt", False),
        ("NumericEquals", "$.f", 5, True),
        ("NumericEquals", "$.b", 1, False),
        ("NumericLessThan", "$.n", 6, True),
        ("NumericGreaterThan", "$.s", 1, False),
        ("BooleanEquals", "$.b", True, True),
        ("BooleanEquals", "$.n", True, False),
        ("TimestampEquals", "$.t", "2024-01-01T00:00:00Z", True),
        ("TimestampEquals", "$.t2", "2024-01-01T00:00:00Z", True),
        ("TimestampLessThan", "$.t", "2024-01-02T00:00:00Z", True),
        ("TimestampGreaterThan", "$.s", "2024-01-02T00:00:00Z", False),
    ],
)
def test_comparisons(op: str, variable: str, value: Any, expected: bool) -> None:
    assert rule({"Variable": variable, op: value, "Next": "X"}) is expected


def test_path_variants_compare_two_inputs() -> None:
    assert rule({"Variable": "$.n", "NumericEqualsPath": "$.f", "Next": "X"})
    assert rule({"Variable": "$.t", "TimestampEqualsPath": "$.t2", "Next": "X"})
    assert not rule({"Variable": "$.s", "StringEqualsPath": "$.file", "Next": "X"})


@pytest.mark.parametrize(
    ("op", "variable", "expected"),
    [
        ("IsNull", "$.z", True),
        ("IsNull", "$.s", False),
        ("IsPresent", "$.missing", False),
        ("IsPresent", "$.z", True),
        ("IsNumeric", "$.f", True),
        ("IsNumeric", "$.b", False),
        ("IsString", "$.s", True),
        ("IsBoolean", "$.b", True),
        ("IsTimestamp", "$.t", True),
        ("IsTimestamp", "$.s", False),
    ],
)
def test_type_tests(op: str, variable: str, expected: bool) -> None:
    assert rule({"Variable": variable, op: True, "Next": "X"}) is expected
    assert rule({"Variable": variable, op: False, "Next": "X"}) is (not expected)


def test_combinators() -> None:
    yes = {"Variable": "$.n", "NumericEquals": 5}
    no = {"Variable": "$.n", "NumericEquals": 6}
    assert rule({"And": [yes, {"Not": no}], "Next": "X"})
    assert rule({"Or": [no, yes], "Next": "X"})
    assert not rule({"And": [yes, no], "Next": "X"})


def test_operator_table_has_path_forms() -> None:
    assert "NumericLessThanEqualsPath" in COMPARISON_OPERATORS
    assert "StringMatchesPath" not in COMPARISON_OPERATORS
