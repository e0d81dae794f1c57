"""Check sandbox responses against botocore's service model.

botocore's parser silently drops fields its model does not know and accepts
wrong types, so a sandbox can look right to boto3 while being wrong. Two checks:

- :func:`assert_matches_output_shape` walks a *parsed* response and fails on any
  field not in the operation's output shape (recursively), wrong types and
  values outside a string enum;
- :class:`RawShapeChecker` hooks a client's ``before-parse`` event and checks the
  *raw* body (XML or JSON) of every response it sees, so fields botocore would
  have dropped are caught too.

Example::

    resp = cfn.describe_stack_resource_drifts(StackName="s")
    assert_matches_output_shape(cfn, "DescribeStackResourceDrifts", resp)
"""

from __future__ import annotations

import datetime as dt
import json
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Any

from botocore.model import ListShape, MapShape, Shape, StructureShape

if TYPE_CHECKING:
    from botocore.client import BaseClient

__all__ = [
    "RawShapeChecker",
    "ShapeMismatch",
    "assert_matches_output_shape",
    "output_shape_problems",
]

_TOP_LEVEL_EXTRA = frozenset({"ResponseMetadata"})


class ShapeMismatch(AssertionError):
    """A response does not fit the operation's output shape (lists every problem)."""


def _kind_problem(shape: Shape, value: Any, path: str) -> str | None:
    t = shape.type_name
    ok: bool
    if t == "string":
        ok = isinstance(value, str)
        enum = shape.metadata.get("enum") if ok else None
        if enum and value not in enum:
            return f"{path}: {value!r} is not one of {sorted(enum)}"
    elif t in ("integer", "long"):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif t in ("double", "float"):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    elif t == "boolean":
        ok = isinstance(value, bool)
    elif t == "timestamp":
        ok = isinstance(value, dt.datetime)
    elif t == "blob":
        ok = isinstance(value, bytes | bytearray) or hasattr(value, "read")
    else:
        return None
    return None if ok else f"{path}: expected {t}, got {type(value).__name__}"


def _walk(shape: Shape, value: Any, path: str, problems: list[str]) -> None:
    if isinstance(shape, StructureShape):
        _walk_structure(shape, value, path, problems)
    elif isinstance(shape, ListShape):
        _walk_list(shape, value, path, problems)
    elif isinstance(shape, MapShape):
        _walk_map(shape, value, path, problems)
    else:
        problem = _kind_problem(shape, value, path or "/")
        if problem:
            problems.append(problem)


def _walk_structure(shape: StructureShape, value: Any, path: str, problems: list[str]) -> None:
    if not isinstance(value, dict):
        problems.append(f"{path}: expected structure {shape.name}, got {type(value).__name__}")
        return
    for key, item in value.items():
        member = shape.members.get(key)
        if member is None:
            if not (path == "" and key in _TOP_LEVEL_EXTRA):
                problems.append(f"{path}/{key}: not a member of {shape.name}")
            continue
        _walk(member, item, f"{path}/{key}", problems)


def _walk_list(shape: ListShape, value: Any, path: str, problems: list[str]) -> None:
    if not isinstance(value, list):
        problems.append(f"{path}: expected list, got {type(value).__name__}")
        return
    for i, item in enumerate(value):
        _walk(shape.member, item, f"{path}/{i}", problems)


def _walk_map(shape: MapShape, value: Any, path: str, problems: list[str]) -> None:
    if not isinstance(value, dict):
        problems.append(f"{path}: expected map, got {type(value).__name__}")
        return
    for key, item in value.items():
        _walk(shape.value, item, f"{path}/{key}", problems)


def output_shape_problems(
    client: BaseClient, operation_name: str, response: dict[str, Any]
) -> list[str]:
    """Every way ``response`` (parsed by boto3) departs from the output shape."""
    model = client.meta.service_model.operation_model(operation_name)
    shape = model.output_shape
    if shape is None:
        extra = sorted(set(response) - _TOP_LEVEL_EXTRA)
        return [f"/{k}: {operation_name} has no output" for k in extra]
    problems: list[str] = []
    _walk(shape, response, "", problems)
    return problems


def assert_matches_output_shape(
    client: BaseClient, operation_name: str, response: dict[str, Any]
) -> None:
    """Fail (``ShapeMismatch``) unless every field of ``response`` is in the output shape."""
    problems = output_shape_problems(client, operation_name, response)
    if problems:
        raise ShapeMismatch(f"{operation_name} response:\n  " + "\n  ".join(problems))


# raw bodies -------------------------------------------------------------------


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _xml_name(name: str, shape: Shape) -> str:
    return str(shape.serialization.get("name", name))


def _walk_xml(shape: Shape, elem: ET.Element, path: str, problems: list[str]) -> None:
    if isinstance(shape, StructureShape):
        _walk_xml_structure(shape, elem, path, problems)
    elif isinstance(shape, ListShape):
        _walk_xml_list(shape, elem, path, problems)
    elif isinstance(shape, MapShape):
        _walk_xml_map(shape, elem, path, problems)
    elif shape.type_name == "string":
        enum = shape.metadata.get("enum")
        text = elem.text or ""
        if enum and text not in enum:
            problems.append(f"{path}: {text!r} is not one of {sorted(enum)}")


def _walk_xml_structure(
    shape: StructureShape, elem: ET.Element, path: str, problems: list[str]
) -> None:
    by_xml = {_xml_name(n, m): (n, m) for n, m in shape.members.items()}
    for child in elem:
        tag = _local(child.tag)
        found = by_xml.get(tag)
        if found is None:
            problems.append(f"{path}/{tag}: not a member of {shape.name}")
            continue
        name, member = found
        if isinstance(member, ListShape) and member.serialization.get("flattened"):
            _walk_xml(member.member, child, f"{path}/{name}", problems)
        else:
            _walk_xml(member, child, f"{path}/{name}", problems)


