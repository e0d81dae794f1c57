"""Where an effect happens inside a run: a typed path, stored as canonical JSON.

A :class:`Position` is a sequence of segments, read left to right from the run's top:

- :class:`Visit` ``(state, visit)``: the ``visit``-th entry of ``state`` (counted per
  branch, so a position does not depend on how concurrent branches interleave);
- :class:`Branch` ``(launch, index)``: branch (or Map iteration) ``index`` of the
  ``launch``-th fan-out started by the visit before it;
- :class:`Attempt` ``(number)``: a Task's attempt of the visit before it;
- :class:`Sleep` ``(number)``: the visit's ``number``-th wait (a Wait state, a retry
  interval);
- :class:`Mark` ``(name)``: a run-level effect with a name of its own (the end-of-run
  notification).

Map "StopInstances" (its first visit), iteration 0, the second visit of "StopHttpd",
its first attempt::

    Position.of(Visit("StopInstances", 1), Branch(1, 0), Visit("StopHttpd", 2), Attempt(1))
    # stored as [["state","StopInstances",1],["branch",1,0],["state","StopHttpd",2],["attempt",1]]

The stored text is canonical (one spelling per position) and is read back with a JSON
parser into the same typed value: nothing splits strings, so any state name works.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["Attempt", "BadPosition", "Branch", "Mark", "Position", "Segment", "Sleep", "Visit"]


class BadPosition(ValueError):
    """Stored position text that is not a position (names the text and what is wrong)."""

    def __init__(self, text: str, reason: str) -> None:
        super().__init__(f"not an effect position: {text[:200]!r} ({reason})")


@dataclass(frozen=True)
class Visit:
    state: str
    visit: int

    def encode(self) -> list[Any]:
        return ["state", self.state, self.visit]


@dataclass(frozen=True)
class Branch:
    launch: int
    index: int

    def encode(self) -> list[Any]:
        return ["branch", self.launch, self.index]


@dataclass(frozen=True)
class Attempt:
    number: int

    def encode(self) -> list[Any]:
        return ["attempt", self.number]


@dataclass(frozen=True)
class Sleep:
    number: int

    def encode(self) -> list[Any]:
        return ["wait", self.number]


@dataclass(frozen=True)
class Mark:
    name: str

    def encode(self) -> list[Any]:
        return ["mark", self.name]


Segment = Visit | Branch | Attempt | Sleep | Mark


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _decode(item: Any) -> Segment | None:
    if not isinstance(item, list) or not item:
        return None
    tag, args = item[0], item[1:]
    if tag == "state" and len(args) == 2 and isinstance(args[0], str) and _int(args[1]):
        return Visit(args[0], args[1])
    if tag == "branch" and len(args) == 2 and _int(args[0]) and _int(args[1]):
        return Branch(args[0], args[1])
    if tag == "attempt" and len(args) == 1 and _int(args[0]):
        return Attempt(args[0])
    if tag == "wait" and len(args) == 1 and _int(args[0]):
        return Sleep(args[0])
    if tag == "mark" and len(args) == 1 and isinstance(args[0], str):
        return Mark(args[0])
    return None


@dataclass(frozen=True)
class Position:
    """A typed effect position (see the module docstring); hashable, comparable by value."""

    segments: tuple[Segment, ...] = ()

    @classmethod
    def of(cls, *segments: Segment) -> Position:
        return cls(tuple(segments))

    def then(self, *segments: Segment) -> Position:
        """This position followed by ``segments``."""
        return Position(self.segments + tuple(segments))

    def startswith(self, prefix: Position) -> bool:
        """Whether this position lies at or under ``prefix``."""
        n = len(prefix.segments)
        return self.segments[:n] == prefix.segments

    def last_visit(self) -> Visit | None:
        """The innermost state visit on the path (None for a run-level mark)."""
        for segment in reversed(self.segments):
            if isinstance(segment, Visit):
                return segment
        return None

    def entry(self) -> Position:
        """The state entry an attempt or a wait belongs to (itself for anything else)."""
        if self.segments and isinstance(self.segments[-1], Attempt | Sleep):
            return Position(self.segments[:-1])
        return self

    def to_json(self) -> str:
        """The canonical stored text (compact JSON, non-ASCII kept)."""
        return json.dumps(
            [s.encode() for s in self.segments], separators=(",", ":"), ensure_ascii=False
        )

    @classmethod
    def from_json(cls, text: str) -> Position:
        """The position stored as ``text``; :class:`BadPosition` when it is not one."""
        try:
            items = json.loads(text)
        except ValueError as exc:
            raise BadPosition(text, f"not JSON: {exc}") from None
        if not isinstance(items, list):
            raise BadPosition(text, "not a JSON array of segments")
        segments = []
        for item in items:
            segment = _decode(item)
            if segment is None:
                raise BadPosition(text, f"unknown segment {item!r}")
            segments.append(segment)
        return cls(tuple(segments))

    def __str__(self) -> str:
        return self.to_json()
