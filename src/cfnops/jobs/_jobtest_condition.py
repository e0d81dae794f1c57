"""JSONata Choice conditions the starter can solve: comparisons of a reference with literals.

A JSONata Choice rule has a ``Condition`` (https://docs.aws.amazon.com/step-functions/latest/dg/state-choice.html,
https://docs.aws.amazon.com/step-functions/latest/dg/transforming-data.html). The forms
handled are those job-nets use to route on a Task's answer::

    {% $states.input.Status = 'Success' %}
    {% $states.input.Code in [0, 16, 64] %}
    {% $clusterStatus != 'available' and $states.input.Count > 3 %}

a reference (``$states.input`` and a path, or a variable ``$name`` and a path) compared with
``=``, ``!=``, ``<``, ``<=``, ``>``, ``>=`` to a literal (string, number, true, false,
null), or ``in`` a list of literals; terms joined by ``and`` or by ``or`` (not both). A
variable is keyed ``(VAR, name, …path)``; anything else gives no assignment.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["VAR", "solve_condition"]

VAR = "\0var"  # first key of a variable's assignment path
_REF = re.compile(r"\$(states\.input|[A-Za-z_]\w*)((?:\.[A-Za-z_]\w*|\[\d+\])*)")
_TERM = re.compile(
    r"^\s*(?P<ref>\$[\w.\[\]]+)\s*(?P<op>!=|<=|>=|=|<|>|\bin\b)\s*(?P<value>.+?)\s*$", re.S
)
_LITERAL = re.compile(
    r"""^('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)$"""
)


def _literal(text: str) -> tuple[bool, Any]:
    text = text.strip()
    if not _LITERAL.match(text):
        return False, None
    if text.startswith("'"):
        return True, text[1:-1].replace("\\'", "'")
    return True, json.loads(text)


def _reference(text: str) -> tuple[str | int, ...] | None:
    match = _REF.fullmatch(text.strip())
    if match is None or match.group(1) == "states":
        return None
    steps: list[str | int] = [
        int(p[1:-1]) if p.startswith("[") else p[1:]
        for p in re.findall(r"\.[A-Za-z_]\w*|\[\d+\]", match.group(2))
    ]
    head = match.group(1)
    if head == "states.input":
        return tuple(steps)
    if head.startswith("states"):
        return None
    return (VAR, head, *steps)


def _other(value: Any, avoid: list[Any]) -> Any:
    """A value of the same kind as ``value`` that is none of ``avoid``."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return max(v for v in avoid if isinstance(v, int | float) and not isinstance(v, bool)) + 1
    if value is None:
        return "x"
    candidate = f"{value}-other"
    while candidate in avoid:
        candidate += "-"
    return candidate


def _term(text: str, want: bool) -> dict[tuple[str | int, ...], Any] | None:
    match = _TERM.match(text)
    if match is None:
        return None
    path = _reference(match.group("ref"))
    if path is None:
        return None
    op, raw = match.group("op"), match.group("value").strip()
    if op == "in":
        if not (raw.startswith("[") and raw.endswith("]")):
            return None
        items = [_literal(x) for x in raw[1:-1].split(",")] if raw[1:-1].strip() else []
        if not items or not all(ok for ok, _ in items):
            return None
        values = [v for _, v in items]
        return {path: values[0] if want else _other(values[0], values)}
    ok, value = _literal(raw)
    if not ok:
        return None
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if op in ("=", "!="):
        hit, miss = value, _other(value, [value])
        return {path: hit if (op == "=") == want else miss}
    if not number:
        return None
    pairs = {"<": (value - 1, value), "<=": (value, value + 1),
             ">": (value + 1, value), ">=": (value, value - 1)}  # fmt: skip
    yes, no = pairs[op]
    return {path: yes if want else no}


def solve_condition(condition: Any, want: bool) -> dict[tuple[str | int, ...], Any] | None:
    """An assignment making the ``{% … %}`` condition evaluate to ``want`` (None: unknown)."""
    if not isinstance(condition, str):
        return None
    body = condition.strip()
    if not (body.startswith("{%") and body.endswith("%}")):
        return None
    body = body[2:-2].strip()
    if body.startswith("(") and body.endswith(")") and body.count("(") == 1:
        body = body[1:-1]
    ands = re.split(r"\s+and\s+", body)
    ors = re.split(r"\s+or\s+", body)
    if len(ands) > 1 and len(ors) > 1:
        return None
    terms, joined_by_and = (ands, True) if len(ands) > 1 else (ors, False)
    every = joined_by_and == want  # and-true / or-false: every term agrees
    parts = [_term(t, want) for t in terms]
    if every:
        merged: dict[tuple[str | int, ...], Any] = {}
        for part in parts:
            if part is None or any(merged.get(p, v) != v for p, v in part.items()):
                return None
            merged.update(part)
        return merged
    return next((p for p in parts if p is not None), None)
