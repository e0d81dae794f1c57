"""Sub-commands are built when named; a listing shows them all, in Typer's order."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
import typer

from cfnops.cli._on_demand import OnDemandGroup, build_group
from cfnops.cli.main import COMMANDS


def _holder(modules: tuple[str, ...]) -> typer.Typer:
    holder = typer.Typer()
    for module in modules:
        importlib.import_module(module).register(holder)
    return holder


def _leaves(group: Any) -> set[str]:
    return {n for n, c in group.commands.items() if not hasattr(c, "list_commands")}


def test_running_one_command_builds_only_that_one() -> None:
    group = build_group(_holder(COMMANDS["job"])).commands["job"]
    assert isinstance(group, OnDemandGroup)
    assert _leaves(group) == set() and {"run", "validate"} <= set(group.pending)
    run = group.get_command(None, "run")  # type: ignore[arg-type]
    assert run is not None and run.name == "run"
    assert _leaves(group) == {"run"} and "run" not in group.pending
    assert group.get_command(None, "no-such-command") is None  # type: ignore[arg-type]


def test_nested_groups_are_built_on_demand_too() -> None:
    holder = _holder(COMMANDS["job"])
    job = build_group(holder).commands["job"]
    assert isinstance(job, OnDemandGroup)
    for name in ("schedule", "trigger", "pool", "calendar"):
        nested = job.get_command(None, name)  # type: ignore[arg-type]
        assert isinstance(nested, OnDemandGroup)
        assert _leaves(nested) == set() and nested.pending
    pool = job.get_command(None, "pool")  # type: ignore[arg-type]
    assert pool.get_command(None, "list").name == "list" and _leaves(pool) == {"list"}
    # the holder is left as it was: Typer builds it whole afterwards
    whole = typer.main.get_group(holder).commands["job"]
    assert type(whole) is not OnDemandGroup and "run" in _leaves(whole)


def _same(want: Any, got: Any) -> None:
    assert got is not None and got.name == want.name and got.help == want.help
    assert [p.name for p in got.params] == [p.name for p in want.params]
    if hasattr(want, "list_commands"):
        names = want.list_commands(None)
        assert got.list_commands(None) == names
        for name in names:
            _same(want.get_command(None, name), got.get_command(None, name))


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_is_the_one_typer_builds(command: str) -> None:
    holder = _holder(COMMANDS[command])
    _same(typer.main.get_group(holder), build_group(holder))
