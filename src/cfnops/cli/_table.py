"""Rich tables whose cells wrap whole: long ids, ARNs and URLs fold, never end in "…".

Rich's columns default to ``overflow="ellipsis"``: a word wider than its column
(a run id, an ARN, a console URL, a suggested command) is cut. Every table of the
CLI comes from here so those values stay whole, folded onto the next line.
"""

from __future__ import annotations

from rich import table as _rich_table
from rich.align import VerticalAlignMethod
from rich.console import JustifyMethod, OverflowMethod, RenderableType
from rich.style import StyleType


class Table(_rich_table.Table):
    """:class:`rich.table.Table` with ``overflow="fold"`` as every column's default."""

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
