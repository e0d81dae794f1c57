"""``cfnops guard``: exit codes and the JSON / SARIF shapes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cfnops.cli.main import run
from cfnops.guard import RULES

FIXTURES = Path(__file__).resolve().parent / "fixtures"
BAD = FIXTURES / "cr001_node_inline" / "template.yaml"  # one error, one warning
GOOD = FIXTURES / "cr001_node_inline_ok" / "template.yaml"
WARN_ONLY = FIXTURES / "cr004_python_inline" / "template.yaml"


def guard(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(["guard", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_exit_codes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert guard(capsys, str(BAD))[0] == 1
    assert guard(capsys, str(GOOD))[0] == 0
    assert guard(capsys, str(WARN_ONLY))[0] == 0  # warnings alone do not fail
    assert guard(capsys, str(tmp_path / "missing.yaml"))[0] == 2
    broken = tmp_path / "broken.json"
    broken.write_text('{"Resources": {')
    code, _, err = guard(capsys, str(broken))
    assert code == 2
    assert "broken.json" in err


def test_bad_output_value_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = guard(capsys, str(GOOD), "--output", "markdown")
    assert code == 2
    assert "text, json or sarif" in err


def test_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = guard(capsys, str(BAD), "--output", "json")
    assert code == 1
    data = json.loads(out)
    assert list(data) == ["findings", "notChecked"]
    assert data["notChecked"] == []
    keys = ["rule", "severity", "resource", "file", "line", "message", "fix"]
    assert all(list(f) == keys for f in data["findings"])
    assert sorted((f["rule"], f["severity"], f["line"]) for f in data["findings"]) == [
        ("CR001", "error", 35),
        ("CR001", "warning", 32),
    ]
    assert {f["resource"] for f in data["findings"]} == {"Setting"}


def test_global_output_json_is_honoured(capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["--output", "json", "guard", str(GOOD)])
    assert code == 0
    assert json.loads(capsys.readouterr().out) == {"findings": [], "notChecked": []}


def _check_sarif(log: dict[str, Any]) -> None:
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-2.1.0.json")
    (sarif_run,) = log["runs"]
    driver = sarif_run["tool"]["driver"]
    assert driver["name"] == "cfnops-guard"
    rule_ids = [r["id"] for r in driver["rules"]]
    assert rule_ids == [r.id for r in RULES]
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"]
        assert rule["helpUri"].startswith("https://")
        assert rule["defaultConfiguration"]["level"] in ("error", "warning")
    for result in sarif_run["results"]:
        assert result["level"] in ("error", "warning")
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        assert result["message"]["text"]
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uri"]
        assert isinstance(physical["region"]["startLine"], int)
        assert physical["region"]["startLine"] >= 1
        assert location["logicalLocations"][0]["kind"] == "resource"


def test_sarif_shape_overrides_global_output(capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["--output", "json", "guard", str(BAD), "-o", "sarif"])
    log = json.loads(capsys.readouterr().out)
    assert code == 1
    _check_sarif(log)
    results = log["runs"][0]["results"]
    assert sorted((r["ruleId"], r["level"]) for r in results) == [
        ("CR001", "error"),
        ("CR001", "warning"),
    ]
    uri = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    # repository-relative (the working folder), as GitHub code scanning matches it
    assert uri == BAD.resolve().relative_to(Path.cwd().resolve()).as_posix()


def test_sarif_carries_notes_as_notifications(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = guard(capsys, str(FIXTURES / "external" / "template.yaml"), "-o", "sarif")
    log = json.loads(out)
    assert code == 0
    _check_sarif(log)
    notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert len(notes) == 4
    # handlers outside the template are not checked: a warning a reader can filter on
    assert all(n["level"] == "warning" for n in notes)
    assert all(n["descriptor"] == {"id": "not-checked"} for n in notes)
    assert all(n["properties"]["partial"] is False for n in notes)


def test_text_output_explains_and_summarises(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = guard(capsys, str(BAD))
    assert code == 1
    assert "ERROR CR001 Setting" in out
    assert "why:" in out
    assert "fix:" in out
    assert "1 error(s), 1 warning(s)." in out
    assert "no findings" in guard(capsys, str(GOOD))[1]


def test_code_option(capsys: pytest.CaptureFixture[str]) -> None:
    case = FIXTURES / "cr002_python_code"
    code, out, _ = guard(
        capsys, str(case / "template.yaml"), "--code", str(case / "code"), "-o", "json"
    )
    assert code == 1
    (finding,) = json.loads(out)["findings"]
    assert finding["rule"] == "CR002"
    assert finding["file"] == str(case / "code" / "ArtifactFunction" / "index.py")
