"""Rich tables whose cells wrap whole: long ids, ARNs and URLs fold, never end in "…".

Rich's columns default to ``overflow="ellipsis"``: a word wider than its column
(a run id, an ARN, a console URL, a suggested command) is cut. Every table of the
CLI comes from here so those values stay whole, folded onto the next line.
"""

from __future__ import annotations

from rich import console as _console
from rich import table as _rich_table
from rich.align import VerticalAlignMethod
from rich.console import JustifyMethod, OverflowMethod, RenderableType
from rich.style import StyleType
from rich.text import Text


class Table(_rich_table.Table):
    """:class:`rich.table.Table` with ``overflow="fold"`` as every column's default."""

    uncropped = True  # cfnops.cli._console.WholeConsole prints it whole

    def add_column(
        self,
        header: RenderableType = "",
        footer: RenderableType = "",
        *,
        header_style: StyleType | None = None,
        highlight: bool | None = None,
        footer_style: StyleType | None = None,
        style: StyleType | None = None,
        justify: JustifyMethod = "left",
        vertical: VerticalAlignMethod = "top",
        overflow: OverflowMethod = "fold",
        width: int | None = None,
        min_width: int | None = None,
        max_width: int | None = None,
        ratio: int | None = None,
        no_wrap: bool = False,
    ) -> None:
        super().add_column(
            header,
            footer,
            header_style=header_style,
            highlight=highlight,
            footer_style=footer_style,
            style=style,
            justify=justify,
            vertical=vertical,
            overflow=overflow,
            width=width,
            min_width=min_width,
            max_width=max_width,
            ratio=ratio,
            no_wrap=no_wrap,
        )

    def __rich_console__(
        self, console: _console.Console, options: _console.ConsoleOptions
    ) -> _console.RenderResult:
        if _keep_tokens_whole(self, options.max_width) or not self.rows:
            yield from super().__rich_console__(console, options)
        else:
            yield from _as_records(self)


def _cells(column: _rich_table.Column) -> list[str] | None:
    """The column's cells as plain text (Rich markup such as ``[green]HEALED[/]``
    rendered away, as Rich does for a table's ``str`` cells), or None when a cell is
    a renderable."""
    cells = [c for c in column._cells if isinstance(c, str)]
    if len(cells) != len(column._cells):
        return None
    return [_plain(c) for c in cells]


def _plain(cell: str) -> str:
    from rich.text import Text

    return Text.from_markup(cell).plain


def _keep_tokens_whole(table: _rich_table.Table, width: int) -> bool:
    """Give columns of single tokens (run ids, ARNs, paths, URLs) room for their longest
    value, so that the prose columns wrap at spaces and the ids stay on one line.

    False when they cannot all fit beside a minimum for the other columns: the caller
    then prints each row as a record (the first value whole on its own line).
    """
    tokens: list[tuple[_rich_table.Column, int]] = []
    others = 0
    for column in table.columns:
        cells = _cells(column)
        if cells is None:
            return True  # renderables in cells: leave the table to rich
        if cells and not any(ch.isspace() for c in cells for ch in c):
            tokens.append((column, max(len(c) for c in [*cells, str(column.header)])))
        else:
            others += 1
    edges = 3 * len(table.columns) + 1  # borders and padding of a boxed table
    if sum(n for _c, n in tokens) + 12 * others + edges > width:
        return False
    for column, longest in tokens:
        column.min_width = max(column.min_width or 0, longest)
        column.no_wrap = True
    return True


def _as_records(table: _rich_table.Table) -> _console.RenderResult:
    """Each row as its first value on a line of its own, then ``HEADER value`` lines."""
    columns = [(_plain(str(c.header)), _markup_cells(c)) for c in table.columns]
    title = str(table.title) if table.title else None
    if title:
        yield Text.from_markup(title, style="bold")
    width = max(len(h) for h, _ in columns[1:]) if len(columns) > 1 else 0
    for row in range(len(table.rows)):
        first = columns[0][1][row]
        yield Text.assemble(first, style="bold", no_wrap=True, overflow="ignore")
        for header, cells in columns[1:]:
            value = cells[row] if row < len(cells) else Text()
            if not value.plain:
                continue
            line = Text.assemble(f"  {header.ljust(width)}  ", value)
            if _one_piece(value.plain):
                # an id, ARN, path, URL or JSON document: one line, never broken (the
                # terminal may wrap it; copying keeps it whole)
                line.no_wrap, line.overflow = True, "ignore"
            yield line


def _one_piece(value: str) -> bool:
    return not any(ch.isspace() for ch in value) or (value[:1] in "{[" and value[-1:] in "}]")


def _markup_cells(column: _rich_table.Column) -> list[Text]:
    """The column's ``str`` cells with their markup applied (colours kept, tags gone)."""
    return [Text.from_markup(c) for c in column._cells if isinstance(c, str)]
