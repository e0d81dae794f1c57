#!/usr/bin/env python3
"""Run docs/migrate.md's worked example and write its real output into the page.

Each ```console block that follows a ``<!-- migrate-example: run -->`` line is run as
written: every ``$ cfnops …`` command (``\\`` continues a line) in a scratch folder where
``tests/`` is the repository's and ``hosts.json`` is the page's ```json block that follows
``<!-- migrate-example: hosts.json -->``; the lines under each command are replaced by
what it printed. Run from the repository root after changing the importer::

    python scripts/gen_migrate_docs.py          # rewrite the example's output
    python scripts/gen_migrate_docs.py --check  # exit 1 when docs/migrate.md is stale

tests/docs/test_migrate_example.py runs the check in CI.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "migrate.md"
RUN = "<!-- migrate-example: run -->"
HOSTS = "<!-- migrate-example: hosts.json -->"


def _block_after(lines: list[str], marker: str, start: int = 0) -> tuple[int, int] | None:
    """(first, last) line index of the fenced block following ``marker`` (fences excluded)."""
    for i in range(start, len(lines)):
        if lines[i].strip() == marker:
            first = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```")) + 1
            last = next(j for j in range(first, len(lines)) if lines[j].startswith("```"))
            return first, last
    return None


def _commands(block: list[str]) -> list[tuple[list[str], str]]:
    """Each command (its source lines) and the joined command text."""
    out: list[tuple[list[str], str]] = []
    i = 0
    while i < len(block):
        if block[i].startswith("$ "):
            src = [block[i]]
            while src[-1].endswith("\\") and i + 1 < len(block):
                i += 1
                src.append(block[i])
            text = " ".join(s.rstrip("\\").strip() for s in src)[2:]
            out.append((src, text))
        i += 1
    return out


def _run(command: str, cwd: Path) -> str:
    argv = shlex.split(command)
    assert argv[0] == "cfnops", command
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CFNOPS_", "AWS_"))}
    env.update(
        CFNOPS_DATABASE_URL=f"sqlite:///{cwd / 'cfnops.sqlite'}",
        XDG_STATE_HOME=str(cwd / "state"),
        COLUMNS="200",
        NO_COLOR="1",
    )
    done = subprocess.run(
        [sys.executable, "-m", "cfnops", *argv[1:]],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{command}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return done.stdout


def render(text: str) -> str:
    """The page with every example block's output replaced by the real one."""
    lines = text.split("\n")
    hosts = _block_after(lines, HOSTS)
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        (cwd / "tests").symlink_to(ROOT / "tests")
        if hosts is not None:
            (cwd / "hosts.json").write_text("\n".join(lines[hosts[0] : hosts[1]]) + "\n")
        out: list[str] = []
        pos = 0
        while (found := _block_after(lines, RUN, pos)) is not None:
            first, last = found
            out += lines[pos:first]
            for src, command in _commands(lines[first:last]):
                out += src
                out += _run(command, cwd).rstrip("\n").split("\n")
            pos = last
        out += lines[pos:]
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is stale")
    args = parser.parse_args()
    current = DOC.read_text(encoding="utf-8")
    fresh = render(current)
    if args.check:
        if fresh != current:
            print(f"{DOC} is out of date: run python scripts/gen_migrate_docs.py")
            return 1
        return 0
    DOC.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
