"""``States.*`` intrinsic functions: parsing (incl. illegal escapes) and results."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from cfnops.asl import StatesFailure
from cfnops.asl._intrinsics import IntrinsicSyntaxError, evaluate_call, parse_intrinsic

INPUT: dict[str, Any] = {"name": "World", "n": 3, "arr": [1, 2, 2, 3], "obj": {"a": 1}}


def call(text: str) -> Any:
    return evaluate_call(parse_intrinsic(text), lambda p: p.evaluate(INPUT))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("States.Format('Hello {}!', $.name)", "Hello World!"),
        ("States.Format('\\{{}\\}', $.n)", "{3}"),
        ("States.Format('{} {}', $.obj, $.arr)", "{a=1} [1, 2, 2, 3]"),
        ("States.StringToJson('{\"x\": [1]}')", {"x": [1]}),
        ("States.JsonToString($.obj)", '{"a":1}'),
        ("States.Array($.n, 'x', true, null)", [3, "x", True, None]),
        ("States.ArrayPartition($.arr, 3)", [[1, 2, 2], [3]]),
        ("States.ArrayContains($.arr, 2)", True),
        ("States.ArrayRange(1, 9, 4)", [1, 5, 9]),
        ("States.ArrayGetItem($.arr, 3)", 3),
        ("States.ArrayLength($.arr)", 4),
        ("States.ArrayUnique($.arr)", [1, 2, 3]),
        ("States.Base64Encode('Data to encode')", "RGF0YSB0byBlbmNvZGU="),
        ("States.Base64Decode('RGF0YSB0byBlbmNvZGU=')", "Data to encode"),
        ("States.Hash('input data', 'SHA-256')", hashlib.sha256(b"input data").hexdigest()),
        ("States.JsonMerge($.obj, States.StringToJson('{\"b\": 2}'), false)", {"a": 1, "b": 2}),
        ("States.MathAdd($.n, -1)", 2),
        ("States.MathAdd(1.49, 1.5)", 3),
        ("States.MathAdd(-1.5, -1.51)", -3),
        ("States.StringSplit('a,b;;c', ',;')", ["a", "b", "c"]),
        ("States.ArrayGetItem(States.StringSplit('x-y-z', '-'), States.MathAdd(1, 1))", "z"),
    ],
    ids=lambda v: v if isinstance(v, str) and v.startswith("States.") else "",
)
def test_functions(text: str, expected: Any) -> None:
    assert call(text) == expected


def test_uuid_and_random_shapes() -> None:
    assert len(call("States.UUID()")) == 36
    assert 1 <= call("States.MathRandom(1, 10)") < 10
    assert call("States.MathRandom(1, 1000, 7)") == call("States.MathRandom(1, 1000, 7)")


@pytest.mark.parametrize(
    "text",
    [
        'States.StringToJson(\'{"text":"An \\"escaped\\" here"}\')',  # \" is illegal
        "States.Format('unterminated)",
        "States.NoSuchFunction(1)",
        "States.Format('x' $.a)",
        "States.Array(1,",
    ],
)
def test_syntax_errors(text: str) -> None:
    with pytest.raises(IntrinsicSyntaxError):
        parse_intrinsic(text)


@pytest.mark.parametrize(
    "text",
    [
        "States.ArrayGetItem($.arr, 9)",
        "States.Format('{} {}', $.n)",
        "States.ArrayRange(0, 2000, 1)",
        "States.Hash('x', 'SHA-3')",
    ],
)
def test_runtime_failures_are_intrinsic_failure(text: str) -> None:
    with pytest.raises(StatesFailure) as info:
        call(text)
    assert info.value.error == "States.IntrinsicFailure"
