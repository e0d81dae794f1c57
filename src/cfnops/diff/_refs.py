"""Which logical ids a value refers to, and where in the value the reference sits.

References: ``Ref``, ``Fn::GetAtt`` (``"A.B"`` or ``["A", "B"]``), and
``Fn::Sub`` — ``${X}`` / ``${X.Attr}`` in the string, any reference inside the
variable map; ``${!X}`` is a literal and a map variable shadows a resource of
the same name (AWS docs: "Fn::Sub", intrinsic-function-reference-sub.html).

The *location* of a reference is the schema path (below ``/properties``,
array items as ``*``) of the innermost plain value holding it. ``Fn::If``
branches keep the location of the ``Fn::If`` itself (either branch becomes
the value); inside any other intrinsic the location stops growing, since the
function's result replaces the whole sub-tree.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from cfnops.diff._normalise import SchemaPath, getatt_parts, intrinsic_name

_SUB_VAR = re.compile(r"\$\{([^}]*)\}")


def sub_names(text: str, shadowed: frozenset[str] = frozenset()) -> Iterator[str]:
    """Logical ids named by ``${X}`` / ``${X.Attr}`` in a ``Fn::Sub`` string."""
    for match in _SUB_VAR.finditer(text):
        body = match.group(1).strip()
        if not body or body.startswith("!"):
            continue
        if body in shadowed:
            continue
        head = body.split(".", 1)[0]
        if head in shadowed or head.startswith("AWS::"):
            continue
        yield head


def references(value: Any, path: SchemaPath = ()) -> Iterator[tuple[str, SchemaPath]]:
    """Yield ``(logical_id, location)`` for every reference inside ``value``."""
    found: list[tuple[str, SchemaPath]] = []
    _walk(value, path, True, found)
    return iter(found)


def _walk(value: Any, path: SchemaPath, grow: bool, out: list[tuple[str, SchemaPath]]) -> None:
    # Appends to ``out`` rather than yielding: a template has tens of thousands of nodes
    # and nested generators cost a frame switch per level and item.
    kind = type(value)
    if kind is list:
        item_path = (*path, "*") if grow else path
        for item in value:
            if type(item) is dict or type(item) is list or isinstance(item, dict | list):
                _walk(item, item_path, grow, out)
        return
    if kind is not dict and not isinstance(value, dict):
        if isinstance(value, list):
            _walk(list(value), path, grow, out)
        return
    name = intrinsic_name(value) if len(value) == 1 else None
    if name is None:
        for key, sub in value.items():
            if type(sub) is dict or type(sub) is list or isinstance(sub, dict | list):
                _walk(sub, (*path, str(key)) if grow else path, grow, out)
        return
    _intrinsic(name, value[name], path, grow, out)


def _intrinsic(
    name: str, arg: Any, path: SchemaPath, grow: bool, out: list[tuple[str, SchemaPath]]
) -> None:
    """The references of one intrinsic function's argument (``Ref``, ``GetAtt``, ``Sub`` …)."""
    if name == "Ref":
        if isinstance(arg, str):
            if not arg.startswith("AWS::"):
                out.append((arg, path))
        else:
            _walk(arg, path, False, out)
    elif name == "Fn::GetAtt":
        parts = getatt_parts(arg)
        if parts is not None and isinstance(parts[0], str):
            out.append((parts[0], path))
            if not isinstance(parts[1], str):
                _walk(parts[1], path, False, out)
        else:
            _walk(arg, path, False, out)
    elif name == "Fn::Sub":
        out.extend(_sub(arg, path))
    elif name == "Fn::If" and isinstance(arg, list) and len(arg) == 3:
        _walk(arg[1], path, grow, out)
        _walk(arg[2], path, grow, out)
    else:
        _walk(arg, path, False, out)


def _sub(arg: Any, path: SchemaPath) -> Iterator[tuple[str, SchemaPath]]:
    if isinstance(arg, str):
        for target in sub_names(arg):
            yield target, path
        return
    if isinstance(arg, list) and len(arg) == 2:
        text, variables = arg
        shadowed: frozenset[str] = frozenset()
        if isinstance(variables, dict):
            shadowed = frozenset(str(k) for k in variables)
        if isinstance(text, str):
            for target in sub_names(text, shadowed):
                yield target, path
        else:
            yield from _walked(text, path)
        yield from _walked(variables, path)
        return
    yield from _walked(arg, path)


def _walked(value: Any, path: SchemaPath) -> list[tuple[str, SchemaPath]]:
    found: list[tuple[str, SchemaPath]] = []
    _walk(value, path, False, found)
    return found
