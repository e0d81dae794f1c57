"""``States.*`` intrinsic functions: a parser (for validation and evaluation) and the functions.

See https://docs.aws.amazon.com/step-functions/latest/dg/intrinsic-functions.html
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cfnops.asl._jsonpath import JsonPath, JsonPathSyntaxError, parse_path
from cfnops.asl._values import dumps_compact
from cfnops.asl.errors import StatesFailure

__all__ = ["Call", "IntrinsicSyntaxError", "evaluate_call", "is_intrinsic", "parse_intrinsic"]


class IntrinsicSyntaxError(ValueError):
    """The text is not a well-formed intrinsic function call."""


@dataclass(frozen=True, slots=True)
class Call:
    name: str
    args: tuple[Any, ...]  # literal values, JsonPath, or nested Call


@dataclass(frozen=True, slots=True)
class _Literal:
    value: Any


def is_intrinsic(text: str) -> bool:
    return text.startswith("States.")


_ESCAPABLE = {"'", "{", "}", "\\"}


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self) -> IntrinsicSyntaxError:
        return IntrinsicSyntaxError(self.text)

    def ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t\n\r":
            self.pos += 1

    def call(self) -> Call:
        start = self.pos
        while self.pos < len(self.text) and (
            self.text[self.pos].isalnum() or self.text[self.pos] in "._"
        ):
            self.pos += 1
        name = self.text[start : self.pos]
        if not name.startswith("States.") or name not in _FUNCTIONS:
            raise self.fail()
        self.ws()
        if self.pos >= len(self.text) or self.text[self.pos] != "(":
            raise self.fail()
        self.pos += 1
        args: list[Any] = []
        self.ws()
        if self.pos < len(self.text) and self.text[self.pos] == ")":
            self.pos += 1
            return Call(name, ())
        while True:
            self.ws()
            args.append(self.arg())
            self.ws()
            if self.pos >= len(self.text):
                raise self.fail()
            c = self.text[self.pos]
            self.pos += 1
            if c == ")":
                return Call(name, tuple(args))
            if c != ",":
                raise self.fail()

    def arg(self) -> Any:
        if self.pos >= len(self.text):
            raise self.fail()
        c = self.text[self.pos]
        if c == "'":
            return _Literal(self.string())
        if c == "$":
            return self.path()
        if self.text.startswith("States.", self.pos):
            return self.call()
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in ",) \t\n":
            self.pos += 1
        token = self.text[start : self.pos]
        if token in ("true", "false"):
            return _Literal(token == "true")
        if token == "null":
            return _Literal(None)
        try:
            value = json.loads(token)
        except ValueError:
            raise self.fail() from None
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise self.fail()
        return _Literal(value)

    def string(self) -> str:
        self.pos += 1
        out: list[str] = []
        while self.pos < len(self.text):
            c = self.text[self.pos]
            if c == "\\":
                nxt = self.text[self.pos + 1 : self.pos + 2]
                if nxt not in _ESCAPABLE:
                    raise self.fail()
                # \{ and \} stay escaped so States.Format can tell them from placeholders.
                out.append(nxt if nxt in ("'", "\\") else "\\" + nxt)
                self.pos += 2
                continue
            if c == "'":
                self.pos += 1
                return "".join(out)
            out.append(c)
            self.pos += 1
        raise self.fail()

    def path(self) -> JsonPath:
        start = self.pos
        depth = 0
        quote = ""
        while self.pos < len(self.text):
            c = self.text[self.pos]
            if quote:
                if c == quote:
                    quote = ""
            elif c in "'\"" and depth:
                quote = c
            elif c in "[(":
                depth += 1
            elif c in "])":
                if depth == 0:
                    break
                depth -= 1
            elif c in ", \t\n" and depth == 0:
                break
            self.pos += 1
        try:
            return parse_path(self.text[start : self.pos])
        except JsonPathSyntaxError:
            raise self.fail() from None


@lru_cache(maxsize=2048)
def parse_intrinsic(text: str) -> Call:
    """Parse ``States.Fn(args…)``; raise :class:`IntrinsicSyntaxError` when malformed."""
    p = _Parser(text.strip())
    call = p.call()
    p.ws()
    if p.pos != len(p.text):
        raise p.fail()
    return call


Resolver = Callable[[JsonPath], Any]


def evaluate_call(call: Call, resolve: Resolver) -> Any:
    """Evaluate a parsed call; ``resolve`` turns a path argument into its value."""
    args = []
    for a in call.args:
        if isinstance(a, _Literal):
            args.append(a.value)
        elif isinstance(a, Call):
            args.append(evaluate_call(a, resolve))
        else:
            args.append(resolve(a))
    fn = _FUNCTIONS[call.name]
    try:
        return fn(*args)
    except StatesFailure:
        raise
    except (TypeError, ValueError, KeyError, IndexError, OverflowError) as exc:
        raise StatesFailure(
            "States.IntrinsicFailure", f"Invalid arguments in {call.name}: {exc}"
        ) from exc


def _fail(message: str) -> StatesFailure:
    return StatesFailure("States.IntrinsicFailure", message)


def _is_int(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (
        isinstance(v, float) and v.is_integer()
    )


def _java_str(value: Any) -> str:
    """How Step Functions prints a non-string value inside States.Format."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={_java_str(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_java_str(v) for v in value) + "]"
    return str(value)


