"""Will it deploy? Explicit names that collide, custom-named replacements, and
(``--validate``) properties that do not match the registry schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cfnops.cli.main import run
from cfnops.diff import diff_templates


def _buckets(**names: Any) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    for rid, name in names.items():
        res: dict[str, Any] = {"Type": "AWS::S3::Bucket"}
        if isinstance(name, tuple):  # (name, condition)
            name, res["Condition"] = name
        res["Properties"] = {"BucketName": name}
        resources[rid] = res
    return {"Resources": resources}


def test_two_resources_of_a_type_with_one_name_collide() -> None:
    found = diff_templates(_buckets(A="data"), _buckets(A="data", B="data")).deploy_findings
    assert [(f.rule, f.logical_id, f.path[-1]) for f in found] == [
        ("physical-name-collision", "B", "BucketName")
    ]
    assert "is also A's" in found[0].message
    # one value spelled two ways is one name
    same = _buckets(A={"Fn::Sub": "${AWS::StackName}-data"})
    both = _buckets(
        A={"Fn::Sub": "${AWS::StackName}-data"},
        B={"Fn::Join": ["-", [{"Ref": "AWS::StackName"}, "data"]]},
    )
    assert [f.logical_id for f in diff_templates(same, both).deploy_findings] == ["B"]


def test_no_collision_for_other_names_exclusive_conditions_or_unchanged_pairs() -> None:
    assert diff_templates({}, _buckets(A="a", B="b")).deploy_findings == ()
    exclusive = _buckets(A=("data", "IsProd"), B=("data", "IsDev"))
    assert diff_templates({}, exclusive).deploy_findings == ()
    deployed = _buckets(A="data", B="data")  # the stack has it already: not this deploy's
    assert diff_templates(deployed, deployed).deploy_findings == ()


def _queue(name: str, fifo: bool) -> dict[str, Any]:
    props = {"QueueName": name, "FifoQueue": fifo}
    return {"Resources": {"Q": {"Type": "AWS::SQS::Queue", "Properties": props}}}


def test_a_custom_named_resource_replaced_keeping_its_name_fails() -> None:
    # FifoQueue is create-only: the queue is replaced (aws-properties-name.html)
    result = diff_templates(_queue("jobs.fifo", False), _queue("jobs.fifo", True))
    (finding,) = result.deploy_findings
    assert finding.rule == "custom-name-replaced" and finding.level == "error"
    assert "keeps its QueueName 'jobs.fifo'" in finding.message
    renamed = diff_templates(_queue("jobs.fifo", False), _queue("jobs2.fifo", True))
    assert renamed.deploy_findings == ()


OLD = "Resources:\n  Keep:\n    Type: AWS::SNS::Topic\n"
NEW = """\
Resources:
  Keep:
    Type: AWS::SNS::Topic
  Data:
    Type: AWS::S3::Bucket
    Properties:
      BucketName: data
      VersioningConfiguration: {Status: Maybe}
  Copy:
    Type: AWS::S3::Bucket
    Properties: {BucketName: data}
  Jobs:
    Type: AWS::SQS::Queue
    Properties:
      DelaySeconds: [1]
"""


@pytest.fixture
def pair(tmp_path: Path) -> list[str]:
    (tmp_path / "old.yaml").write_text(OLD, encoding="utf-8")
    (tmp_path / "new.yaml").write_text(NEW, encoding="utf-8")
    return [str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")]


def test_validate_reports_schema_findings_with_lines_in_json_and_sarif(
    pair: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["diff", *pair, "--validate", "-o", "json"]) == 0
    found = json.loads(capsys.readouterr().out)["deployFindings"]
    by_line = {(f["rule"], f["resource"], f["line"]) for f in found}
    assert ("schema", "Data", 8) in by_line  # Status: Maybe is not an allowed value
    assert ("schema", "Jobs", 15) in by_line  # DelaySeconds is an integer
    assert ("physical-name-collision", "Copy", None) in by_line
    status = next(f for f in found if f["line"] == 8)
    assert status["path"] == "/Resources/Data/Properties/VersioningConfiguration/Status"
    assert status["code"] == "E3030" and "Data.VersioningConfiguration.Status" in status["message"]

    assert run(["diff", *pair, "--validate", "-o", "sarif"]) == 0
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    lines = {
        r["locations"][0]["physicalLocation"]["region"]["startLine"]
        for r in results
        if r["ruleId"] == "CFNOPS-D007"
    }
    assert {8, 15} <= lines
    assert run(["diff", *pair, "--validate", "--fail-on", "destroy"]) == 1
    assert "the deploy would fail: Copy (physical-name-collision)" in capsys.readouterr().err


def test_without_validate_only_the_name_checks_run(
    pair: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["diff", *pair, "-o", "json"]) == 0
    found = json.loads(capsys.readouterr().out)["deployFindings"]
    assert [f["rule"] for f in found] == ["physical-name-collision"]


def test_validate_without_cfn_lint_is_a_usage_error(
    pair: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import sys

    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    assert run(["diff", *pair, "--validate"]) == 2
    assert "--validate needs the cfn-lint command" in capsys.readouterr().err
