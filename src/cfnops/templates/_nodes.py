"""Decoded values that remember where they were in the source (``start_mark``/``end_mark``).

They behave exactly as ``dict``, ``list`` and ``str`` (equality, hashing, JSON encoding);
the marks are PyYAML ``Mark`` objects whose ``line`` and ``column`` are 0-based.
"""

from __future__ import annotations

from typing import Any

from yaml import Mark

NO_MARK = Mark("<template>", 0, 0, 0, "", 0)  # a value the loader made, not read


class LocatedDict(dict[Any, Any]):
    """A mapping from the template, with the position of its first and last character."""

    def __init__(self, items: Any = (), start_mark: Mark = NO_MARK, end_mark: Mark = NO_MARK):
        super().__init__(items)
        self.start_mark = start_mark
        self.end_mark = end_mark


class LocatedList(list[Any]):
    """A sequence from the template, with its position."""

    def __init__(self, items: Any = (), start_mark: Mark = NO_MARK, end_mark: Mark = NO_MARK):
        super().__init__(items)
        self.start_mark = start_mark
        self.end_mark = end_mark


class LocatedStr(str):
    """A string scalar from the template, with its position."""

    start_mark: Mark
    end_mark: Mark

    def __new__(
        cls, value: str, start_mark: Mark = NO_MARK, end_mark: Mark = NO_MARK
    ) -> LocatedStr:
        obj = super().__new__(cls, value)
        obj.start_mark = start_mark
        obj.end_mark = end_mark
        return obj


def line_of(node: Any) -> int | None:
    """The 1-based line where ``node`` starts, or ``None`` for a value without a position."""
    mark = getattr(node, "start_mark", None)
    return int(mark.line) + 1 if mark is not None and mark is not NO_MARK else None