def _format(template: Any, *args: Any) -> str:
    if not isinstance(template, str):
        raise _fail("The first argument of States.Format must be a string")
    out: list[str] = []
    i = 0
    k = 0
    while i < len(template):
        c = template[i]
        if c == "\\" and i + 1 < len(template) and template[i + 1] in "{}":
            out.append(template[i + 1])
            i += 2
            continue
        if template.startswith("{}", i):
            if k >= len(args):
                raise _fail("Number of arguments in States.Format do not match the number of {}")
            out.append(_java_str(args[k]))
            k += 1
            i += 2
            continue
        out.append(c)
        i += 1
    if k != len(args):
        raise _fail("Number of arguments in States.Format do not match the number of {}")
    return "".join(out)


def _string_to_json(text: Any) -> Any:
    if not isinstance(text, str):
        raise _fail("States.StringToJson needs a string")
    if not text.strip():
        return None
    return json.loads(text)


def _array_partition(array: Any, size: Any) -> list[Any]:
    if not isinstance(array, list) or not _is_int(size) or int(size) <= 0:
        raise _fail("States.ArrayPartition needs an array and a positive chunk size")
    n = int(size)
    return [array[i : i + n] for i in range(0, len(array), n)]


def _array_contains(array: Any, value: Any) -> bool:
    if not isinstance(array, list):
        raise _fail("States.ArrayContains needs an array")
    return any(_json_equal(item, value) for item in array)


def _json_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    return (type(a) is type(b) and a == b) or (
        isinstance(a, int | float) and isinstance(b, int | float) and a == b
    )


def _array_range(start: Any, end: Any, step: Any) -> list[int]:
    if not (_is_int(start) and _is_int(end) and _is_int(step)) or int(step) == 0:
        raise _fail("States.ArrayRange needs integer start, end and a non-zero step")
    s, e, st = int(start), int(end), int(step)
    out = list(range(s, e + (1 if st > 0 else -1), st))
    if len(out) > 1000:
        raise _fail("States.ArrayRange cannot produce more than 1000 items")
    return out


def _array_get_item(array: Any, index: Any) -> Any:
    if not isinstance(array, list) or not _is_int(index):
        raise _fail("States.ArrayGetItem needs an array and an integer index")
    i = int(index)
    if not 0 <= i < len(array):
        raise _fail(f"Index {i} out of bounds for array of length {len(array)}")
    return array[i]


