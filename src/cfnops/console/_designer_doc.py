"""The designer's document model: an ASL definition as text, opened and saved losslessly.

The designer edits the definition as plain JSON data (the browser holds it as an
object; every field it does not model is simply carried along). This module turns
text into that data and back:

- :func:`open_text` parses JSON or YAML, reporting a syntax error at its line and
  column (the page shows it beside the code and keeps the drawing);
- :func:`save_text` writes the data in the document's own format. Saved without an
  edit, the text is returned unchanged, byte for byte. After edits, JSON is the
  original text patched (:func:`._designer_json.patch_json`): only changed values are
  rewritten, in the file's indentation and key order; YAML is written by merging the
  data into the original round-trip tree (ruamel.yaml), so comments, quoting and
  key order of everything untouched stay as they were. Keys keep the file's order
  (the page may send them in any order); new keys go where Workflow Studio puts them
  (:mod:`._designer_json`).

>>> doc = open_text('{"StartAt": "A", "States": {"A": {"Type": "Succeed"}}}')
>>> doc.format, doc.data["StartAt"]
('json', 'A')
>>> save_text(doc, doc.data) == doc.text
True
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from cfnops.console._designer_json import key_order, patch_json
from cfnops.console.errors import ConsoleError

__all__ = ["DesignDoc", "DesignSyntaxError", "format_for", "open_text", "save_text"]

FORMATS = ("json", "yaml")


class DesignSyntaxError(ConsoleError):
    """The text is not JSON or YAML (at ``line``/``column``, 1-based), or not an object."""

    status = 422

    def __init__(self, fmt: str, line: int | None, column: int | None, problem: str) -> None:
        where = f"line {line}" + (f", column {column}" if column else "") if line else "the text"
        super().__init__(
            f"{fmt.upper()} syntax error at {where}: {problem}",
            hint="fix the text at that line; the drawing keeps the last valid definition",
        )
        self.format, self.line, self.column, self.problem = fmt, line, column, problem

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "line": self.line,
            "column": self.column,
            "message": self.message,
        }


@dataclass(frozen=True)
class DesignDoc:
    """One opened definition: its format, its original text and its data (plain JSON)."""

    format: str
    text: str
    data: dict[str, Any]


def format_for(name: str, text: str = "") -> str:
    """``json`` or ``yaml``: by the file name's suffix, else by the text's first character."""
    lowered = name.lower()
    if lowered.endswith((".yaml", ".yml")):
        return "yaml"
    if lowered.endswith(".json"):
        return "json"
    return "json" if text.lstrip().startswith("{") or not text.strip() else "yaml"


def _yaml() -> YAML:
    y = YAML(typ="rt")
    y.preserve_quotes = True
    y.width = 4096  # long JSONata expressions stay on one line
    y.indent(mapping=2, sequence=4, offset=2)
    return y


def plain(value: Any) -> Any:
    """Round-trip YAML values as plain JSON data (timestamps as their ISO text)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def open_text(text: str, fmt: str | None = None) -> DesignDoc:
    """Parse ``text`` (``fmt`` ``json``/``yaml``, guessed when None) into a document."""
    fmt = fmt or format_for("", text)
    if fmt not in FORMATS:
        raise DesignSyntaxError(fmt, None, None, "the format must be json or yaml")
    if fmt == "json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DesignSyntaxError("json", exc.lineno, exc.colno, exc.msg) from None
    else:
        try:
            data = plain(_yaml().load(text))
        except (MarkedYAMLError, YAMLError) as exc:
            mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
            line = mark.line + 1 if mark is not None else None
            column = mark.column + 1 if mark is not None else None
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise DesignSyntaxError("yaml", line, column, str(problem)) from None
    if not isinstance(data, dict):
        raise DesignSyntaxError(fmt, 1, None, "the top level must be an object (a state machine)")
    return DesignDoc(fmt, text, data)


def save_text(doc: DesignDoc | None, data: Mapping[str, Any], fmt: str | None = None) -> str:
    """The text of ``data`` in ``fmt`` (default: the document's format), lossless to ``doc``."""
    fmt = fmt or (doc.format if doc else "json")
    if fmt not in FORMATS:
        raise DesignSyntaxError(fmt, None, None, "the format must be json or yaml")
    same_format = doc is not None and doc.format == fmt
    if same_format and doc is not None and doc.data == data:
        return doc.text  # opened and saved without an edit: the very same bytes
    if fmt == "json":
        if same_format and doc is not None:
            return patch_json(doc.text, data)
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    y = _yaml()
    tree: Any = None
    if same_format and doc is not None:
        tree = y.load(doc.text)
    tree = _merge(tree, data)
    buffer = io.StringIO()
    y.dump(tree, buffer)
    return buffer.getvalue()


def _merge(old: Any, new: Any) -> Any:
    """``new`` expressed in ``old``'s round-trip nodes wherever they are equal or nested."""
    if isinstance(new, Mapping):
        target = old if isinstance(old, CommentedMap) else CommentedMap()
        for key in [k for k in target if k not in new]:
            del target[key]
        order = key_order(list(target), list(new))
        for key, value in new.items():
            target[key] = _merge(target.get(key), value)
        _reorder(target, order)
        return target
    if isinstance(new, list):
        seq = old if isinstance(old, CommentedSeq) else CommentedSeq()
        del seq[len(new) :]
        for i, value in enumerate(new):
            if i < len(seq):
                seq[i] = _merge(seq[i], value)
            else:
                seq.append(_merge(None, value))
        return seq
    scalar = old is not None and not isinstance(old, Mapping | list)
    if scalar and plain(old) == new and type(plain(old)) is type(new):
        return old  # keeps the scalar's quoting and style
    return new


def _reorder(target: CommentedMap, order: list[str]) -> None:
    """Put the keys in ``order`` (the data's order) when they are not in it already."""
    if list(target) == order:
        return
    items = [(k, target[k]) for k in order]
    for key in order:
        del target[key]
    for position, (key, value) in enumerate(items):
        target.insert(position, key, value)
