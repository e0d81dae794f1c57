"""The Step Functions JSONPath subset: definite and indefinite paths, syntax errors."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cfnops.asl._jsonpath import JsonPathSyntaxError, PathNotFound, parse_path

DOC: dict[str, Any] = {
    "a": {"b": [10, 20, 30], "c-d": 1},
    "items": [{"v": 1, "s": 0}, {"v": 2, "s": 1}, {"v": 3}],
    "weird": {"x'y": 5},
}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("$", DOC),
        ("$.a.b[1]", 20),
        ("$.a.b[-1]", 30),
        ("$.a.c-d", 1),
        ("$['a']['b'][0]", 10),
        ("$.weird['x\\'y']", 5),
        ("$.a.b[(@.length-1)]", 30),
    ],
    ids=["root", "index", "negative-index", "dash-name", "brackets", "escaped-quote", "script"],
)
def test_definite_paths_select_one_value(path: str, expected: Any) -> None:
    parsed = parse_path(path)
    assert parsed.definite
    assert parsed.evaluate(DOC) == expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("$.items[*].v", [1, 2, 3]),
        ("$.items[1:]", [{"v": 2, "s": 1}, {"v": 3}]),
        ("$.items[:1].v", [1]),
        ("$.items[?(@.s == 0)]", [{"v": 1, "s": 0}]),
        ("$.items[?(@.v > 1 && @.s)]", [{"v": 2, "s": 1}]),
        ("$..v", [1, 2, 3]),
        ("$.missing[*]", []),
        ("$.[?(@.x)]", []),
        ("$.items.[?(@.s < 1)].v", [1]),
    ],
    ids=[
        "wildcard",
        "slice-from",
        "slice-to",
        "filter-eq",
        "filter-and",
        "deep-scan",
        "miss",
        "dot-bracket-root",
        "dot-bracket",
    ],
)
def test_indefinite_paths_return_lists(path: str, expected: Any) -> None:
    parsed = parse_path(path)
    assert not parsed.definite
    assert parsed.evaluate(DOC) == expected


def test_definite_miss_raises_path_not_found() -> None:
    with pytest.raises(PathNotFound):
        parse_path("$.a.nope").evaluate(DOC)
    with pytest.raises(PathNotFound):
        parse_path("$.a.b[7]").evaluate(DOC)


def test_roots_context_and_variables() -> None:
    assert parse_path("$$.Execution.Id").root == "$$"
    var = parse_path("$myVar.field[0]")
    assert var.is_variable and var.variable == "myVar"
    assert var.evaluate({"field": ["x"]}) == "x"


def test_bracket_notation_for_error_messages() -> None:
    assert parse_path("$.a.b[2]").bracket_notation() == "$['a']['b'][2]"


@pytest.mark.parametrize("bad", ["a.b", "$.", "$[", "$.a[?(@.x ==)]", "$.a[1:2:3:4]", ""])
def test_syntax_errors(bad: str) -> None:
    with pytest.raises(JsonPathSyntaxError):
        parse_path(bad)


_KEYS = st.text(alphabet="abcxyz_019", min_size=1, max_size=4)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=12,
)


@given(doc=_JSON, picks=st.lists(st.integers(min_value=0, max_value=5), max_size=5))
def test_definite_paths_follow_a_random_walk(doc: Any, picks: list[int]) -> None:
    path, node = "$", doc
    for pick in picks:
        if isinstance(node, dict) and node:
            key = sorted(node)[pick % len(node)]
            path, node = f"{path}['{key}']", node[key]
        elif isinstance(node, list) and node:
            index = pick % len(node)
            path, node = f"{path}[{index}]", node[index]
        else:
            break
    assert parse_path(path).evaluate(doc) == node
