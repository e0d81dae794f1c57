"""Adopt instead of revert: the stack's template changed to declare the actual values.

The remediation path CDK maintainers describe for intended drift: make the
template match reality. For each drifted property (DescribeStackResourceDrifts'
``PropertyDifferences``: path, actual value, ``NOT_EQUAL``/``ADD``/``REMOVE``) the
literal in ``Resources.<id>.Properties`` is replaced, added or removed. The
original format is kept: JSON stays JSON (key order and indentation), YAML is
edited with ruamel.yaml's round-trip mode (comments, key order, quoting and
CloudFormation short tags such as ``!Ref`` / ``!Sub`` survive). A value the
template does not state literally (``Ref``, ``Fn::Sub``, ``Fn::GetAtt``, any
intrinsic, on the path or above it) is never guessed: it is reported with the
exact place to edit (JSON pointer, YAML line) and what to change there.
Pure: text and drift in, frozen values out.
"""

from __future__ import annotations

import io
import itertools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML

from cfnops.heal._model import ResourceDrift


@dataclass(frozen=True)
class EditHere:
    """A drifted value the template does not state literally: where and what to edit."""

    logical_id: str
    path: str
    actual: str | None
    pointer: str  # JSON pointer of the non-literal value in the template
    line: int | None  # 1-based, YAML only
    found: str  # the intrinsic as written, e.g. "!Ref ValueParam"
    hint: str

    def text(self) -> str:
        where = self.pointer + (f" (line {self.line})" if self.line else "")
        return f"edit here: {where} is {self.found}; actual {self.actual!r}: {self.hint}"

    def to_json(self) -> dict[str, Any]:
        return {
            "logicalId": self.logical_id,
            "path": self.path,
            "actual": self.actual,
            "pointer": self.pointer,
            "line": self.line,
            "found": self.found,
            "hint": self.hint,
        }


@dataclass(frozen=True)
class Adoption:
    """The adopted template and what was done to it."""

    text: str
    format: str  # json | yaml
    adopted: tuple[tuple[str, str, str], ...]  # (logical id, path, what)
    edit_here: tuple[EditHere, ...]
    skipped: tuple[str, ...]  # e.g. deleted resources

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "adopted": [{"logicalId": a, "path": p, "change": c} for a, p, c in self.adopted],
            "editHere": [e.to_json() for e in self.edit_here],
            "skipped": list(self.skipped),
        }


def _yaml(text: str | None = None) -> YAML:
    y = YAML()
    y.preserve_quotes = True
    y.width = 4096  # never re-wrap long lines
    if text is not None:
        y.indent(**_yaml_indent(text))
    return y


_KEY_LINE = re.compile(r"^(\s*)(?:- )?[^\s#][^#]*:\s*(?:#.*)?$")  # "Key:" opening a block
_DASH = re.compile(r"^(\s*)-(\s+)\S")


def _yaml_indent(text: str) -> dict[str, int]:
    """The mapping indent and the sequence indent/offset ``text`` is written with.

    ruamel.yaml writes ``- item`` flush with its parent key unless told otherwise, so a
    template written with indented sequences (``Tags:`` then ``  - Key: a``) would have
    every list moved two columns on the way back.
    """
    mapping: int | None = None
    dash: tuple[int, int] | None = None
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    for prev, cur in itertools.pairwise(lines):
        opened = _KEY_LINE.match(prev)
        if opened is None:
            continue
        parent = (
            len(prev) - len(prev.lstrip(" -"))
            if prev.lstrip().startswith("- ")
            else len(opened.group(1))
        )
        indent = len(cur) - len(cur.lstrip(" "))
        if indent <= parent:
            continue
        item = _DASH.match(cur)
        if item is not None and dash is None:
            dash = (indent - parent, indent - parent + 1 + len(item.group(2)))
        elif item is None and mapping is None:
            mapping = indent - parent
        if mapping is not None and dash is not None:
            break
    mapping = mapping or 2
    offset, sequence = dash if dash is not None else (0, mapping)
    return {"mapping": mapping, "sequence": max(sequence, offset + 2), "offset": offset}


def _intrinsic(node: Any) -> str | None:
    """How ``node`` is written when it is an intrinsic function, else ``None``."""
    tag = getattr(getattr(node, "tag", None), "value", None)
    if isinstance(tag, str) and tag.startswith("!"):
        value = getattr(node, "value", None)
        return f"{tag} {value}" if isinstance(value, str) else tag
    if isinstance(node, dict) and len(node) == 1:
        (key,) = node
        if key == "Ref" or str(key).startswith("Fn::"):
            return json.dumps({key: node[key]}, default=str)
    return None


def _tag_name(found: str) -> str:
    head = found.split(" ", 1)[0]
    if head.startswith("!"):
        return "Ref" if head == "!Ref" else "Fn::" + head[1:]
    match = re.match(r'\{"(Ref|Fn::[A-Za-z]+)"', found)
    return match.group(1) if match else head


