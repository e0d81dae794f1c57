"""Evaluate intrinsics before comparing, where the result is known offline.

Two spellings of one value are no change: ``Fn::Sub "arn:${AWS::Partition}:s3:::b"``
equals ``Fn::Join ["", ["arn:", Ref AWS::Partition, ":s3:::b"]]``, ``Fn::Sub "${B}"``
equals ``Ref B``, ``Fn::GetAZs ""`` equals ``Fn::GetAZs`` of ``null`` and of
``Ref AWS::Region`` (in any spelling), ``Fn::Select [1, [a, b]]`` equals ``b``,
``Fn::Split [",", "a,b"]`` equals ``[a, b]`` (and ``Fn::Select`` picks from it),
``Fn::Base64 "text"`` equals the Base64 text. Only rewrites that hold in every
region and account are made: pseudo parameters and references stay symbolic
(their value is the same for the old and the new template of one stack).

AWS docs: "Fn::Sub" (intrinsic-function-reference-sub.html), "Fn::Join"
(intrinsic-function-reference-join.html), "Fn::Select"
(intrinsic-function-reference-select.html), "Fn::GetAZs" — "Specifying an empty
string is equivalent to specifying AWS::Region"; its JSON/YAML examples give the
argument as ``""`` and as ``!Ref "AWS::Region"``; a YAML ``!GetAZs`` without an
argument is ``null`` (intrinsic-function-reference-getavailabilityzones.html),
"Fn::Split" (intrinsic-function-reference-split.html), "Fn::Base64"
(intrinsic-function-reference-base64.html).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any

Canon = tuple[Any, ...]
Part = str | Canon
CanonFn = Callable[[Any], Canon]

_SUB_TOKEN = re.compile(r"\$\{([^}]*)\}")
_REGION: dict[str, Any] = {"Ref": "AWS::Region"}


def _sub_parts(text: str, variables: dict[str, Any], canon: CanonFn) -> list[Part] | None:
    parts: list[Part] = []
    pos = 0
    for match in _SUB_TOKEN.finditer(text):
        parts.append(text[pos : match.start()])
        pos = match.end()
        body = match.group(1)
        if body.startswith("!"):
            parts.append("${" + body[1:] + "}")
            continue
        name = body.strip()
        if name in variables:
            found = string_parts(variables[name], canon)
            if found is None:
                return None
            parts.extend(found)
        elif "." in name and not name.startswith("AWS::"):
            head, _, attr = name.partition(".")
            parts.append(canon({"Fn::GetAtt": [head, attr]}))
        else:
            parts.append(canon({"Ref": name}))
    parts.append(text[pos:])
    return parts


def string_parts(value: Any, canon: CanonFn) -> list[Part] | None:
    """``value`` as literal text and symbolic parts, or ``None`` when not a string value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, bool) or value is None or isinstance(value, list):
        return None
    if isinstance(value, int | float):
        return [str(value)]
    if not isinstance(value, dict) or len(value) != 1:
        return None
    ((name, arg),) = value.items()
    if name == "Fn::Sub":
        return _sub_string_parts(arg, canon)
    if name == "Fn::Join":
        return _join_parts(arg, canon)
    if name == "Fn::Select":
        picked = select(arg)
        return None if picked is _NOTHING else string_parts(picked, canon)
    if name in ("Ref", "Fn::GetAtt"):
        return [canon(value)]
    return None


def _sub_string_parts(arg: Any, canon: CanonFn) -> list[Part] | None:
    """``Fn::Sub``'s text (with its variables, when given) as parts."""
    if isinstance(arg, str):
        return _sub_parts(arg, {}, canon)
    shaped = isinstance(arg, list) and len(arg) == 2 and isinstance(arg[0], str)
    if shaped and isinstance(arg[1], dict):
        return _sub_parts(arg[0], {str(k): v for k, v in arg[1].items()}, canon)
    return None


def _join_parts(arg: Any, canon: CanonFn) -> list[Part] | None:
    """``Fn::Join``'s items with the delimiter between them, if every item is a string."""
    if not (isinstance(arg, list) and len(arg) == 2 and isinstance(arg[0], str)):
        return None
    delimiter, items = arg
    if not isinstance(items, list):
        return None
    out: list[Part] = []
    for index, item in enumerate(items):
        found = string_parts(item, canon)
        if found is None:
            return None
        if index:
            out.append(delimiter)
        out.extend(found)
    return out


_NOTHING = object()


def literal_text(value: Any) -> str | None:
    """``value`` as text when it is a literal (or ``Fn::Sub``/``Fn::Join`` of literals)."""
    parts = string_parts(value, _no_canon)
    if parts is None or not all(isinstance(p, str) for p in parts):
        return None
    return "".join(str(p) for p in parts)


def _no_canon(value: Any) -> Canon:
    return ("symbolic",)  # a Ref/GetAtt part: not literal text


def split(arg: Any) -> list[str] | None:
    """The list ``Fn::Split [delimiter, literal text]`` gives, else ``None``."""
    if not (isinstance(arg, list) and len(arg) == 2 and isinstance(arg[0], str) and arg[0]):
        return None
    text = literal_text(arg[1])
    return None if text is None else text.split(arg[0])


def select(arg: Any) -> Any:
    """The item ``Fn::Select [index, [literal list]]`` picks, else ``_NOTHING``."""
    if not (isinstance(arg, list) and len(arg) == 2):
        return _NOTHING
    items = arg[1]
    if isinstance(items, dict) and set(items) == {"Fn::Split"}:
        items = split(items["Fn::Split"])
    if not isinstance(items, list):
        return _NOTHING
    index = arg[0]
    if isinstance(index, str) and index.isdigit():
        index = int(index)
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(items):
        return _NOTHING
    return items[index]


def _merge(parts: list[Part]) -> list[Part]:
    out: list[Part] = []
    for part in parts:
        if isinstance(part, str):
            if not part:
                continue
            if out and isinstance(out[-1], str):
                out[-1] += part
                continue
        out.append(part)
    return out


def fold(name: str, arg: Any, canon: CanonFn, scalar: CanonFn) -> Canon | None:
    """The canonical form of intrinsic ``{name: arg}`` after evaluation, or ``None``
    when it cannot be evaluated (the caller keeps the call as written)."""
    if name == "Fn::GetAZs":
        if arg == "" or arg is None or (isinstance(arg, dict) and canon(arg) == canon(_REGION)):
            return ("f", "Fn::GetAZs", canon(_REGION))
        return None
    if name == "Fn::Split":
        items = split(arg)
        return None if items is None else ("l", tuple(scalar(i) for i in items))
    if name == "Fn::Base64":
        text = literal_text(arg)
        return None if text is None else scalar(base64.b64encode(text.encode()).decode())
    if name == "Fn::Select":
        picked = select(arg)
        return None if picked is _NOTHING else canon(picked)
    if name not in ("Fn::Sub", "Fn::Join"):
        return None
    parts = string_parts({name: arg}, canon)
    if parts is None:
        return None
    merged = _merge(parts)
    if not merged:
        return scalar("")
    if len(merged) == 1:
        only = merged[0]
        return scalar(only) if isinstance(only, str) else only
    return ("t", tuple(("s", p) if isinstance(p, str) else p for p in merged))
