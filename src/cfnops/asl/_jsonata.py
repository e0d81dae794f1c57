"""JSONata evaluation for ``QueryLanguage: JSONata`` states, through jsonata-python.

Adds the functions Step Functions defines on top of JSONata ($partition, $range, $hash,
$random, $uuid, $parse) and maps JSONata ``null``/undefined onto JSON ``null``/absent.
See https://docs.aws.amazon.com/step-functions/latest/dg/transforming-data.html
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import threading
import uuid
from collections.abc import Mapping
from typing import Any

from cfnops.asl.errors import StatesFailure

__all__ = ["UNDEFINED", "JsonataError", "evaluate", "expression_of", "is_expression"]


class _Undefined:
    def __repr__(self) -> str:
        return "UNDEFINED"


UNDEFINED: Any = _Undefined()
"""What an expression that returned nothing (JSONata ``undefined``) evaluates to."""


class JsonataError(Exception):
    """The expression could not be parsed or raised during evaluation."""


class UnsupportedResult(JsonataError):
    """The expression returned a function or another non-JSON value."""


def is_expression(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("{%") and value.endswith("%}")


def expression_of(value: str) -> str:
    return value[2:-2].strip()


def _partition(array: Any, size: Any) -> Any:
    if not isinstance(array, list) or not isinstance(size, int | float) or size < 1:
        raise JsonataError("$partition needs an array and a chunk size of at least 1")
    n = int(size)
    return [list(array[i : i + n]) for i in range(0, len(array), n)]


def _range(*args: Any) -> Any:
    for i, value in enumerate(args[:4], start=1):
        if i == 4 or not isinstance(value, int | float) or isinstance(value, bool):
            raise JsonataError(
                f'T0410: Argument {i} of function "range" does not match function signature'
            )
    if len(args) < 3:
        return None
    start, end, step = (int(v) for v in args)
    if step == 0 or (step > 0 and start > end) or (step < 0 and start < end):
        return None  # undefined, as JSONata composes it
    items = list(range(start, end + (1 if step > 0 else -1), step))
    # JSONata collapses a one-item sequence into the item, as Step Functions shows.
    return items[0] if len(items) == 1 else items


_HASHES = {"MD5": "md5", "SHA-1": "sha1", "SHA-256": "sha256", "SHA-384": "sha384",
           "SHA-512": "sha512"}  # fmt: skip


def _hash(data: Any, algorithm: Any = "SHA-256") -> str:
    if algorithm not in _HASHES:
        raise JsonataError(f"Unsupported hash algorithm: {algorithm}")
    text = data if isinstance(data, str) else json.dumps(to_json(data), separators=(",", ":"))
    return hashlib.new(_HASHES[algorithm], text.encode()).hexdigest()


def _random(seed: Any = None) -> float:
    return random.Random(seed).random() if seed is not None else random.random()


def _parse(text: Any) -> Any:
    return from_json(json.loads(text))


_SFN_FUNCTIONS = {
    "partition": _partition,
    "range": _range,
    "hash": _hash,
    "random": _random,
    "uuid": lambda: str(uuid.uuid4()),
    "parse": _parse,
}

_local = threading.local()


@functools.cache
def _utils() -> Any:
    """jsonata-python's ``Utils``: the library loads with the first JSONata expression
    (~10 ms of every job run otherwise, JSONPath job-nets included)."""
    from jsonata.utils import Utils

    return Utils


def _compile(expr: str) -> Any:
    cache: dict[str, Any] | None = getattr(_local, "cache", None)
    if cache is None:
        cache = _local.cache = {}
    compiled = cache.get(expr)
    if compiled is None:
        import jsonata

        try:
            compiled = jsonata.Jsonata(expr)
        except Exception as exc:  # jsonata-python raises several types on syntax errors
            raise JsonataError(str(exc)) from exc
        compiled.set_output_convert_nulls(False)
        for name, fn in _SFN_FUNCTIONS.items():
            compiled.register_lambda(name, fn)
        if len(cache) > 2048:
            cache.clear()
        cache[expr] = compiled
    return compiled


def check_syntax(expr: str) -> str | None:
    """Return an error message when ``expr`` does not parse, else None."""
    try:
        _compile(expr)
    except JsonataError as exc:
        return str(exc)
    return None


def from_json(value: Any) -> Any:
    """JSON null at the top level becomes JSONata null (nested nulls are understood)."""
    return _utils().NULL_VALUE if value is None else value


def to_json(value: Any) -> Any:
    if value is None:
        return UNDEFINED
    return _convert(value)


def _convert(value: Any) -> Any:
    if value is None or value is _utils().NULL_VALUE:
        return None
    if isinstance(value, bool | str | int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() and abs(value) < 2**63 else value
    if isinstance(value, dict):
        return {k: _convert(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_convert(v) for v in value]
    raise UnsupportedResult(type(value).__name__)


def evaluate(expr: str, bindings: Mapping[str, Any], data: Any = None) -> Any:
    """Evaluate ``expr`` with variables ``bindings`` (names without ``$``).

    Returns plain JSON data, or :data:`UNDEFINED` when the expression returned nothing.
    """
    compiled = _compile(expr)
    frame = {k: from_json(v) for k, v in bindings.items()}
    try:
        result = compiled.evaluate(from_json(data), frame)
    except StatesFailure:
        raise
    except RecursionError as exc:
        raise JsonataError("maximum recursion depth exceeded") from exc
    except JsonataError:
        raise
    except Exception as exc:  # jsonata-python raises JException, TypeError, ZeroDivisionError …
        code = getattr(exc, "error", None)
        text = f"{code}: {exc}" if isinstance(code, str) and code else str(exc)
        raise JsonataError(text) from exc
    if callable(result) or _is_function(result):
        raise UnsupportedResult("function")
    return to_json(result)


def _is_function(value: Any) -> bool:
    utils = _utils()
    return bool(utils.is_function(value)) if hasattr(utils, "is_function") else False
