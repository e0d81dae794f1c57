"""guard's and diff's SARIF meet GitHub code scanning's rules (tests/ci/github_sarif.py):
rule metadata, normalised repository-relative URIs, fingerprints; from cdk.out, results
name the construct path and their fingerprints do not depend on the folder's name."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from tests.ci.github_sarif import RULES, problems

from cfnops.cli.main import run
from cfnops.guard import check_template, to_sarif
from cfnops.templates import load_template

FIXTURES = Path(__file__).resolve().parents[1] / "guard" / "fixtures"
BAD = FIXTURES / "cr001_node_inline" / "template.yaml"  # CR001 error and warning


def test_the_checker_finds_what_github_rejects() -> None:
    good = {
        "runs": [
            {
                "tool": {"driver": {"name": "t", "rules": [{"id": "R1", "name": "r"}]}},
                "results": [
                    {
                        "message": {"text": "m"},
                        "locations": [
                            {"physicalLocation": {"artifactLocation": {"uri": "a/../b.yaml"}}}
                        ],
                    }
                ],
            }
        ]
    }
    found = {p.split(":")[0].split(" ")[0] for p in problems([good, copy.deepcopy(good)])}
    assert found == {"SARIF2012", "Fingerprints", "GH1005", "GH1003", "UniqueToolAndCategory"}
    assert found <= set(RULES)


def test_guard_sarif_meets_githubs_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "infra").mkdir()
    (tmp_path / "handlers").mkdir()
    shutil.copy(BAD, tmp_path / "infra" / "template.yaml")
    monkeypatch.chdir(tmp_path)
    sarif = to_sarif(check_template("handlers/../infra/template.yaml", None))
    assert problems([sarif]) == []
    results = sarif["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"CR001"}
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results} == {
        "infra/template.yaml"
    }
    rules = {r["id"]: r for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert "log stream" in rules["CR001"]["fullDescription"]["text"]
    assert rules["CR004"]["help"]["text"].endswith(rules["CR004"]["helpUri"])


def _cdk_copy(folder: Path) -> Path:
    """The fixture as the CDK writes it into cdk.out: JSON with construct paths."""
    body: dict[str, Any] = json.loads(json.dumps(load_template(BAD)))
    for logical_id, resource in body["Resources"].items():
        resource["Metadata"] = {"aws:cdk:path": f"AppStack/Settings/{logical_id}/Resource"}
    folder.mkdir(parents=True)
    path = folder / "AppStack.template.json"
    path.write_text(json.dumps(body, indent=1))
    return path


def test_cdk_findings_name_the_construct_path_and_keep_fingerprints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    runs = []
    for folder in ("cdk.out", "build/cdk.out.main"):
        path = _cdk_copy(tmp_path / folder)
        runs.append(to_sarif(check_template(str(path.relative_to(tmp_path)), None)))
    assert problems(runs[:1]) == []
    first, second = ([r for r in log["runs"][0]["results"]] for log in runs)
    assert [r["partialFingerprints"] for r in first] == [r["partialFingerprints"] for r in second]
    names = {r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] for r in first}
    assert names == {"AppStack/Settings/Setting/Resource"}
    assert all("cdk.out" not in r["partialFingerprints"]["cfnopsGuard/v1"] for r in first)


def test_diff_sarif_meets_githubs_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "infra").mkdir()
    old, new = tmp_path / "old.yaml", tmp_path / "infra" / "app.yaml"
    old.write_text("Resources:\n  B:\n    Type: AWS::S3::Bucket\n    Properties: {BucketName: a}\n")
    new.write_text(old.read_text().replace("BucketName: a", "BucketName: b"))
    assert run(["diff", "old.yaml", "infra/../infra/app.yaml", "-o", "sarif"]) in (0, 1)
    sarif = json.loads(capsys.readouterr().out)
    assert problems([sarif]) == []
    assert sarif["runs"][0]["results"][0]["ruleId"] == "CFNOPS-D001"
