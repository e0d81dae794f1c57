"""Cheap, offline ``$ cfnops …`` lines of the docs run as written (on examples/).

Only the commands that read local files (``diff``, ``guard``, ``ami check``,
``job validate``, ``job check``) and only when every file they name exists in the
repository; the output the docs show under the command must appear in the real
output (line by line, whitespace-trimmed).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OFFLINE = (("diff",), ("guard",), ("ami", "check"), ("job", "validate"), ("job", "check"))
PLACEHOLDERS = ("[", "…", "|", ">", "DEF")


@dataclass(frozen=True)
class Command:
    page: str
    line: int
    argv: tuple[str, ...]
    shown: tuple[str, ...]


def _runnable(argv: list[str]) -> bool:
    if not any(tuple(argv[: len(c)]) == c for c in OFFLINE):
        return False
    files = [a.lstrip("@") for a in argv if a.endswith((".yaml", ".yml", ".json"))]
    assemblies = [a for a in argv if a.endswith("cdk.out")]  # CDK cloud assemblies
    return (
        bool(files or assemblies)
        and all((ROOT / f).is_file() for f in files)
        and all((ROOT / a / "manifest.json").is_file() for a in assemblies)
    )


def commands() -> list[Command]:
    found: list[Command] = []
    for page in sorted((ROOT / "docs").glob("*.md")):
        lines = page.read_text(encoding="utf-8").splitlines()
        inside = False
        for i, line in enumerate(lines):
            if line.startswith("```"):
                inside = line.strip() == "```console" if not inside else False
                continue
            if not (inside and line.startswith("$ cfnops ")):
                continue
            text = line[len("$ cfnops ") :].split("  #", 1)[0].strip()
            if any(p in text for p in PLACEHOLDERS) or text.endswith("\\"):
                continue  # placeholders, pipes, redirections, continued lines
            argv = shlex.split(text)
            if not _runnable(argv):
                continue
            shown: list[str] = []
            for after in lines[i + 1 :]:
                if after.startswith(("$ ", "```")):
                    break
                shown.append(after.strip())
            found.append(Command(page.name, i + 1, tuple(argv), tuple(s for s in shown if s)))
    return found


ALL = commands()


def test_some_console_lines_are_runnable() -> None:
    assert len(ALL) >= 2


@pytest.mark.parametrize("cmd", ALL, ids=[f"{c.page}:{c.line}" for c in ALL])
def test_console_line_runs_as_documented(cmd: Command) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CFNOPS_", "AWS_"))}
    env.update(COLUMNS="200", NO_COLOR="1")
    done = subprocess.run(
        [sys.executable, "-m", "cfnops", *cmd.argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
    )
    where = f"{cmd.page}:{cmd.line} cfnops {' '.join(cmd.argv)}"
    assert done.returncode in (0, 1), f"{where}: exit {done.returncode}\n{done.stderr}"
    assert "Traceback" not in done.stderr, where
    actual = {line.strip() for line in done.stdout.splitlines()}
    missing = [s for s in cmd.shown if s not in actual]
    assert missing == [], f"{where}: the docs show lines the command does not print:\n{done.stdout}"