def _hint(found: str, node: Any, template: Any, actual: str | None) -> str:
    kind = _tag_name(found)
    if kind == "Ref":
        target = node.get("Ref") if isinstance(node, dict) else getattr(node, "value", None)
        params = template.get("Parameters") or {}
        if isinstance(target, str) and target in params:
            declared = params[target]
            where = _line(declared, "Default") if "Default" in declared else _line(params, target)
            default = f" (or change its Default, line {where})" if where else ""
            return f"Ref to parameter {target}: deploy with {target}={actual}{default}"
        return f"Ref to {target}: the value comes from that resource or pseudo parameter"
    if kind == "Fn::Sub":
        return f"Fn::Sub: edit the string (or its variables) so it renders {actual!r}"
    return f"{kind} is resolved at deploy time: change what it refers to"


def _line(container: Any, key: Any) -> int | None:
    lc = getattr(container, "lc", None)
    if lc is None:
        return None
    try:
        return (
            int(lc.value(key)[0]) + 1 if isinstance(container, dict) else int(lc.item(key)[0]) + 1
        )
    except (KeyError, IndexError, TypeError, AttributeError):
        return None


def _convert(actual: str | None, old: Any) -> Any:
    if actual is None:
        return None
    if isinstance(old, str):
        return actual
    try:
        return json.loads(actual)
    except ValueError:
        return actual


def _escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


def _key(container: Any, part: str) -> Any:
    if isinstance(container, list):
        return int(part) if part.isdigit() else None
    return part


def _has(container: Any, key: Any) -> bool:
    if isinstance(container, dict):
        return key in container
    return isinstance(container, list) and isinstance(key, int) and key < len(container)


def _apply(template: Any, res: ResourceDrift, out: list[Any], edits: list[EditHere]) -> None:
    props = ((template.get("Resources") or {}).get(res.logical_id) or {}).get("Properties")
    base = f"/Resources/{_escape(res.logical_id)}/Properties"
    for p in res.properties:
        if p.ignored or p.accepted:
            continue
        parts = [x.replace("~1", "/").replace("~0", "~") for x in p.path.split("/") if x]
        node, parent, key, pointer = props, None, None, base
        blocked = None
        for i, part in enumerate(parts):
            found = _intrinsic(node)
            if found is not None:
                blocked = (found, node, parent, key, pointer)
                break
            k = _key(node, part)
            last = i == len(parts) - 1
            exists = (isinstance(node, dict) and k in node) or (
                isinstance(node, list) and isinstance(k, int) and k < len(node)
            )
            if not exists and not (last and isinstance(node, dict)):
                node = None
                break
            parent, key, pointer = node, k, f"{pointer}/{_escape(part)}"
            node = node[k] if exists and node is not None else None
        if blocked is None and node is not None:
            found = _intrinsic(node)
            if found is not None:
                blocked = (found, node, parent, key, pointer)
        if blocked is not None:
            found, bnode, bparent, bkey, bpointer = blocked
            edits.append(
                EditHere(
                    res.logical_id,
                    p.path,
                    p.actual,
                    bpointer,
                    _line(bparent, bkey) if bparent is not None else None,
                    found,
                    _hint(found, bnode, template, p.actual),
                )
            )
            continue
        if parent is None or key is None:
            missing = "the property is not declared where drift detection reports it"
            edits.append(
                EditHere(res.logical_id, p.path, p.actual, pointer, None, "(absent)", missing)
            )
            continue
        if p.difference_type == "REMOVE":
            if _has(parent, key):
                del parent[key]
            out.append((res.logical_id, p.path, "removed"))
            continue
        old = parent[key] if (isinstance(parent, dict) and key in parent) else None
        parent[key] = _convert(p.actual, old)
        out.append((res.logical_id, p.path, f"{old!r} → {p.actual!r}"))


def _dump_json(data: Any, original: str | None) -> str:
    indent: int | None = 2
    if original is not None:
        match = re.search(r"\n([ \t]+)\S", original)
        indent = len(match.group(1)) if match else None
    return json.dumps(data, indent=indent) + "\n"


def adopt_template(body: str | dict[str, Any], drifts: Iterable[ResourceDrift]) -> Adoption:
    """``body`` (GetTemplate's ``TemplateBody``) declaring the actual values of ``drifts``."""
    original: str | None
    if isinstance(body, dict):
        fmt, template, original = "json", json.loads(json.dumps(body)), None
    else:
        original = body
        try:
            template, fmt = json.loads(body), "json"
        except ValueError:
            template, fmt = _yaml().load(body), "yaml"
    adopted: list[Any] = []
    edits: list[EditHere] = []
    skipped: list[str] = []
    for res in drifts:
        if res.status == "DELETED":
            skipped.append(
                f"{res.logical_id} was deleted out of band: remove it from the template "
                "or let a heal re-create it (not guessed)"
            )
            continue
        _apply(template, res, adopted, edits)
    if fmt == "json":
        text = _dump_json(template, original)
    else:
        stream = io.StringIO()
        _yaml(original).dump(template, stream)
        text = stream.getvalue()
    return Adoption(text, fmt, tuple(adopted), tuple(edits), tuple(skipped))


def selected(
    drifted: Sequence[ResourceDrift], resources: Sequence[str]
) -> tuple[ResourceDrift, ...]:
    wanted = set(resources)
    return tuple(r for r in drifted if not wanted or r.logical_id in wanted)
