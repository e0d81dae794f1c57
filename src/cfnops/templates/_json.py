"""JSON templates at the C decoder's speed, with positions where a caller needs them.

PyYAML decodes JSON too (it is YAML), but builds every value in Python: on a 1 MB
template that is a second, against ~10 ms for the standard library's C decoder.
:func:`decode_json` walks the document itself only along the key paths ``keep``
selects — there mappings, sequences and strings get their marks as the YAML loader
gives them (:mod:`cfnops.templates._nodes`) — and hands every other value to the C
scanner whole. Duplicate keys, and anything else it does not accept, raise
:class:`NotFastJson`: the caller then decodes with the YAML loader, which reports
problems with their line.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable
from typing import Any

from yaml import Mark

from cfnops.templates._nodes import LocatedDict, LocatedList, LocatedStr

Path = tuple[str, ...]
Keep = Callable[[Path], bool]
_SPACE = re.compile(r"[ \t\n\r]*")


class NotFastJson(ValueError):
    """The text is not plain JSON without duplicate keys: use the YAML loader."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise NotFastJson("duplicate key")
    return out


# the C implementations (pure Python when the interpreter lacks them); typeshed leaves
# both out of the stubs
scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_SCAN = json.scanner.make_scanner(json.JSONDecoder(object_pairs_hook=_no_duplicates))  # type: ignore[attr-defined]


class _Reader:
    def __init__(self, text: str, source: str, keep: Keep) -> None:
        self.text = text
        self.source = source
        self.keep = keep
        self._newlines: list[int] | None = None

    def mark(self, index: int) -> Mark:
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.text)]
        line = bisect.bisect_left(self._newlines, index)
        start = self._newlines[line - 1] + 1 if line else 0
        return Mark(self.source, index, line, index - start, "", 0)

    def skip(self, index: int) -> int:
        return _SPACE.match(self.text, index).end()  # type: ignore[union-attr]

    def value(self, index: int, path: Path) -> tuple[Any, int]:
        char = self.text[index : index + 1]
        if char == "{":
            return self.mapping(index, path)
        if char == "[":
            return self.sequence(index, path)
        if char == '"':
            text, end = scanstring(self.text, index + 1)
            return LocatedStr(text, self.mark(index), self.mark(end)), end
        return self.scan(index)

    def scan(self, index: int) -> tuple[Any, int]:
        try:
            found: tuple[Any, int] = _SCAN(self.text, index)
        except StopIteration:
            raise NotFastJson(f"no JSON value at {index}") from None
        return found

    def child(self, index: int, path: Path) -> tuple[Any, int]:
        return self.value(index, path) if self.keep(path) else self.scan(index)

    def mapping(self, start: int, path: Path) -> tuple[LocatedDict, int]:
        out = LocatedDict((), self.mark(start))
        index = self.skip(start + 1)
        if self.text.startswith("}", index):
            out.end_mark = self.mark(index + 1)
            return out, index + 1
        while True:
            if not self.text.startswith('"', index):
                raise NotFastJson(f"expected a key at {index}")
            key, index = scanstring(self.text, index + 1)
            index = self.skip(index)
            if not self.text.startswith(":", index):
                raise NotFastJson(f"expected ':' at {index}")
            if key in out:
                raise NotFastJson("duplicate key")
            out[key], index = self.child(self.skip(index + 1), (*path, key))
            index = self.skip(index)
            if self.text.startswith("}", index):
                out.end_mark = self.mark(index + 1)
                return out, index + 1
            if not self.text.startswith(",", index):
                raise NotFastJson(f"expected ',' or '}}' at {index}")
            index = self.skip(index + 1)

    def sequence(self, start: int, path: Path) -> tuple[LocatedList, int]:
        out = LocatedList((), self.mark(start))
        index = self.skip(start + 1)
        if self.text.startswith("]", index):
            out.end_mark = self.mark(index + 1)
            return out, index + 1
        item_path = (*path, "*")
        while True:
            item, index = self.child(index, item_path)
            out.append(item)
            index = self.skip(index)
            if self.text.startswith("]", index):
                out.end_mark = self.mark(index + 1)
                return out, index + 1
            if not self.text.startswith(",", index):
                raise NotFastJson(f"expected ',' or ']' at {index}")
            index = self.skip(index + 1)


def decode_json(text: str, source: str, keep: Keep) -> LocatedDict:
    """A JSON object template; values on paths ``keep`` accepts carry their marks.

    ``keep(path)`` is asked for each key path below the top (``("Resources", "Fn",
    "Properties")``; sequence items add ``"*"``): when true that value is walked and
    located, when false it is decoded whole by the C scanner, as plain values.
    Raises :class:`NotFastJson` for text that is not a plain JSON object.

    >>> body = decode_json('{"A": {"B": "x"}, "C": [1]}', "t.json", lambda p: p[0] == "A")
    >>> body["A"]["B"].start_mark.column, type(body["C"]).__name__
    (12, 'list')
    """
    reader = _Reader(text, source, keep)
    start = reader.skip(0)
    if not text.startswith("{", start):
        raise NotFastJson("not a JSON object")
    try:
        found, end = reader.mapping(start, ())
    except (json.JSONDecodeError, IndexError) as exc:
        raise NotFastJson(str(exc)) from None
    if reader.skip(end) != len(text):
        raise NotFastJson("text after the JSON object")
    return found
