"""Console notifications (always on unless ``notify.console = false``)."""

from __future__ import annotations

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from cfnops.notify._model import Notification

_STYLE = {"info": "green", "warning": "yellow", "error": "red"}


class ConsoleNotifier:
    """Prints a Rich panel to stderr (stdout stays free for ``--output json``)."""

    name = "console"

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True, highlight=False)

    def send(self, notification: Notification) -> None:
        rows = _rows(notification)
        title = notification.outcome or notification.subject
        style = _STYLE.get(notification.severity, "white")
        label_width = max(len(label) for label, _ in rows)
        longest = max((len(w) for _, value in rows for w in value.split()), default=0)
        # A panel's borders and padding take 4 columns, the label column and its gap
        # label_width + 1: an ARN or URL wider than what is left would be broken
        # mid-token, so such a notification is printed as lines without a frame,
        # each id whole (the terminal may wrap it; copying keeps it whole).
        if label_width + 1 + longest + 4 <= self.console.width:
            self.console.print(_panel(rows, title, style))
            return
        self.console.print(Text(f"── {title} ──", style=f"bold {style}"))
        indent = label_width + 4
        for label, value in rows:
            for i, chunk in enumerate(_wrap_at_spaces(value, self.console.width - indent)):
                head = f"  {label.ljust(label_width)}  " if i == 0 else " " * indent
                # soft_wrap: Rich neither folds nor crops the line (it is already wrapped)
                self.console.print(Text.assemble((head, "bold"), chunk), soft_wrap=True)


def _wrap_at_spaces(value: str, width: int) -> list[str]:
    """``value`` in lines of at most ``width`` columns, broken only at spaces: a word
    wider than that (an ARN, a URL) is a line of its own, whole."""
    lines: list[str] = []
    for paragraph in value.splitlines() or [""]:
        start = len(lines)
        for word in paragraph.split():
            if len(lines) > start and len(lines[-1]) + 1 + len(word) <= width:
                lines[-1] += f" {word}"
            else:
                lines.append(word)
        if len(lines) == start:
            lines.append("")
    return lines


def _rows(notification: Notification) -> list[tuple[str, str]]:
    rows = [("message", notification.message)]
    for label, value in (
        ("stack", notification.stack_id or notification.stack),
        ("change set", notification.change_set_id),
        ("console", notification.console_url),
        ("run", notification.run_id),
        *notification.details,
    ):
        if value:
            rows.append((label, value))
    for row in notification.drifted:
        props = ", ".join(row.properties)
        rows.append(("drifted", f"{row.logical_id} ({row.resource_type}) {row.status} {props}"))
    return rows


def _panel(rows: list[tuple[str, str]], title: str, style: str) -> Panel:
    body = Table.grid(padding=(0, 1))
    body.add_column(style="bold", overflow="fold")
    body.add_column(overflow="fold")
    for label, value in rows:
        body.add_row(label, Text(value))
    return Panel(body, title=Text(title), border_style=style)