def _array_length(array: Any) -> int:
    if not isinstance(array, list):
        raise _fail("States.ArrayLength needs an array")
    return len(array)


def _array_unique(array: Any) -> list[Any]:
    if not isinstance(array, list):
        raise _fail("States.ArrayUnique needs an array")
    out: list[Any] = []
    for item in array:
        if not any(_json_equal(item, seen) for seen in out):
            out.append(item)
    return out


def _b64encode(text: Any) -> str:
    if not isinstance(text, str):
        raise _fail("States.Base64Encode needs a string")
    if len(text) > 10000:
        raise _fail("States.Base64Encode input is longer than 10000 characters")
    return base64.b64encode(text.encode()).decode()


def _b64decode(text: Any) -> str:
    if not isinstance(text, str):
        raise _fail("States.Base64Decode needs a string")
    if len(text) > 10000:
        raise _fail("States.Base64Decode input is longer than 10000 characters")
    return base64.b64decode(text.encode()).decode()


_HASHES = {"MD5": "md5", "SHA-1": "sha1", "SHA-256": "sha256", "SHA-384": "sha384",
           "SHA-512": "sha512"}  # fmt: skip


def _hash(data: Any, algorithm: Any) -> str:
    if algorithm not in _HASHES:
        raise _fail(f"Unsupported hash algorithm: {algorithm}")
    text = data if isinstance(data, str) else dumps_compact(data)
    return hashlib.new(_HASHES[algorithm], text.encode()).hexdigest()


def _json_merge(a: Any, b: Any, deep: Any = False) -> dict[str, Any]:
    if not isinstance(a, dict) or not isinstance(b, dict):
        raise _fail("States.JsonMerge needs two objects")
    if deep is not False:
        raise _fail("States.JsonMerge supports only shallow merge (false)")
    return {**a, **b}


def _math_random(start: Any, end: Any, seed: Any = None) -> int:
    for v in (start, end):
        if not isinstance(v, int | float) or isinstance(v, bool):
            raise _fail("States.MathRandom needs numeric bounds")
    low, high = _java_round(start), _java_round(end)
    rng = random.Random(_java_round(seed)) if seed is not None else random.Random()
    return rng.randint(low, high - 1) if high > low else low


def _java_round(value: Any) -> int:
    """Java's Math.round: halves go up (towards positive infinity)."""
    rounded: int = math.floor(value + 0.5)
    return rounded


def _math_add(a: Any, b: Any) -> int:
    # Step Functions rounds each operand to an integer first (1.49 + 1.5 == 3).
    for v in (a, b):
        if not isinstance(v, int | float) or isinstance(v, bool):
            raise _fail("States.MathAdd needs two numbers")
    return _java_round(a) + _java_round(b)


def _string_split(text: Any, delimiters: Any) -> list[str]:
    if not isinstance(text, str) or not isinstance(delimiters, str):
        raise _fail("States.StringSplit needs two strings")
    parts = [text]
    for d in delimiters:
        parts = [p for part in parts for p in part.split(d)]
    return [p for p in parts if p]


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "States.Format": _format,
    "States.StringToJson": _string_to_json,
    "States.JsonToString": dumps_compact,
    "States.Array": lambda *a: list(a),
    "States.ArrayPartition": _array_partition,
    "States.ArrayContains": _array_contains,
    "States.ArrayRange": _array_range,
    "States.ArrayGetItem": _array_get_item,
    "States.ArrayLength": _array_length,
    "States.ArrayUnique": _array_unique,
    "States.Base64Encode": _b64encode,
    "States.Base64Decode": _b64decode,
    "States.Hash": _hash,
    "States.JsonMerge": _json_merge,
    "States.MathRandom": _math_random,
    "States.MathAdd": _math_add,
    "States.StringSplit": _string_split,
    "States.UUID": lambda: str(uuid.uuid4()),
}
