"""Wide values (ARNs, ids, suggested commands) wrap whole in text output at 80 columns."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

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
    console = Console(width=80, record=True, color_system=None)
    table = Table("STACK", "ARN", "NOTE")
    table.add_row("web", ARN, "ok")
    console.print(table)
    text = console.export_text()
    assert "…" not in text
    assert any(ARN in col for col in _columns(text)), text


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CFNOPS_")}
    return {**clean, "CFNOPS_DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite'}", "COLUMNS": "80"}


def test_audit_list_at_80_columns_keeps_the_arn_and_command_whole(
    env: dict[str, str], tmp_path: Path
) -> None:
    settings = load_settings(database_url=env["CFNOPS_DATABASE_URL"])
    with AuditLog(settings) as audit:
        audit.record(actor="ops@example.com", action="approve", target=ARN, reason=FIX)
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
    assert max(len(line) for line in done.stdout.splitlines()) <= 80
    assert "…" not in done.stdout
    cols = _columns(done.stdout)
    assert any(ARN in col for col in cols), done.stdout
    assert any(FIX in col for col in cols), done.stdout
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
