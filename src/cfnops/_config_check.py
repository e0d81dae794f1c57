"""Conversion and errors of the settings (msgspec), apart from the models in :mod:`cfnops.config`.

The settings are :class:`msgspec.Struct` types: importing msgspec and defining them costs
a few milliseconds, where pydantic cost ~0.1 s of a ``cfnops job run``'s start-up.
msgspec reports a bad value as ``Expected `int` >= 1 - at `$.worker.concurrency```; this
module turns that into the dotted setting name and a sentence saying what is allowed
(:func:`explain`). A field check of a model (its ``__post_init__``) raises
``ValueError("field_name: reason")``, so the field is named although msgspec reports the
section.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import msgspec

T = TypeVar("T")
_HIDDEN = "**********"


class Secret:
    """A secret setting (a webhook URL, a token): ``repr``/``str`` never show the value."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def get_secret_value(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return f"Secret('{_HIDDEN}')" if self._value else "Secret('')"

    def __str__(self) -> str:
        return _HIDDEN if self._value else ""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


def _dec_hook(kind: type, value: Any) -> Any:
    if kind is Path and isinstance(value, (str, Path)):
        return Path(value)
    if kind is Secret:
        if isinstance(value, Secret):
            return value
        if isinstance(value, str):
            return Secret(value)
        raise TypeError("Expected `str`")
    raise TypeError(f"Expected `{getattr(kind, '__name__', kind)}`")


def _enc_hook(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, Secret):
        return str(value)  # hidden, as in logs
    raise TypeError(f"cannot encode {type(value).__name__}")


def convert(data: Any, kind: type[T]) -> T:
    """``data`` (TOML values, environment strings, flags) as ``kind``, converted and checked.

    Raises :class:`msgspec.ValidationError` (:func:`explain` turns it into words).
    """
    return msgspec.convert(data, kind, strict=False, dec_hook=_dec_hook)


def to_data(value: msgspec.Struct) -> dict[str, Any]:
    """``value`` as JSON-ready builtins (paths as text, secrets hidden)."""
    out: dict[str, Any] = msgspec.to_builtins(value, enc_hook=_enc_hook)
    return out


_AT = re.compile(r"^(?P<text>.*) - at `\$(?P<path>[^`]*)`$", re.S)
_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+|\.\.\.)\]")
_EXPECTED = re.compile(r"^Expected `(?P<kind>[^`]+)`(?P<rule>[^,]*?)(?:, got `(?P<got>[^`]+)`)?$")
_KINDS = {
    "int": "a whole number",
    "float": "a number",
    "str": "text",
    "bool": "true or false",
    "array": "a list",
    "object": "a table",
}
_RULES = (
    (re.compile(r"of length >= (\S+)"), r"of at least \1 characters"),
    (re.compile(r"of length <= (\S+)"), r"of at most \1 characters"),
    (re.compile(r"matching regex '(.*)'"), r"matching \1"),
    (re.compile(r">= (\S+)"), r"greater than or equal to \1"),
    (re.compile(r"<= (\S+)"), r"less than or equal to \1"),
    (re.compile(r"> (\S+)"), r"greater than \1"),
    (re.compile(r"< (\S+)"), r"less than \1"),
)


def _hints(kind: Any) -> dict[str, Any]:
    return typing.get_type_hints(kind, include_extras=True) if isinstance(kind, type) else {}


def _inner(annotation: Any) -> Any:
    """``X`` of ``X | None`` and of ``Annotated[X, ...]``."""
    if typing.get_origin(annotation) is typing.Annotated:
        return _inner(typing.get_args(annotation)[0])
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(options) == 1:
            return _inner(options[0])
    return annotation


def _walk(model: type, data: Any, steps: list[str]) -> tuple[list[str | int], Any, Any]:
    """The location (``[...]`` resolved to the bad key), the value and the field's type."""
    loc: list[str | int] = []
    kind: Any = model
    node: Any = data
    for step in steps:
        origin = typing.get_origin(kind)
        if step == "...":  # a mapping's value: msgspec does not say which key
            args = typing.get_args(kind)
            value_kind = args[1] if origin is dict and len(args) == 2 else Any
            bad = [
                key
                for key, item in (node.items() if isinstance(node, Mapping) else ())
                if not _converts(item, value_kind)
            ]
            key = bad[0] if bad else "..."
            loc.append(key)
            node, kind = (node.get(key) if isinstance(node, Mapping) else None), value_kind
        elif step.isdigit():
            loc.append(int(step))
            node = node[int(step)] if isinstance(node, list) and int(step) < len(node) else None
            args = typing.get_args(kind)
            kind = args[0] if origin in (tuple, list) and args else Any
        else:
            loc.append(step)
            node = node.get(step) if isinstance(node, Mapping) else None
            kind = _hints(kind).get(step, Any)
        kind = _inner(kind)
    return loc, node, kind


def _converts(item: Any, kind: Any) -> bool:
    try:
        convert(item, kind)
    except msgspec.ValidationError:
        return False
    return True


def _allowed(kind: Any) -> str:
    for option in (kind, *typing.get_args(kind)):
        if typing.get_origin(option) is typing.Literal:
            return ", ".join(str(a) for a in typing.get_args(option))
    return ""


def _got(value: Any, kind: Any) -> str:
    if value is None or kind is Secret:
        return ""  # a secret is never echoed
    return f" (got {value!r})"


def explain(
    exc: msgspec.ValidationError, model: type, data: Any
) -> tuple[tuple[str | int, ...], str]:
    """The setting's location (``("worker", "concurrency")``) and a reason in words."""
    found = _AT.match(str(exc))
    text, path = (found["text"], found["path"]) if found else (str(exc), "")
    steps = [m[1] or m[2] for m in _STEP.finditer(path)]
    loc, value, kind = _walk(model, data, steps)
    unknown = re.fullmatch(r"Object contains unknown field `(.+)`", text)
    if unknown:
        return (*loc, unknown[1]), "unknown setting"
    own = re.fullmatch(r"([a-z_]+): (.+)", text, re.S)
    if own and own[1] in _hints(kind):  # a field check (__post_init__) naming its field
        return (*loc, own[1]), own[2]
    missing = re.fullmatch(r"Object missing required field `(.+)`", text)
    if missing:
        return (*loc, missing[1]), "required: give a value"
    if text.startswith("Invalid enum value"):
        return tuple(loc), f"{value!r} is not allowed: give one of {_allowed(kind)}"
    expected = _EXPECTED.match(text)
    if expected is None:
        return tuple(loc), text
    kinds = [_KINDS.get(k, k) for k in expected["kind"].split(" | ") if k != "null"]
    rule = expected["rule"].strip()
    for pattern, words in _RULES:
        rule = pattern.sub(words, rule)
    wanted = " or ".join(kinds) + (f" {rule}" if rule else "")
    if "Literal" in str(kind) and _allowed(kind):
        wanted = f"one of {_allowed(kind)}"
    return tuple(loc), f"must be {wanted}{_got(value, kind)}"
