"""Lossless JSON saves: the edited data written as a patch of the file's own text.

The file is parsed with the span of every value; saving walks the old text and the new
data together. A value equal to the old one is copied byte for byte; a changed value is
re-written in place; the gaps between members (indentation, line breaks, one-line
objects) are the file's own wherever two neighbours were neighbours before. Keys keep
the file's order; a key the file lacked goes where Workflow Studio writes it (see
:data:`STATE_ORDER` and :data:`MACHINE_ORDER`), or last. So one edited ``Comment`` is
one changed line in ``git diff``.

>>> text = '{\\n  "StartAt": "A",\\n  "States": {"A": {"Type": "Succeed"}}\\n}\\n'
>>> print(patch_json(text, {"States": {"A": {"Type": "Succeed", "Comment": "x"}}, "StartAt": "A"}))
{
  "StartAt": "A",
  "States": {"A": {"Type": "Succeed", "Comment": "x"}}
}
<BLANKLINE>
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MACHINE_ORDER", "STATE_ORDER", "key_order", "patch_json"]

# The order in which Workflow Studio writes a state machine's and a state's fields
# (Type first, the work, the data-flow fields, error handling, the transition last), as
# in the examples of https://docs.aws.amazon.com/step-functions/latest/dg/state-task.html
# and https://docs.aws.amazon.com/step-functions/latest/dg/statemachine-structure.html.
MACHINE_ORDER = ("Comment", "QueryLanguage", "StartAt", "States", "TimeoutSeconds", "Version")
STATE_ORDER = (
    "Type", "Comment", "QueryLanguage", "Resource", "Credentials", "Arguments", "Parameters",
    "ItemsPath", "Items", "ItemReader", "ItemSelector", "ItemBatcher", "ItemProcessor",
    "Iterator", "Branches",
    "MaxConcurrency", "MaxConcurrencyPath", "ToleratedFailurePercentage",
    "ToleratedFailurePercentagePath", "ToleratedFailureCount", "ToleratedFailureCountPath",
    "ResultWriter", "Choices", "Default", "Seconds", "SecondsPath", "Timestamp",
    "TimestampPath", "Result", "InputPath", "ResultSelector", "ResultPath", "OutputPath",
    "Output", "Assign", "TimeoutSeconds", "TimeoutSecondsPath", "HeartbeatSeconds",
    "HeartbeatSecondsPath",
    "Retry", "Catch", "Error", "ErrorPath", "Cause", "CausePath", "Next", "End",
)  # fmt: skip
_MACHINE_RANK = {key: i for i, key in enumerate(MACHINE_ORDER)}
_STATE_RANK = {key: i for i, key in enumerate(STATE_ORDER)}
_SPACE = re.compile(r"[ \t\r\n]*")
_DECODER = json.JSONDecoder()


@dataclass
class _Node:
    """One value of the text: its span and, for objects and arrays, its children."""

    start: int
    end: int = 0
    keys: list[tuple[str, int]] = field(default_factory=list)  # key and its quote's offset
    children: list[_Node] = field(default_factory=list)
    kind: str = "scalar"


def _skip(text: str, pos: int) -> int:
    found = _SPACE.match(text, pos)
    return found.end() if found else pos


def _parse(text: str, pos: int) -> _Node:
    pos = _skip(text, pos)
    char = text[pos]
    if char not in "{[":
        _, end = _DECODER.raw_decode(text, pos)
        return _Node(pos, end)
    node = _Node(pos, kind="object" if char == "{" else "array")
    close = "}" if char == "{" else "]"
    pos = _skip(text, pos + 1)
    while text[pos] != close:
        if node.kind == "object":
            key, after = _DECODER.raw_decode(text, pos)
            node.keys.append((str(key), pos))
            pos = _skip(text, after) + 1  # the colon
        child = _parse(text, pos)
        node.children.append(child)
        pos = _skip(text, child.end)
        if text[pos] == ",":
            pos = _skip(text, pos + 1)
    node.end = pos + 1
    return node


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    return text[start : _skip(text, start)].replace("\n", "")


class _Patcher:
    def __init__(self, text: str) -> None:
        self.text = text
        found = re.search(r"\n([ \t]+)\S", text)
        self.unit = found.group(1) if found else "  "

    def fresh(self, value: Any, indent: str, multiline: bool) -> str:
        if not multiline:
            return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
        out = json.dumps(value, indent=len(self.unit), ensure_ascii=False)
        if "\t" in self.unit:
            out = re.sub(r"(?m)^( +)", lambda m: "\t" * (len(m.group(1)) // len(self.unit)), out)
        return out.replace("\n", "\n" + indent)

    def render(self, node: _Node, old: Any, new: Any) -> str:
        if type(old) is type(new) and old == new:
            return self.text[node.start : node.end]
        if node.kind == "object" and isinstance(new, Mapping) and node.children:
            return self.object(node, old, new)
        if node.kind == "array" and isinstance(new, list) and node.children:
            return self.array(node, old, new)
        inner = self.text[node.start : node.end]
        return self.fresh(new, _line_indent(self.text, node.start), "\n" in inner or not inner)

    def _gap(self, node: _Node, i: int) -> str:
        """The text between child ``i - 1`` and child ``i`` (from the value's end)."""
        after = node.children[i - 1].end
        before = node.keys[i][1] if node.kind == "object" else node.children[i].start
        return self.text[after:before]

    def _layout(self, node: _Node) -> tuple[str, str, str]:
        """The text after the opening bracket, the usual gap and the text before the close."""
        first = node.keys[0][1] if node.kind == "object" else node.children[0].start
        lead = self.text[node.start + 1 : first]
        gap = self._gap(node, 1) if len(node.children) > 1 else "," + (lead or " ")
        return lead, gap, self.text[node.children[-1].end : node.end - 1]

    def _join(self, node: _Node, pieces: list[tuple[int | None, str]]) -> str:
        lead, gap, tail = self._layout(node)
        out, previous = [], None
        for i, (old_index, piece) in enumerate(pieces):
            if i:
                adjacent = old_index is not None and previous is not None
                same = adjacent and old_index == (previous or 0) + 1
                out.append(self._gap(node, old_index) if same and old_index else gap)
            out.append(piece)
            previous = old_index
        opening, closing = ("{", "}") if node.kind == "object" else ("[", "]")
        return opening + (lead + "".join(out) + tail if pieces else "") + closing

    def object(self, node: _Node, old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
        index = {key: i for i, (key, _) in enumerate(node.keys)}
        order = key_order([k for k, _ in node.keys], list(new))
        lead, _, _ = self._layout(node)
        multiline = "\n" in lead
        indent = lead.rsplit("\n", 1)[-1] if multiline else ""
        colon = self.text[node.keys[0][1] : node.children[0].start]
        colon = colon[len(json.dumps(node.keys[0][0], ensure_ascii=False)) :] or ": "
        pieces: list[tuple[int | None, str]] = []
        for key in order:
            i = index.get(key)
            if i is None:
                value = self.fresh(new[key], indent, multiline)
                pieces.append((None, json.dumps(key, ensure_ascii=False) + colon + value))
                continue
            child = node.children[i]
            head = self.text[node.keys[i][1] : child.start]
            pieces.append((i, head + self.render(child, old[key], new[key])))
        return self._join(node, pieces)

    def array(self, node: _Node, old: list[Any], new: list[Any]) -> str:
        lead, _, _ = self._layout(node)
        multiline = "\n" in lead
        indent = lead.rsplit("\n", 1)[-1] if multiline else ""
        pieces: list[tuple[int | None, str]] = []
        for i, value in enumerate(new):
            if i < len(node.children):
                pieces.append((i, self.render(node.children[i], old[i], value)))
            else:
                pieces.append((None, self.fresh(value, indent, multiline)))
        return self._join(node, pieces)


def key_order(old_keys: list[str], new_keys: list[str]) -> list[str]:
    """The file's keys that remain, in its order, with each new key placed after the last
    key that Workflow Studio writes before it (or last, for keys it does not order)."""
    rank = _STATE_RANK if "Type" in new_keys else _MACHINE_RANK if "States" in new_keys else {}
    kept = set(new_keys)
    order = [k for k in old_keys if k in kept]
    known = set(order)
    for key in new_keys:
        if key in known:
            continue
        position = len(order)
        if key in rank:
            before = [i for i, k in enumerate(order) if rank.get(k, -1) > rank[key]]
            after = [i for i, k in enumerate(order) if k in rank and rank[k] < rank[key]]
            if before and (not after or before[0] > after[-1]):
                position = before[0]
            elif after:
                position = after[-1] + 1
        order.insert(position, key)
        known.add(key)
    return order


def patch_json(text: str, data: Mapping[str, Any]) -> str:
    """``data`` written as ``text`` edited: everything equal stays as it was, byte for byte."""
    old = json.loads(text)
    root = _parse(text, 0)
    patcher = _Patcher(text)
    return text[: root.start] + patcher.render(root, old, dict(data)) + text[root.end :]
