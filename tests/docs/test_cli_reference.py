"""docs/cli.md lists every command, generated from the CLI (scripts/gen_cli_docs.py)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from cfnops.cli.main import COMMANDS

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "gen_cli_docs.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_cli_docs", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_md_is_up_to_date() -> None:
    gen = _script()
    current = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert current == gen.render(current), "run: python scripts/gen_cli_docs.py"


def test_reference_lists_every_command_and_subcommand() -> None:
    text = _script().reference()
    for command in COMMANDS:
        assert f"| `cfnops {command}" in text, command
    for sub in ("runs start", "job schedule add", "job pool set", "drift scan", "ami check"):
        assert f"| `cfnops {sub}" in text, sub


def test_check_mode_fails_on_a_stale_page(tmp_path: Path) -> None:
    gen = _script()
    stale = "# cli\n\n" + gen.START + "\n| old |\n" + gen.END + "\n"
    assert gen.render(stale) != stale
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_the_short_commands_table_names_every_top_level_command() -> None:
    """docs/cli.md's "Commands" table listed 8 of the top-level commands."""
    import re

    doc = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = doc.split("## Commands", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`cfnops ([a-z-]+)", section))
    assert set(COMMANDS) <= named, sorted(set(COMMANDS) - named)
