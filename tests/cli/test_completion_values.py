"""Top-level shell completion offers the values of choice options."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path


def _complete(words: str) -> list[str]:
    exe = shutil.which("cfnops", path=str(Path(sys.executable).parent)) or "cfnops"
    env = dict(os.environ, COMP_WORDS=words, COMP_CWORD=str(len(words.split(" ")) - 1))
    env["_CFNOPS_COMPLETE"] = "complete_bash"
    done = subprocess.run([exe], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_output_and_log_format_values_complete() -> None:
    assert _complete("cfnops --output ") == ["text", "json", "markdown"]
    assert _complete("cfnops -o j") == ["json"]
    assert _complete("cfnops --log-format ") == ["text", "json"]


def test_command_names_complete_without_importing_any_command() -> None:
    """``cfnops <Tab>`` lists the commands from the root help's table: as fast as
    ``--help`` (it imported every command's modules, the durable engine among them)."""
    from cfnops.cli.main import COMMANDS, MODULES

    assert _complete("cfnops ") == sorted(COMMANDS)
    assert _complete("cfnops d") == ["demo", "diff", "drift"]
    env = dict(os.environ, COMP_WORDS="cfnops ", COMP_CWORD="1", _CFNOPS_COMPLETE="complete_bash")
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "cfnops"],
        env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    commands = set(MODULES) - {"cfnops.cli.completion"}  # it answers the request
    assert not imported & {*commands, "cfnops.durable", "cfnops.heal", "dbos"}
    assert _complete("cfnops job r") == ["run", "redrive", "rerun", "release"]  # still real