def _walk_xml_list(shape: ListShape, elem: ET.Element, path: str, problems: list[str]) -> None:
    item_name = str(shape.member.serialization.get("name", "member"))
    for i, child in enumerate(elem):
        if _local(child.tag) != item_name:
            problems.append(f"{path}/{i}: list item <{_local(child.tag)}>, want <{item_name}>")
            continue
        _walk_xml(shape.member, child, f"{path}/{i}", problems)


def _xml_child(elem: ET.Element, name: str) -> ET.Element | None:
    """The child ``name`` in any namespace, else the un-namespaced one."""
    found = elem.find(f"./{{*}}{name}")
    if found is None:
        found = elem.find(name)
    return found


def _walk_xml_map(shape: MapShape, elem: ET.Element, path: str, problems: list[str]) -> None:
    for child in elem:
        key = _xml_child(child, "key")
        val = _xml_child(child, "value")
        if val is not None:
            _walk_xml(shape.value, val, f"{path}/{key.text if key is not None else '?'}", problems)


def _walk_json(shape: Shape, value: Any, path: str, problems: list[str]) -> None:
    if isinstance(shape, StructureShape):
        _walk_json_structure(shape, value, path, problems)
    elif isinstance(shape, ListShape):
        _walk_json_list(shape, value, path, problems)
    elif isinstance(shape, MapShape):
        if isinstance(value, dict):
            for key, item in value.items():
                _walk_json(shape.value, item, f"{path}/{key}", problems)
    elif shape.type_name == "string":
        _check_json_string(shape, value, path, problems)


def _walk_json_structure(shape: StructureShape, value: Any, path: str, problems: list[str]) -> None:
    if not isinstance(value, dict):
        problems.append(f"{path}: expected object, got {type(value).__name__}")
        return
    by_json = {str(m.serialization.get("name", n)): (n, m) for n, m in shape.members.items()}
    for key, item in value.items():
        found = by_json.get(key)
        if found is None:
            problems.append(f"{path}/{key}: not a member of {shape.name}")
            continue
        _walk_json(found[1], item, f"{path}/{found[0]}", problems)


def _walk_json_list(shape: ListShape, value: Any, path: str, problems: list[str]) -> None:
    if not isinstance(value, list):
        problems.append(f"{path}: expected array, got {type(value).__name__}")
        return
    for i, item in enumerate(value):
        _walk_json(shape.member, item, f"{path}/{i}", problems)


def _check_json_string(shape: Shape, value: Any, path: str, problems: list[str]) -> None:
    enum = shape.metadata.get("enum")
    if not isinstance(value, str):
        problems.append(f"{path}: expected string, got {type(value).__name__}")
    elif enum and value not in enum:
        problems.append(f"{path}: {value!r} is not one of {sorted(enum)}")


def raw_body_problems(operation_model: Any, body: bytes) -> list[str]:
    """Problems in a raw response body (XML for query/ec2/rest-xml, else JSON)."""
    shape = operation_model.output_shape
    if shape is None or not body.strip():
        return []
    protocol = operation_model.metadata["protocol"]
    problems: list[str] = []
    if protocol in ("query", "ec2", "rest-xml"):
        root = ET.fromstring(body)
        if _local(root.tag) in ("ErrorResponse", "Response", "Error"):
            return []
        node = root
        if protocol == "query":
            wrapper = operation_model.output_shape.serialization.get(
                "resultWrapper", f"{operation_model.name}Result"
            )
            node = next((c for c in root if _local(c.tag) == wrapper), root)
            other = [
                _local(c.tag) for c in root if _local(c.tag) not in (wrapper, "ResponseMetadata")
            ]
            problems += [f"/{tag}: unexpected element beside the result" for tag in other]
        skip = {"ResponseMetadata", "requestId", "RequestId"} if node is root else set()
        filtered = ET.Element(node.tag)
        filtered.extend(c for c in node if _local(c.tag) not in skip)
        _walk_xml(shape, filtered, "", problems)
    else:
        data = json.loads(body)
        if isinstance(data, dict) and ("__type" in data or ("code" in data and "message" in data)):
            return []
        _walk_json(shape, data, "", problems)
    return problems


class RawShapeChecker:
    """Context manager checking the raw body of every response ``client`` receives.

    Example::

        with RawShapeChecker(cfn) as raw:
            cfn.describe_stack_drift_detection_status(StackDriftDetectionId=i)
        raw.assert_clean()
    """

    def __init__(self, client: BaseClient) -> None:
        self.client = client
        self.problems: list[str] = []
        self.checked: list[str] = []
        service_id = client.meta.service_model.service_id.hyphenize()
        self._event = f"before-parse.{service_id}"

    def _handler(self, operation_model: Any, response_dict: dict[str, Any], **_: Any) -> None:
        if int(response_dict.get("status_code", 200)) >= 300:
            return
        body = response_dict.get("body", b"")
        if not isinstance(body, bytes | bytearray):
            return
        self.checked.append(operation_model.name)
        for problem in raw_body_problems(operation_model, bytes(body)):
            self.problems.append(f"{operation_model.name}: {problem}")

    def __enter__(self) -> RawShapeChecker:
        self.client.meta.events.register(self._event, self._handler)
        return self

    def __exit__(self, *exc_info: object) -> None:  # unhooks whether or not it raised
        self.client.meta.events.unregister(self._event, self._handler)

    def assert_clean(self) -> None:
        if self.problems:
            raise ShapeMismatch("raw responses:\n  " + "\n  ".join(self.problems))
