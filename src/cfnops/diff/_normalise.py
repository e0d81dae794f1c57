"""Canonical forms: two values are "the same" when their canonical forms are equal.

Rules (the shared conformance README, "Equality"):

* ``"10"`` equals ``10`` and ``"0.5"`` equals ``0.5`` (a string that is a plain
  decimal literal); ``"1.2.3"`` stays a string. ``"true"``/``"false"`` equal the
  booleans. A YAML date (``2010-09-09`` unquoted) equals its ISO string.
* ``{"Fn::GetAtt": "A.B.C"}`` equals ``{"Fn::GetAtt": ["A", "B.C"]}``.
* Mapping key order never matters; arrays compare in order, except arrays the
  schema declares ``insertionOrder: false`` (compared as multisets). Arrays inside
  intrinsic function arguments always compare in order.
* Intrinsics whose result is known offline are evaluated first
  (:mod:`cfnops.diff._evaluate`): ``Fn::Sub``/``Fn::Join`` of literals and
  references, ``Fn::Select`` of a literal list, the ``Fn::GetAZs`` spellings.

A canonical form is a nested tuple, hashable and cheap to compare. Templates are
JSON-like values (``dict``/``list``/scalars, as the loader returns them); the hot
paths test ``dict``/``list`` exactly rather than the slower ABCs.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from cfnops.diff._evaluate import fold

Canon = tuple[Any, ...]
SchemaPath = tuple[str, ...]

_DECIMAL = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?\Z")
_NO_PATHS: frozenset[SchemaPath] = frozenset()
MISSING: Canon = ("missing",)
_FOLDABLE = frozenset(
    {"Fn::Sub", "Fn::Join", "Fn::Select", "Fn::GetAZs", "Fn::Split", "Fn::Base64"}
)
NO_VALUE = {"Ref": "AWS::NoValue"}


def intrinsic_name(value: Any) -> str | None:
    """``"Ref"`` / ``"Fn::Sub"`` … when ``value`` is an intrinsic function call."""
    if isinstance(value, dict) and len(value) == 1:
        (key,) = value
        if key == "Ref" or key == "Condition" or (isinstance(key, str) and key.startswith("Fn::")):
            return str(key)
    return None


def getatt_parts(arg: Any) -> tuple[Any, Any] | None:
    """``(resource, attribute)`` of a ``Fn::GetAtt`` argument in either form."""
    if isinstance(arg, str):
        head, sep, tail = arg.partition(".")
        return (head, tail) if sep else (head, "")
    if isinstance(arg, list) and len(arg) == 2:
        return arg[0], arg[1]
    return None


def _number(text: str) -> Canon | None:
    if _DECIMAL.match(text):
        try:
            return ("n", str(Decimal(text).normalize()))
        except InvalidOperation:  # pragma: no cover - the regex admits only decimals
            return None
    return None


def _scalar(value: Any) -> Canon:
    if value is None:
        return ("null",)
    if isinstance(value, bool):
        return ("s", "true" if value else "false")
    if isinstance(value, int):
        return ("n", str(Decimal(value).normalize()))
    if isinstance(value, float):
        try:
            return ("n", str(Decimal(repr(value)).normalize()))
        except InvalidOperation:
            return ("s", repr(value))
    if isinstance(value, str):
        return _number(value) or ("s", value)
    if isinstance(value, dt.datetime | dt.date):
        return ("s", value.isoformat())
    return ("s", str(value))


def same(a: Any, b: Any) -> bool:
    """Exact equality as the templates were written, except that ``1 == 1.0``.

    Python's ``True == 1`` would hide a boolean becoming a number; used by the
    fast paths that skip canonicalisation for identical text.
    """
    if type(a) is not type(b):
        if isinstance(a, bool) or isinstance(b, bool):
            return False
        return bool(a == b)
    if isinstance(a, dict):
        if a != b:  # C-level comparison; ``same`` implies ``==``
            return False
        if repr(a) == repr(b):  # one text: ``True`` and ``1`` print differently
            return True
        if a.keys() != b.keys():
            return False
        for key, sub in a.items():
            other = b[key]
            if type(sub) is str and type(other) is str:  # the usual leaf: no call
                if sub != other:
                    return False
            elif not same(sub, other):
                return False
        return True
    if isinstance(a, list):
        return len(a) == len(b) and all(map(same, a, b))
    return bool(a == b)


def canon(
    value: Any,
    path: SchemaPath | None = None,
    unordered: frozenset[SchemaPath] = _NO_PATHS,
) -> Canon:
    """The canonical form of ``value``.

    ``path`` is the schema path of ``value`` below ``/properties`` (array items
    are ``*``); arrays whose path is in ``unordered`` compare as multisets.
    ``path=None`` means "inside an intrinsic": every array keeps its order.
    """
    if isinstance(value, dict):
        name = intrinsic_name(value)
        if name is not None:
            arg = value[name]
            if name in _FOLDABLE:
                folded = fold(name, arg, _canon_inner, _scalar)
                if folded is not None:
                    return folded
            if name == "Fn::GetAtt":
                parts = getatt_parts(arg)
                if parts is not None:
                    arg = [parts[0], parts[1]]
            return ("f", name, canon(arg, None))
        items = []
        for key, sub in value.items():
            if type(sub) is dict and sub == NO_VALUE:
                continue  # a key set to AWS::NoValue is no key (pseudo-parameter-reference.html)
            sub_path = None if path is None else (*path, str(key))
            items.append((str(key), canon(sub, sub_path, unordered)))
        items.sort(key=lambda kv: kv[0])
        return ("d", tuple(items))
    if isinstance(value, list):
        item_path = None if path is None else (*path, "*")
        forms = [canon(item, item_path, unordered) for item in value]
        if path is not None and path in unordered:
            forms.sort(key=repr)
        return ("l", tuple(forms))
    return _scalar(value)


def _canon_inner(value: Any) -> Canon:
    return canon(value, None)


def value_at(
    value: Any,
    rest: SchemaPath,
    path: SchemaPath,
    unordered: frozenset[SchemaPath] = _NO_PATHS,
) -> Canon:
    """The canonical value found at ``rest`` (a schema path below ``value``).

    ``*`` walks every array item. An intrinsic met on the way stands for the
    whole sub-tree (its result is unknown offline); absent is :data:`MISSING`.
    """
    if not rest:
        return canon(value, path, unordered)
    if intrinsic_name(value) is not None:
        return ("opaque", canon(value, None))
    head, tail = rest[0], rest[1:]
    if head == "*":
        if not isinstance(value, list):
            return MISSING if value is None else ("opaque", canon(value, None))
        forms = [value_at(item, tail, (*path, "*"), unordered) for item in value]
        if path in unordered:
            forms.sort(key=repr)
        return ("l", tuple(forms))
    if isinstance(value, dict):
        if head not in value or value[head] == NO_VALUE:
            return MISSING
        return value_at(value[head], tail, (*path, head), unordered)
    return MISSING if value is None else ("opaque", canon(value, None))


def depends_on(value: Any) -> Canon:
    """``DependsOn``: a string equals a one-item list; order and duplicates do not count."""
    if isinstance(value, str):
        return ("set", (value,))
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ("set", tuple(sorted(set(value))))
    return canon(value, None)


def mangle(value: Any) -> Any:
    """What GetTemplate returns: every code point above U+007F becomes ``?``."""
    if isinstance(value, str):
        return "".join(ch if ord(ch) < 0x80 else "?" for ch in value)
    if isinstance(value, Mapping):
        return {mangle(k): mangle(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mangle(v) for v in value]
    return value


def has_non_ascii(value: Any) -> bool:
    """True when any key or string in ``value`` has a code point above U+007F."""
    return not json.dumps(value, ensure_ascii=False, default=str).isascii()


def plain(value: Any) -> Any:
    """A JSON-ready copy: decoder node types become dict/list/str, dates ISO strings."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int | float):
        return value
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    return str(value)
