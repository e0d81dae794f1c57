"""``cfnops diff --stack NAME --drift``: live drift beside the template change."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from tests._source import parse_file

from cfnops.cli.main import run
from cfnops.demo.heal_sample import INITIAL_VALUE, deploy_sample, drift_sample
from cfnops.diff import DriftedProperty, Impact, diff_templates, to_json, with_drift
from cfnops.sandbox import Sandbox

SRC = Path(__file__).resolve().parents[2] / "src" / "cfnops" / "diff"


def _param(value: str, description: str | None = None) -> dict[str, Any]:
    props: dict[str, Any] = {"Name": "/p", "Type": "String", "Value": value}
    if description is not None:
        props["Description"] = description
    return {"Resources": {"P": {"Type": "AWS::SSM::Parameter", "Properties": props}}}


DRIFT = DriftedProperty("P", "AWS::SSM::Parameter", "MODIFIED", "/Value", "a", "hand", "NOT_EQUAL")


def test_drifted_property_also_changed_by_the_template_is_marked() -> None:
    result = with_drift(diff_templates(_param("a"), _param("b")), [DRIFT])
    assert result.drift is not None
    (entry,) = result.drift
    assert entry.also_changed and entry.impact == Impact.WILL_UPDATE.value
    doc = to_json(result)
    assert doc["drift"][0]["alsoChangedByTemplate"] is True
    assert doc["drift"][0]["actual"] == "hand"


def test_drift_on_a_property_the_template_leaves_alone_is_not_marked() -> None:
    result = with_drift(diff_templates(_param("a"), _param("a", "new text")), [DRIFT])
    assert result.drift is not None
    (entry,) = result.drift
    assert not entry.also_changed
    unchanged = with_drift(diff_templates(_param("a"), _param("a")), [DRIFT])
    assert unchanged.drift is not None and not unchanged.drift[0].also_changed
    assert "drift" not in to_json(diff_templates(_param("a"), _param("a")))


def test_diff_core_does_not_import_heal_cli_or_sandbox() -> None:
    for module in SRC.rglob("*.py"):
        if module.name == "stack.py":
            continue  # the AWS adapter; still no heal/cli/sandbox (checked below)
        tree = parse_file(module)
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                assert not name.startswith(("cfnops.heal", "cfnops.cli", "cfnops.sandbox")), (
                    f"{module.name} imports {name}"
                )


def _cli(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    for key, value in sandbox.environment().items():
        monkeypatch.setenv(key, value)
    return run(["--endpoint-url", sandbox.endpoint_url, "--region", "us-east-1", *args])


def _new_template(tmp_path: Path, name: str, value: str, description: str | None) -> Path:
    props: dict[str, Any] = {"Name": name, "Type": "String", "Value": value}
    if description:
        props["Description"] = description
    path = tmp_path / "new.json"
    path.write_text(
        json.dumps(
            {
                "AWSTemplateFormatVersion": "2010-09-09",
                "Description": "cfnops heal sample: one SSM parameter",
                "Resources": {
                    "SampleParameter": {"Type": "AWS::SSM::Parameter", "Properties": props}
                },
            }
        )
    )
    return path


def test_cli_drift_against_the_sandbox(
    cfnops_sandbox: Sandbox,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    stack = "diff-drift-" + tmp_path.name[-8:].replace("_", "-")
    param = f"/{stack}/p"
    deploy_sample(cfnops_sandbox.client("cloudformation"), stack, param)
    drift_sample(cfnops_sandbox.client("ssm"), param)
    touching = _new_template(tmp_path, param, "from-template", None)
    code = _cli(
        cfnops_sandbox,
        monkeypatch,
        "-o",
        "json",
        "diff",
        "--stack",
        stack,
        str(touching),
        "--drift",
    )
    assert code == 0
    (entry,) = json.loads(capsys.readouterr().out)["drift"]
    assert entry["resource"] == "SampleParameter" and entry["path"] == "/Value"
    assert entry["expected"] == INITIAL_VALUE
    assert entry["alsoChangedByTemplate"] is True
    other = _new_template(tmp_path, param, INITIAL_VALUE, "documented")
    monkeypatch.setenv("COLUMNS", "200")
    assert _cli(cfnops_sandbox, monkeypatch, "diff", "--stack", stack, str(other), "--drift") == 0
    text = capsys.readouterr().out
    assert "Live drift (1 drifted, 0 also changed by the template)" in text


def test_drift_needs_stack(tmp_path: Path) -> None:
    tpl = tmp_path / "t.json"
    tpl.write_text(json.dumps(_param("a")))
    assert run(["diff", str(tpl), str(tpl), "--drift"]) == 2
