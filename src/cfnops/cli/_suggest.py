"""Close matches for a mistyped command, as click already gives for a mistyped option.

``cfnops hael web`` → ``No such command 'hael'. (Possible commands: heal)``.
"""

from __future__ import annotations

import difflib
import re

try:  # Typer >= 0.2x vendors Click (as cli/main.py)
    from typer._click.exceptions import UsageError
except ImportError:  # pragma: no cover - older Typer on real Click
    from click import UsageError  # type: ignore[assignment]

_NO_SUCH = re.compile(r"^No such command '(?P<name>[^']*)'\.$")


def suggest_command(exc: Exception) -> None:
    """Add the group's commands closest to the mistyped one to ``exc``'s message."""
    if not isinstance(exc, UsageError):
        return
    found = _NO_SUCH.match(exc.message)
    if found is None or exc.ctx is None or not hasattr(exc.ctx.command, "list_commands"):
        return
    commands = exc.ctx.command.list_commands(exc.ctx)
    close = difflib.get_close_matches(found["name"], commands, n=3, cutoff=0.6)
    if close:
        exc.message += f" (Possible commands: {', '.join(close)})"
