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
        body = Table.grid(padding=(0, 1))
        body.add_column(style="bold", overflow="fold")
        body.add_column(overflow="fold")
        body.add_row("message", Text(notification.message))
        for label, value in (
            ("stack", notification.stack_id or notification.stack),
            ("change set", notification.change_set_id),
            ("console", notification.console_url),
            ("run", notification.run_id),
            *notification.details,
        ):
            if value:
                body.add_row(label, Text(value))
        for row in notification.drifted:
            props = ", ".join(row.properties)
            body.add_row(
                "drifted",
                Text(f"{row.logical_id} ({row.resource_type}) {row.status} {props}"),
            )
        title = notification.outcome or notification.subject
        self.console.print(
            Panel(body, title=Text(title), border_style=_STYLE.get(notification.severity, "white"))
        )
