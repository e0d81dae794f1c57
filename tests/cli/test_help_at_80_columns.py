"""Every command's ``--help`` at 80 columns: no option name or word cut with "…", and no
``[section]`` of a setting eaten by Rich markup (``[[heal.ignore]]`` showed as ``[]``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from cfnops.cli.main import app


def _commands(cmd: Any, ctx: Any, path: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    # the groups load their commands lazily: walk them through Click's own API
    if path:
        yield path
    if hasattr(cmd, "list_commands"):
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield from _commands(sub, type(ctx)(sub, parent=ctx, info_name=name), (*path, name))


_ROOT = typer.main.get_command(app)
COMMANDS = list(_commands(_ROOT, _ROOT.context_class(_ROOT, info_name="cfnops"), ()))


def test_the_walk_finds_the_commands() -> None:
    assert ("ami", "rotate") in COMMANDS and ("drift", "report") in COMMANDS
    assert len(COMMANDS) > 40


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_help_fits_80_columns_whole(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "80", "TERM": "dumb"})
    assert result.exit_code == 0, result.output
    text = result.output
    # Rich's ellipsis cuts a word at a cell's edge ("--check-compatibili… │"); an "…" in
    # prose ("STACK…", "IN_SYNC, …") is the text's own
    cut = [line for line in text.splitlines() if re.search(r"\w…\s*(│|$)", line)]
    assert not cut, "\n".join(cut)
    assert not re.search(r"(?<![\w\]])\[\](?!\])", text), text  # an emptied [section]
