"""YAML (and JSON, a subset of it) with CloudFormation's short-form tags, on PyYAML.

The loader is PyYAML's safe loader on libyaml's C parser (``CSafeLoader``; the pure-Python
``SafeLoader`` when PyYAML was built without libyaml), so values mean what YAML 1.1 says
(``yes`` is a boolean, ``2010-09-09`` a date) exactly as with cfn-lint's decoder, which
uses the same loader. On top of it:

- short-form tags become the long form: ``!Ref X`` → ``{"Ref": "X"}``, ``!Condition C`` →
  ``{"Condition": "C"}``, every other ``!Name v`` → ``{"Fn::Name": v}``, and
  ``!GetAtt A.B.C`` → ``{"Fn::GetAtt": ["A", "B.C"]}`` (CloudFormation User Guide,
  "Intrinsic function reference": https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/intrinsic-function-reference.html);
- mappings, sequences and strings keep their position (:mod:`cfnops.templates._nodes`);
- a key given twice in one mapping is an error naming both lines (a YAML merge ``<<``
  may override keys on purpose);
- aliases that expand beyond 250,000 nodes are refused ("billion laughs").
"""

from __future__ import annotations

import json
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from cfnops.templates._nodes import NO_MARK, LocatedDict, LocatedList, LocatedStr
from cfnops.templates.errors import TemplateError

try:
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

_MERGE = "tag:yaml.org,2002:merge"
_MAX_EXPANDED_NODES = 250_000
# Scanner problems that JSON (but not YAML) accepts: tabs as indentation, JSON escapes
_JSON_ONLY = ("found character '\\t' that cannot start any token", "found unknown escape")


class _Failure(Exception):
    def __init__(self, reason: str, mark: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.mark = mark


class CfnLoader(_BaseLoader):
    """PyYAML's safe loader (C parser when available) with CloudFormation's tags."""


def _construct_map(loader: CfnLoader, node: MappingNode) -> LocatedDict:
    merged = any(key.tag == _MERGE for key, _ in node.value)
    loader.flatten_mapping(node)
    mapping = LocatedDict((), node.start_mark, node.end_mark)
    seen: dict[Any, Node] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=False)
        if key is None:
            raise _Failure(f"null key {key_node.value!r} is not supported", key_node.start_mark)
        try:
            first = seen.get(key)
        except TypeError:
            raise _Failure(
                "a mapping key must be a string or number", key_node.start_mark
            ) from None
        if first is not None and not merged:
            raise _Failure(
                f"Duplicate key {key!r} (line {first.start_mark.line + 1} and line "
                f"{key_node.start_mark.line + 1})",
                key_node.start_mark,
            )
        seen[key] = key_node
        mapping[key] = loader.construct_object(value_node, deep=False)
    return mapping


def _construct_seq(loader: CfnLoader, node: SequenceNode) -> LocatedList:
    return LocatedList(loader.construct_sequence(node), node.start_mark, node.end_mark)


def _construct_str(loader: CfnLoader, node: ScalarNode) -> LocatedStr:
    text = SafeConstructor.construct_yaml_str(loader, node)
    return LocatedStr(text, node.start_mark, node.end_mark)


def _get_att(loader: CfnLoader, node: Node) -> Any:
    if isinstance(node, ScalarNode):
        return LocatedList(str(node.value).split(".", 1), node.start_mark, node.end_mark)
    if isinstance(node, MappingNode):
        plain_map = MappingNode("tag:yaml.org,2002:map", node.value, node.start_mark, node.end_mark)
        return LocatedDict(loader.construct_object(plain_map, deep=True))
    assert isinstance(node, SequenceNode)
    items = [loader.construct_object(child, deep=True) for child in node.value]
    return LocatedList(items, node.start_mark, node.end_mark)


def _construct_tag(loader: CfnLoader, suffix: str, node: Node) -> LocatedDict:
    name = suffix if suffix in ("Ref", "Condition") else f"Fn::{suffix}"
    value: Any
    if name == "Fn::GetAtt":
        value = _get_att(loader, node)
    elif isinstance(node, ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        assert isinstance(node, MappingNode)
        value = loader.construct_mapping(node, deep=True)
    return LocatedDict({name: value}, node.start_mark, node.end_mark)


CfnLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)
CfnLoader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)
CfnLoader.add_constructor("tag:yaml.org,2002:str", _construct_str)
CfnLoader.add_multi_constructor("!", _construct_tag)


def _expanded_size(document: Any) -> int:
    """Nodes once aliases are expanded, counted without expanding (memoised by identity)."""
    sizes: dict[int, int] = {}

    def size(value: Any) -> int:
        known = sizes.get(id(value))
        if known is not None:
            return known
        children = value.values() if isinstance(value, dict) else value
        total = 1
        if isinstance(value, dict | list):
            for child in children:
                total += size(child)
                if total > _MAX_EXPANDED_NODES:
                    break
        sizes[id(value)] = total
        return total

    return size(document)


def _load_json(text: str, source: str) -> Any:
    """JSON that YAML rejects (tab indentation): the same document, positions kept."""

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(pairs)
        if len(out) != len(pairs):
            keys = [k for k, _ in pairs]
            dup = next(k for k in keys if keys.count(k) > 1)
            raise TemplateError(source, f"invalid YAML/JSON: Duplicate key {dup!r}")
        return out

    try:
        document = json.loads(text, object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as exc:
        raise TemplateError(
            source, f"invalid YAML/JSON: {exc.msg}", line=exc.lineno, column=exc.colno
        ) from None
    # Valid JSON has tabs only between tokens, where a space means the same: decoding
    # that text again as YAML gives the same values with their line numbers.
    try:
        return yaml.load(text.replace("\t", " "), Loader=CfnLoader)  # CfnLoader is a safe loader
    except yaml.YAMLError:
        return document


def decode(text: str, source: str = "<string>") -> Any:
    """Decode JSON or YAML template text into located values (``{}`` for an empty text).

    Raises :class:`TemplateError` with the line and column of the first problem.
    """
    try:
        document = yaml.load(text, Loader=CfnLoader)  # a safe loader
    except _Failure as exc:
        raise TemplateError(
            source,
            f"invalid YAML/JSON: {exc.reason}",
            line=exc.mark.line + 1,
            column=exc.mark.column + 1,
        ) from None
    except yaml.MarkedYAMLError as exc:
        problem = exc.problem or exc.context or str(exc)
        json_only = isinstance(exc, yaml.scanner.ScannerError) and problem.startswith(_JSON_ONLY)
        if json_only and text.lstrip().startswith(("{", "[")):
            return _load_json(text, source)
        mark = exc.problem_mark or exc.context_mark
        raise TemplateError(
            source,
            f"invalid YAML/JSON: {problem}",
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
        ) from None
    except (yaml.YAMLError, ValueError) as exc:
        raise TemplateError(source, f"invalid YAML/JSON: {exc}") from None
    if document is None:
        return LocatedDict((), NO_MARK, NO_MARK)
    if "&" in text and _expanded_size(document) > _MAX_EXPANDED_NODES:
        raise TemplateError(
            source,
            f"YAML aliases expand to more than {_MAX_EXPANDED_NODES:,} values",
            hint="CloudFormation does not accept YAML aliases: write the values out",
        )
    return document
