"""``cfnops diff -o sarif``: SARIF 2.1.0 validated against the OASIS schema (vendored in
data/, see data/SARIF-SCHEMA-LICENSE.md), with rule ids, help and template lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cfnops.cli.main import run

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SCHEMA = json.loads((HERE / "data" / "sarif-2.1.0-rtm.5.json").read_text())

OLD = """\
Resources:
  Bucket:
    Type: AWS::S3::Bucket
    Properties: {BucketName: one}
  Gone:
    Type: AWS::SNS::Topic
  Web:
    Type: AWS::EC2::SecurityGroup
    Properties:
      GroupDescription: web
"""
NEW = """\
Resources:
  Bucket:
    Type: AWS::S3::Bucket
    Properties: {BucketName: two}
  Web:
    Type: AWS::EC2::SecurityGroup
    Properties:
      GroupDescription: web
      SecurityGroupIngress:
        - {IpProtocol: tcp, FromPort: 22, ToPort: 22, CidrIp: 0.0.0.0/0}
  Role:
    Type: AWS::IAM::Role
    Properties:
      AssumeRolePolicyDocument: {Statement: []}
      Policies:
        - PolicyName: all
          PolicyDocument:
            Statement: [{Effect: Allow, Action: "s3:*", Resource: "*"}]
"""


def _sarif(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert run(["diff", *argv, "-o", "sarif"]) == 0
    log = json.loads(capsys.readouterr().out)
    jsonschema.validate(log, SCHEMA)  # raises with the failing path
    return log


def test_sarif_results_are_valid_and_point_at_template_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("old.yaml").write_text(OLD)
    Path("new.yaml").write_text(NEW)
    log = _sarif(["old.yaml", "new.yaml"], capsys)
    run_ = log["runs"][0]
    rules = {r["id"]: r for r in run_["tool"]["driver"]["rules"]}
    assert all(r["help"]["text"] and r["shortDescription"]["text"] for r in rules.values())
    found = {
        (r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
        for r in run_["results"]
    }
    assert found == {
        ("CFNOPS-D001", 2),  # Bucket replaced (BucketName is create-only)
        ("CFNOPS-D003", 1),  # Gone deleted: not in NEW, so the Resources line
        ("CFNOPS-D005", 11),  # Role: an Allow s3:* statement
        ("CFNOPS-D006", 5),  # Web: 22 open to 0.0.0.0/0
    }
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run_["results"]
    }
    assert uris == {"new.yaml"}  # relative to the working directory, as code scanning wants
    for result in run_["results"]:
        assert rules[result["ruleId"]]["defaultConfiguration"]["level"] == result["level"]
        assert run_["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_identical_templates_have_no_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.yaml").write_text(OLD)
    log = _sarif([str(tmp_path / "a.yaml"), str(tmp_path / "a.yaml")], capsys)
    assert log["runs"][0]["results"] == []


def test_sarif_for_an_assembly_names_the_nested_stack(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    log = _sarif(["examples/cdk/v1/cdk.out", "examples/cdk/v2/cdk.out"], capsys)
    results = log["runs"][0]["results"]
    names = {
        (r["ruleId"], r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"])
        for r in results
    }
    assert names == {
        ("CFNOPS-D002", "AppStack/DbNested/Table"),
        ("CFNOPS-D003", "LegacyStack/Topic"),
    }
    nested = next(r for r in results if r["ruleId"] == "CFNOPS-D002")
    uri = nested["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.endswith(".nested.template.json") and uri.startswith("examples/cdk/v2/")


def test_sarif_for_sam_points_at_the_sam_resource(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    log = _sarif(["examples/sam/old.yaml", "examples/sam/new.yaml"], capsys)
    lines = (ROOT / "examples" / "sam" / "new.yaml").read_text().splitlines()
    for result in log["runs"][0]["results"]:
        line = result["locations"][0]["physicalLocation"]["region"]["startLine"]
        assert lines[line - 1].strip() in ("Orders:", "OrdersTable:"), result["message"]
