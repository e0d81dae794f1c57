"""Expand ``Fn::ForEach`` loops (``AWS::LanguageExtensions``) before diffing.

``"Fn::ForEach::Name": [Identifier, [items...], {"Key${Identifier}": fragment}]``
produces one entry per item: ``${Identifier}`` and ``&{Identifier}`` in the
output key, ``{"Ref": Identifier}`` and ``${Identifier}`` inside ``Fn::Sub``
strings of the fragment are replaced by the item (AWS docs:
"Fn::ForEach", intrinsic-function-reference-foreach.html). Loops whose
collection is not a literal list (a parameter, ``Fn::GetAZs``…) cannot be
expanded offline and are kept as the single opaque entry.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_PREFIX = "Fn::ForEach::"
_NON_ALNUM = re.compile(r"[^A-Za-z0-9]")


def has_foreach(section: Any) -> bool:
    return isinstance(section, Mapping) and any(
        isinstance(k, str) and k.startswith(_PREFIX) for k in section
    )


def expand_section(section: Mapping[str, Any], depth: int = 0) -> dict[str, Any]:
    """``section`` with every expandable ``Fn::ForEach::*`` key replaced by its entries."""
    out: dict[str, Any] = {}
    for key, value in section.items():
        if isinstance(key, str) and key.startswith(_PREFIX) and depth < 5:
            expanded = _expand(value, depth)
            if expanded is not None:
                out.update(expanded)
                continue
        out[key] = value
    return out


def _expand(loop: Any, depth: int) -> dict[str, Any] | None:
    if not (isinstance(loop, list) and len(loop) == 3):
        return None
    ident, items, body = loop
    if not isinstance(ident, str) or not isinstance(body, Mapping):
        return None
    if not isinstance(items, list) or not all(isinstance(i, str | int | float) for i in items):
        return None
    out: dict[str, Any] = {}
    for item in items:
        text = str(item)
        produced = {_key(str(k), ident, text): _substitute(v, ident, text) for k, v in body.items()}
        out.update(expand_section(produced, depth + 1))
    return out


def _key(key: str, ident: str, item: str) -> str:
    return key.replace("${" + ident + "}", item).replace(
        "&{" + ident + "}", _NON_ALNUM.sub("", item)
    )


def _substitute(value: Any, ident: str, item: str) -> Any:
    if isinstance(value, Mapping):
        if len(value) == 1 and value.get("Ref") == ident:
            return item
        if len(value) == 1 and "Fn::Sub" in value:
            return {"Fn::Sub": _sub_arg(value["Fn::Sub"], ident, item)}
        # Keys too: an inner loop's output key may name the outer identifier.
        return {_key(str(k), ident, item): _substitute(v, ident, item) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, ident, item) for v in value]
    return value


def _sub_arg(arg: Any, ident: str, item: str) -> Any:
    if isinstance(arg, str):
        return arg.replace("${" + ident + "}", item)
    if isinstance(arg, list) and len(arg) == 2 and isinstance(arg[0], str):
        variables = arg[1]
        if isinstance(variables, Mapping) and ident in variables:
            return [arg[0], _substitute(variables, ident, item)]
        return [arg[0].replace("${" + ident + "}", item), _substitute(variables, ident, item)]
    return _substitute(arg, ident, item)
