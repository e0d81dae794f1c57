"""Wide values (ARNs, ids, suggested commands) wrap whole in text output at 80 columns."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from tests._runtime import database_for

from cfnops.cli._table import Table
from cfnops.config import load_settings
from cfnops.durable import AuditLog

ARN = (
    "arn:aws:cloudformation:ap-northeast-1:123456789012:stack/"
    "payments-production-web-tier/5f6a7b8c-1d2e-11ef-9a3b-0a1b2c3d4e5f"
)
FIX = "cfnops-runs-cancel-heal-payments-production-web-tier-20261124T210000-1a2b3c4d5e6f"


def _columns(text: str) -> list[str]:
    """Each table column's cell text, joined across the lines it was folded onto."""
    cols: dict[int, str] = {}
    for line in text.splitlines():
        if "│" not in line:
            continue
        for i, cell in enumerate(line.split("│")):
            cols[i] = cols.get(i, "") + cell.strip()
    return list(cols.values())


def test_table_folds_an_arn_instead_of_cutting_it() -> None:
    console = Console(width=150, record=True, color_system=None)
    table = Table("STACK", "ARN", "NOTE")
    table.add_row("web", ARN, "a note that is long enough to be folded at spaces " * 3)
    console.print(table)
    text = console.export_text()
    assert "…" not in text
    assert any(ARN in line for line in text.splitlines()), text  # room for the ARN first


def test_a_table_too_wide_for_80_columns_prints_records_with_ids_whole() -> None:
    console = Console(width=80, record=True, color_system=None)
    table = Table("RUN ID", "WORKFLOW", "STATUS", "CREATED (UTC)", "NOTE")
    table.add_row(FIX, "cfnops.heal", "SUCCEEDED", "2026-11-26 05:00:00", "a note with words")
    table.add_row("web", "cfnops.run", "FAILED", "2026-11-26 05:00:01", ARN)
    console.print(table, crop=False)  # as the CLI's console prints tables
    lines = console.export_text().splitlines()
    assert lines[0] == FIX  # the id alone on its own line, whole
    assert "  NOTE           a note with words" in lines
    assert any(line.endswith(ARN) for line in lines)  # never broken by a newline
    assert "…" not in "\n".join(lines)


def test_ids_stay_on_one_line_when_the_table_fits_at_80_columns() -> None:
    console = Console(width=80, record=True, color_system=None)
    table = Table("RUN ID", "STATUS", "DETAIL")
    table.add_row("webapp-stop-0123456789abcdef", "FAILED", "the database was slow to stop today")
    console.print(table)
    text = console.export_text()
    assert any("webapp-stop-0123456789abcdef" in line for line in text.splitlines()), text


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CFNOPS_")}
    return {**clean, "CFNOPS_DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite'}", "COLUMNS": "80"}


def test_audit_list_at_80_columns_keeps_the_arn_and_command_whole(
    env: dict[str, str], tmp_path: Path
) -> None:
    settings = load_settings(database_url=env["CFNOPS_DATABASE_URL"])
    with AuditLog(database_for(settings)) as audit:
        audit.record(actor="ops@example.com", action="approve", target=ARN, reason=FIX)
        audit.record(
            actor="ops@example.com",
            action="drift-accept",
            target="us-east-1/web/Queue",
            reason="vendor [bold]hotfix[/] until the release",
            detail={"until": "through 2099-12-31 (UTC)", "expiresAt": "2100-01-01T00:00:00+00:00"},
        )
    done = subprocess.run(
        [sys.executable, "-m", "cfnops", "audit", "list"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout
    # Too wide for 80 columns as a table: one record per entry, and the ARN and the
    # command each on one line, never broken by a newline (copy and paste work).
    lines = done.stdout.splitlines()
    assert any(line.endswith(f"  {ARN}") for line in lines), done.stdout
    assert any(line.endswith(f"  {FIX}") for line in lines), done.stdout
    (detail,) = [line for line in lines if line.startswith("  DETAIL    {")]  # one line, whole
    assert json.loads(detail.split(None, 1)[1]) == {
        "until": "through 2099-12-31 (UTC)",
        "expiresAt": "2100-01-01T00:00:00+00:00",
    }
    assert "vendor [bold]hotfix[/] until" in done.stdout  # an operator's text is never markup
    assert all(
        len(line) <= 80 for line in lines if ARN not in line and FIX not in line and "{" not in line
    )
    done = subprocess.run(
        [sys.executable, "-m", "cfnops", "-o", "json", "audit", "list"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    entry = json.loads(done.stdout)
    assert ARN in json.dumps(entry) and FIX in json.dumps(entry)


def test_records_layout_applies_markup_instead_of_printing_it() -> None:
    """A narrow terminal's records layout renders ``[green]HEALED[/]`` as the table
    does: the word in colour, never the tags as text."""
    console = Console(width=80, record=True, color_system="truecolor")
    table = Table("RUN ID", "WORKFLOW", "STATUS", "CREATED (UTC)", "NOTE", title="[bold]runs[/]")
    table.add_row(FIX, "cfnops.heal", "[green]HEALED[/]", "2026-11-26 05:00:00", "[dim]a note[/]")
    console.print(table, crop=False)
    styled = console.export_text(styles=True, clear=False)
    text = console.export_text()
    lines = text.splitlines()
    assert lines[:2] == ["runs", FIX], text
    assert "  STATUS         HEALED" in lines and "  NOTE           a note" in lines
    assert "[" not in text and "]" not in text
    assert "\x1b[32mHEALED" in styled  # green, as in the table
