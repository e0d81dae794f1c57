"""``cfnops completion bash|zsh|fish``: the scripts, driven by a real bash, and the
candidates each shell's protocol answers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cfnops.cli.main import run

BIN = Path(sys.executable).parent


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CFNOPS_", "_CFNOPS"))}
    env["PATH"] = str(BIN) + os.pathsep + env.get("PATH", "")
    env.update(extra)
    return env


def _cfnops(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cfnops", *args],
        capture_output=True,
        text=True,
        env=_env(**env),
        timeout=60,
        check=False,
    )


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@pytest.mark.skipif(not (BIN / "cfnops").exists(), reason="no cfnops script next to python")
@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("cfnops di", {"diff"}),
        ("cfnops dr", {"drift"}),
        ("cfnops diff --git", {"--git-ref"}),
        ("cfnops job sch", {"schedule"}),
        ("cfnops completion ", {"bash", "zsh", "fish"}),
    ],
)
def test_bash_completes_commands_options_and_values(words: str, expected: set[str]) -> None:
    script = _cfnops("completion", "bash").stdout
    words_list = words.split(" ")
    drive = (
        f"{script}\n"
        f"COMP_WORDS=({' '.join(repr(w) for w in words_list)}); "
        f"COMP_CWORD={len(words_list) - 1}; "
        "_cfnops_completion cfnops; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    done = subprocess.run(
        ["bash", "-c", drive], capture_output=True, text=True, env=_env(), timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert set(done.stdout.split()) == expected


def test_zsh_and_fish_protocols_answer() -> None:
    zsh = _cfnops(_TYPER_COMPLETE_ARGS="cfnops gu", _CFNOPS_COMPLETE="complete_zsh")
    assert '"guard":' in zsh.stdout
    fish = _cfnops(
        _TYPER_COMPLETE_ARGS="cfnops hea",
        _CFNOPS_COMPLETE="complete_fish",
        _TYPER_COMPLETE_FISH_ACTION="get-args",
    )
    assert fish.stdout.split("\t")[0].strip() == "heal"


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_each_script_names_the_program_and_its_variable(
    shell: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["completion", shell]) == 0
    out = capsys.readouterr().out
    assert "_CFNOPS_COMPLETE=complete_" in out and "cfnops" in out


def test_unknown_shell_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["completion", "tcsh"]) == 2
    assert "expected bash, zsh or fish" in capsys.readouterr().err
