"""Global options anywhere on the command line, as the AWS CLI accepts them.

The global options are defined once, on the root command (``cli/main.py``). Click
only accepts a group's options before its sub-command, so before parsing, the
root moves every global option found after the command to the front:

    cfnops runs list --output json        → cfnops --output json runs list
    cfnops heal --all --endpoint-url URL  → cfnops --endpoint-url URL heal --all

A command that declares an option of the same name itself keeps it (``cfnops
guard -o sarif``, ``cfnops heal --region r1,r2``): the sub-command's value wins
and the global value is its fallback. Moved options go after the ones already
in front, so a value given after the command beats one given before it. ``--``
ends the search (what follows is data).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["GlobalOption", "global_options", "hoist"]


@dataclass(frozen=True)
class GlobalOption:
    """One global option: its spellings and whether it takes a value."""

    names: tuple[str, ...]
    takes_value: bool


def global_options(root: Any) -> list[GlobalOption]:
    """The root command's options (the one definition), minus help and eager ones."""
    found = []
    for param in root.params:
        if getattr(param, "param_type_name", "") != "option" or param.is_eager:
            continue
        takes_value = not (param.is_flag or param.count)
        found.append(GlobalOption(tuple(param.opts) + tuple(param.secondary_opts), takes_value))
    return found


def hoist(root: Any, ctx: Any, args: list[str]) -> list[str]:
    """``args`` with global options given after the command moved in front of it."""
    options = global_options(root)
    front, i = _skip_options(root, args, 0)
    if i >= len(args):
        return args
    moved: list[str] = []
    rest = [args[i]]
    command = root.get_command(ctx, args[i])
    i += 1
    while command is not None and i < len(args):
        is_group = hasattr(command, "get_command")
        declared = _declared(command)
        token = args[i]
        if token == "--":
            rest.extend(args[i:])
            break
        spec = _match(token, options, declared)
        if spec is not None:
            width = _width(token, spec)
            moved.extend(args[i : i + width])
            i += width
            continue
        if token.startswith("-") and token != "-":
            width = _own_width(command, token)
            rest.extend(args[i : i + width])
            i += width
            continue
        rest.append(token)
        i += 1
        if is_group:  # a sub-command name: continue with its options
            command = command.get_command(ctx, token)
    else:
        rest.extend(args[i:])
    return [*front, *moved, *rest]


def _skip_options(command: Any, args: list[str], i: int) -> tuple[list[str], int]:
    """The command's own leading options (before the first positional)."""
    start = i
    while i < len(args) and args[i].startswith("-") and args[i] not in ("-", "--"):
        i += _own_width(command, args[i])
    return args[start:i], i


def _declared(command: Any) -> set[str]:
    names = {"-h", "--help"}
    for param in getattr(command, "params", ()):
        if getattr(param, "param_type_name", "") == "option":
            names.update(param.opts)
            names.update(param.secondary_opts)
    return names


def _name(token: str) -> str:
    if token.startswith("--"):
        return token.split("=", 1)[0]
    return token[:2]


def _match(token: str, options: Iterable[GlobalOption], declared: set[str]) -> GlobalOption | None:
    if not token.startswith("-") or token in ("-", "--"):
        return None
    name = _name(token)
    for spec in options:
        if name in spec.names:
            # The command's own option of that name wins (any of its spellings).
            if declared.intersection(spec.names):
                return None
            if not spec.takes_value and not token.startswith("--") and len(token) > 2:
                # -vv (a count) is only that flag repeated, not -v plus other flags
                return spec if set(token[1:]) == {token[1]} else None
            return spec
    return None


def _width(token: str, spec: GlobalOption) -> int:
    """Tokens the option spans: 2 when its value is the next token."""
    if not spec.takes_value:
        return 1
    if token.startswith("--"):
        return 1 if "=" in token else 2
    return 1 if len(token) > 2 else 2


def _own_width(command: Any, token: str) -> int:
    name = _name(token)
    for param in getattr(command, "params", ()):
        if getattr(param, "param_type_name", "") != "option":
            continue
        if name in param.opts or name in param.secondary_opts:
            if param.is_flag or param.count or param.nargs == 0:
                return 1
            inline = "=" in token if token.startswith("--") else len(token) > 2
            return 1 if inline else 1 + max(1, param.nargs)
    return 1
