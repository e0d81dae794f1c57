"""A tree renderable drawn in one pass: the same guides as ``rich.tree.Tree``, linear cost.

Rich's ``Tree`` renders every node as a nested renderable (measure, wrap, pad, style
each level), which at thousands of nodes is most of a large diff's time. A diff's
tree holds one-line labels, so this one writes each label once, after its guide,
and wraps only the rare label wider than the console (continuation lines keep the
guide). Output matches ``Tree`` for such labels: ``├── ``, ``└── ``, ``│   `` (or the
ASCII ``+-- ``, ```-- ``, ``|   `` on a console that cannot draw box characters).
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

_UNICODE = ("    ", "│   ", "├── ", "└── ")
_ASCII = ("    ", "|   ", "+-- ", "`-- ")


class FastTree:
    """A label with children, each a :class:`FastTree` (``add`` returns the child)."""

    __slots__ = ("children", "guide_style", "label")

    def __init__(self, label: Text | str, *, guide_style: str = "dim") -> None:
        self.label = label if isinstance(label, Text) else Text(label)
        self.guide_style = guide_style
        self.children: list[FastTree] = []

    def add(self, label: Text | str) -> FastTree:
        child = FastTree(label, guide_style=self.guide_style)
        self.children.append(child)
        return child

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        guides = _ASCII if options.ascii_only else _UNICODE
        style = console.get_style(self.guide_style, default="")
        width = options.max_width
        yield from _label(console, self.label, "", "", style, width)
        stack: list[tuple[FastTree, str, int]] = [(self, "", 0)]
        while stack:
            node, prefix, index = stack.pop()
            if index >= len(node.children):
                continue
            stack.append((node, prefix, index + 1))
            child = node.children[index]
            last = index == len(node.children) - 1
            first = prefix + (guides[3] if last else guides[2])
            rest = prefix + (guides[0] if last else guides[1])
            yield from _label(console, child.label, first, rest, style, width)
            if child.children:
                stack.append((child, rest, 0))


def _label(
    console: Console, label: Text, first: str, rest: str, style: Style, width: int
) -> Iterator[Segment]:
    room = max(width - len(first), 1)
    if "\n" not in label.plain and label.cell_len <= room:
        if first:
            yield Segment(first, style)
        yield from _segments(console, label)
        yield Segment.line()
        return
    for number, line in enumerate(label.wrap(console, room)):
        prefix = first if number == 0 else rest
        if prefix:
            yield Segment(prefix, style)
        yield from _segments(console, line)
        yield Segment.line()


def _segments(console: Console, text: Text) -> Iterator[Segment]:
    """``text``'s segments with its own style under its spans' (as ``Text`` prints)."""
    if not text.style:
        return iter(text.render(console))
    return iter(Segment.apply_style(text.render(console), console.get_style(text.style)))
