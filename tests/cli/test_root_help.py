"""``cfnops --help`` is printed without Typer (cli/_root_help.py), byte for byte as Typer
prints it: compared with ``cfnops --verbose --help``, which Typer renders (the flag
changes nothing in the help), in fresh processes under several terminals."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest


def _help(*args: str, env: dict[str, str], importtime: bool = False) -> tuple[str, str]:
    flags = ["-X", "importtime"] if importtime else []
    done = subprocess.run(
        [sys.executable, *flags, "-m", "cfnops", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout, done.stderr


def _env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("COLUMNS", "FORCE_COLOR", "PY_COLORS", "NO_COLOR", "TERMINAL_WIDTH")
    }
    env.update(extra)
    return env


@pytest.mark.parametrize(
    "extra",
    [
        {"COLUMNS": "80"},
        {"COLUMNS": "100"},
        {"COLUMNS": "61"},
        {"COLUMNS": "200"},
        {"COLUMNS": "100", "FORCE_COLOR": "1"},
        {"COLUMNS": "80", "FORCE_COLOR": "1", "NO_COLOR": "1"},
        {"TERMINAL_WIDTH": "90"},
        {"COLUMNS": "40"},  # too narrow for one usage line: Typer renders it itself
    ],
    ids=lambda e: ",".join(f"{k}={v}" for k, v in e.items()),
)
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_root_help_is_typers_byte_for_byte(extra: dict[str, str], flag: str) -> None:
    env = _env(**extra)
    fast, _ = _help(flag, env=env)
    typer, _ = _help("--verbose", flag, env=env)
    assert fast == typer
    plain = re.sub(r"\x1b\[[0-9;]*m", "", fast)
    assert "│ diff" in plain and "│ --region" in plain


def test_root_help_imports_neither_typer_nor_any_command() -> None:
    out, imports = _help("--help", env=_env(COLUMNS="100"), importtime=True)
    assert "Usage: python -m cfnops [OPTIONS] COMMAND [ARGS]..." in out
    loaded = {line.rsplit("|", 1)[-1].strip() for line in imports.splitlines() if "|" in line}
    assert not {m for m in loaded if m.split(".")[0] in ("typer", "click", "pydantic")}
    assert not {m for m in loaded if m.startswith("cfnops.cli.") and m != "cfnops.cli._exit"} - {
        "cfnops.cli._entry",
        "cfnops.cli._root_help",
    }


def test_program_name_is_clicks() -> None:
    from typer._click.utils import _detect_program_name

    from cfnops.cli._root_help import program_name

    assert program_name() == _detect_program_name()


def test_the_usage_line_stays_typers_when_typer_is_told_otherwise() -> None:
    env = _env(COLUMNS="100", TYPER_USE_RICH="0")
    fast, _ = _help("--help", env=env)
    typer, _ = _help("--verbose", "--help", env=env)
    assert fast == typer and "╭" not in fast  # plain Click help, rendered by Typer
