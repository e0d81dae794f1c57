"""JSON value helpers shared by the ASL modules."""

from __future__ import annotations

import json
from typing import Any

JSON = Any
"""A JSON value as Python data: dict, list, str, int, float, bool or None."""

MAX_PAYLOAD_BYTES = 256 * 1024
"""Step Functions' limit on any state input or output (256 KiB, UTF-8)."""


def dumps_compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def json_type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def deep_copy(value: Any) -> Any:
    """A fast copy of plain JSON data (faster than copy.deepcopy)."""
    if isinstance(value, dict):
        return {k: deep_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [deep_copy(v) for v in value]
    return value
