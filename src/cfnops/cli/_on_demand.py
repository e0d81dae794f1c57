"""Command groups whose sub-commands are built when first asked for.

Typer turns every command of a group into a Click command (reading each
function's signature and annotations) before any of them runs: for ``cfnops
job`` that is 30 commands and ~20 ms of every ``cfnops job run``. Here a group
(``job``, ``runs``, …) keeps its commands' Typer definitions and builds only the
one the command line names; listing the group (``cfnops job --help``) builds
them all, in their definition order. Groups with a class of their own (``drift``)
are built as Typer builds them.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperGroup
from typer.models import CommandInfo, DefaultPlaceholder

__all__ = ["build_group"]


class OnDemandGroup(TyperGroup):
    """A Typer group that builds a sub-command from its definition on first use."""

    pending: dict[str, CommandInfo]
    rich_markup_mode: Any
    pretty_exceptions_short: bool

    def _build(self, name: str) -> None:
        info = self.pending.pop(name)
        command = typer.main.get_command_from_info(
            info,
            pretty_exceptions_short=self.pretty_exceptions_short,
            rich_markup_mode=self.rich_markup_mode,
        )
        self.commands[name] = command

    def list_commands(self, ctx: Any) -> list[str]:
        for name in list(self.pending):
            self._build(name)
        return [*self._order, *(n for n in self.commands if n not in self._order)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in self.pending:
            self._build(cmd_name)
        return super().get_command(ctx, cmd_name)

    def adopt(self, infos: list[CommandInfo], holder: typer.Typer) -> None:
        self.pending = {_name(info): info for info in infos}
        self._order = list(self.pending)
        self.pretty_exceptions_short = holder.pretty_exceptions_short
        self.rich_markup_mode = holder.rich_markup_mode


def _name(info: CommandInfo) -> str:
    assert info.callback is not None
    return info.name or typer.main.get_command_name(info.callback.__name__)


def build_group(holder: typer.Typer) -> TyperGroup:
    """``typer.main.get_group(holder)``, with the sub-groups built on demand."""
    deferred: dict[str, list[CommandInfo]] = {}
    for info in holder.registered_groups:
        sub = info.typer_instance
        if sub is None or not info.name or not isinstance(sub.info.cls, DefaultPlaceholder):
            continue  # unnamed, or a class of its own: built whole
        if not isinstance(info.cls, DefaultPlaceholder):
            continue
        info.cls = OnDemandGroup
        deferred[info.name] = sub.registered_commands
        sub.registered_commands = []
    try:
        group = typer.main.get_group(holder)
    finally:
        for info in holder.registered_groups:
            if info.name in deferred and info.typer_instance is not None:
                info.typer_instance.registered_commands = deferred[info.name]
    for name, infos in deferred.items():
        built = group.commands[name]
        assert isinstance(built, OnDemandGroup)
        built.adopt(infos, holder)
    return group
