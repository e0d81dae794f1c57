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
    """``typer.main.get_group(holder)``, with the sub-groups built on demand.

    Nested groups (``job schedule``, ``job pool``, ...) are deferred too: Typer would
    otherwise build their 12 commands for every ``cfnops job run``.
    """
    deferred: dict[tuple[str, ...], list[CommandInfo]] = {}
    infos: list[Any] = []
    _defer(holder, (), deferred, infos)
    try:
        group = typer.main.get_group(holder)
    finally:
        for info, cls, commands in infos:  # the holder as it was
            info.cls = cls
            info.typer_instance.registered_commands = commands
    for path, commands in deferred.items():
        built: Any = group
        for name in path:
            built = built.commands[name]
        assert isinstance(built, OnDemandGroup)
        built.adopt(commands, holder)
    return group


def _defer(
    app: typer.Typer,
    path: tuple[str, ...],
    deferred: dict[tuple[str, ...], list[CommandInfo]],
    infos: list[Any],
) -> None:
    """Mark ``app``'s named sub-groups (at every depth) to be built on demand and take
    their commands out for the time of Typer's build (``infos`` puts both back)."""
    for info in app.registered_groups:
        sub = info.typer_instance
        if sub is None or not info.name or not isinstance(sub.info.cls, DefaultPlaceholder):
            continue  # unnamed, or a class of its own: built whole
        if not isinstance(info.cls, DefaultPlaceholder):
            continue
        # the same Typer app may be added twice (a module registered again): its
        # commands are taken out once
        taken = next((c for i, _, c in infos if i.typer_instance is sub), None)
        commands = sub.registered_commands if taken is None else taken
        infos.append((info, info.cls, commands))
        info.cls = OnDemandGroup
        where = (*path, info.name)
        deferred[where] = commands
        sub.registered_commands = []
        _defer(sub, where, deferred, infos)
