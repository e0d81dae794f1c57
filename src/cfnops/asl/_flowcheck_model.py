"""Values of the data-flow check (``cfnops job check``): unknown values, shapes, findings.

A Task whose result is neither declared (``--task-results``) nor sampled from an AWS
service model yields an :class:`Unknown`: a reference into it is *not checked* rather than
an error, and the report lists it as such.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cfnops.asl._values import json_type_name

__all__ = [
    "CheckFinding",
    "CheckReport",
    "NotChecked",
    "StateShape",
    "Unknown",
    "contains_unknown",
    "pointer",
    "shape_of",
    "shape_text",
]


@dataclass(frozen=True, slots=True)
class Unknown:
    """A value the check cannot know (the result of an undeclared Task, and what follows)."""

    origin: str


def contains_unknown(value: Any) -> bool:
    if isinstance(value, Unknown):
        return True
    if isinstance(value, dict):
        return any(contains_unknown(v) for v in value.values())
    if isinstance(value, list):
        return any(contains_unknown(v) for v in value)
    return False


def without_unknowns(value: Any) -> Any:
    """The value with every unknown part replaced by null (for evaluations that skip them)."""
    if isinstance(value, Unknown):
        return None
    if isinstance(value, dict):
        return {k: without_unknowns(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_unknowns(v) for v in value]
    return value


def pointer(*parts: str | int) -> str:
    """A JSON pointer (RFC 6901) from its unescaped parts."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def shape_of(value: Any) -> Any:
    """The JSON shape of a value: type names in place of scalars, one item per array."""
    if isinstance(value, Unknown):
        return "unknown"
    if isinstance(value, dict):
        return {k: shape_of(v) for k, v in value.items()}
    if isinstance(value, list):
        if not value:
            return []
        first = shape_of(value[0])
        others = [s for s in (shape_of(v) for v in value[1:]) if s != first]
        return [first, *others[:2]]
    return json_type_name(value)


def shape_text(shape: Any, width: int = 0) -> str:
    """``{a: string, ids: [string], b: {c: number}}``; cut to ``width`` when given."""
    if isinstance(shape, dict):
        text = "{" + ", ".join(f"{k}: {shape_text(v)}" for k, v in shape.items()) + "}"
    elif isinstance(shape, list):
        text = "[" + " | ".join(shape_text(s) for s in shape) + "]"
    else:
        text = str(shape)
    if width and len(text) > width:
        return text[: width - 1] + "…"
    return text


@dataclass(frozen=True, slots=True)
class CheckFinding:
    """A problem found by the check: ``severity`` is ``error`` (exit 2) or ``warning``."""

    severity: str
    code: str
    pointer: str
    message: str
    suggestion: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "severity": self.severity,
            "code": self.code,
            "pointer": self.pointer,
            "message": self.message,
        }
        if self.suggestion:
            out["suggestion"] = self.suggestion
        return out

    def __str__(self) -> str:
        fix = f" (fix: {self.suggestion})" if self.suggestion else ""
        return f"{self.pointer}: {self.message}{fix}"


@dataclass(frozen=True, slots=True)
class NotChecked:
    """A reference the check could not decide because it reads an unknown value."""

    pointer: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"pointer": self.pointer, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class StateShape:
    """What a state receives and passes on, over every visit of the walk."""

    pointer: str
    name: str
    type: str
    inputs: tuple[Any, ...]
    outputs: tuple[Any, ...]
    payloads: tuple[Any, ...] = ()
    result_source: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pointer": self.pointer,
            "state": self.name,
            "type": self.type,
            "input": list(self.inputs),
            "output": list(self.outputs),
        }
        if self.type in ("Task", "Map", "Parallel"):
            out["payload"] = list(self.payloads)
            out["result"] = self.result_source
        return out


@dataclass(frozen=True, slots=True)
class CheckReport:
    """The outcome of :func:`cfnops.jobs.check_dataflow`."""

    findings: tuple[CheckFinding, ...]
    states: tuple[StateShape, ...]
    not_checked: tuple[NotChecked, ...] = field(default=())
    unreached: tuple[str, ...] = field(default=())

    @property
    def errors(self) -> tuple[CheckFinding, ...]:
        return tuple(f for f in self.findings if f.severity == "error")

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "findings": [f.to_json() for f in self.findings],
            "notChecked": [n.to_json() for n in self.not_checked],
            "unreached": list(self.unreached),
            "states": [s.to_json() for s in self.states],
        }


def merge_shape(seen: list[Any], value: Any, limit: int = 3) -> None:
    shape = shape_of(value)
    if shape not in seen and len(seen) < limit:
        seen.append(shape)


def as_mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
