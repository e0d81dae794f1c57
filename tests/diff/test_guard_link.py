"""`cfnops diff` shows guard findings next to changed custom resources."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfnops.cli.main import run

FIXTURES = Path(__file__).resolve().parents[1] / "guard" / "fixtures"


def test_custom_resource_change_carries_the_guard_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = FIXTURES / "cr001_node_inline" / "template.yaml"
    old = tmp_path / "old.yaml"
    old.write_text(new.read_text().replace('Value: "42"', 'Value: "41"'))
    assert run(["diff", str(old), str(new), "--output", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    (resource,) = [r for r in report["resources"].values() if r["type"] == "Custom::Setting"]
    text = json.dumps(resource)
    assert resource["impact"] == "WILL_REPLACE"
    assert "is replaced, old one deleted" in resource["reason"]
    assert "CR001" in text
    capsys.readouterr()
    assert run(["diff", str(old), str(new), "--fail-on", "replace"]) == 1
    assert "WILL_REPLACE" in capsys.readouterr().err


def test_unchanged_custom_resource_is_not_escalated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = FIXTURES / "cr001_node_inline" / "template.yaml"
    old = tmp_path / "old.yaml"
    old.write_text(new.read_text())
    assert run(["diff", str(old), str(new), "--fail-on", "replace"]) == 0


def test_handler_that_keeps_the_id_adds_no_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = FIXTURES / "cr001_node_inline_ok" / "template.yaml"
    source = new.read_text()
    assert 'Value: "42"' in source
    old = tmp_path / "old.yaml"
    old.write_text(source.replace('Value: "42"', 'Value: "41"'))
    assert run(["diff", str(old), str(new), "--output", "json"]) == 0
    out = capsys.readouterr().out
    assert "CR00" not in out
    assert '"impact": "WILL_UPDATE"' in out
    assert run(["diff", str(old), str(new), "--fail-on", "replace"]) == 0
