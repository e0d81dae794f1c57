"""The console every command prints with (no Rich table imported until one is drawn)."""

from __future__ import annotations

from typing import Any

from rich import console as _console

__all__ = ["WholeConsole"]


class WholeConsole(_console.Console):
    """A console that never crops a table's lines: a record's id, ARN or URL longer
    than the terminal is printed whole (the terminal wraps it; copying keeps it whole).

    The tables are :class:`cfnops.cli._table.Table` (marked ``uncropped``): a command
    that draws none, such as ``diff``, does not import Rich's tables."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        if any(getattr(o, "uncropped", False) is True for o in objects):
            kwargs.setdefault("crop", False)
        super().print(*objects, **kwargs)
