"""``cfnops drift``: per-resource report, NOT_CHECKED listed, nested stacks, ignore rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.heal._support import unique

from cfnops.cli.main import run
from cfnops.demo.heal_sample import deploy_sample, drift_sample, sample_template
from cfnops.sandbox import Sandbox


def _cli(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    for key, value in sandbox.environment().items():
        monkeypatch.setenv(key, value)
    return run(["--endpoint-url", sandbox.endpoint_url, "--region", "us-east-1", *args])


def _nested(sandbox: Sandbox) -> str:
    name = unique("parent")
    s3 = sandbox.client("s3")
    s3.create_bucket(Bucket=name)
    s3.put_object(Bucket=name, Key="child.json", Body=sample_template(f"/{name}/child"))
    parent = {
        "Resources": {
            "Child": {
                "Type": "AWS::CloudFormation::Stack",
                "Properties": {"TemplateURL": f"https://{name}.s3.amazonaws.com/child.json"},
            },
            "Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": name}},
            "Log": {"Type": "AWS::Logs::LogGroup", "Properties": {"LogGroupName": f"/{name}"}},
        }
    }
    cfn = sandbox.client("cloudformation")
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(parent))
    drift_sample(sandbox.client("ssm"), f"/{name}/child")
    return name


def test_json_report_follows_nested_stacks_and_lists_not_checked(
    cfnops_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    name = _nested(cfnops_sandbox)
    assert _cli(cfnops_sandbox, monkeypatch, "-o", "json", "drift", name) == 0
    out = json.loads(capsys.readouterr().out)
    (report,) = out["stacks"]
    assert report["stackName"] == name and report["effectiveStatus"] == "DRIFTED"
    statuses = {r["logicalId"]: r["status"] for r in report["resources"]}
    assert statuses["Queue"] == "IN_SYNC"
    assert statuses["Log"] == "NOT_CHECKED"
    (child,) = report["nested"]
    (res,) = child["resources"]
    assert res["status"] == "MODIFIED"
    assert res["properties"] == [
        {
            "path": "/Value",
            "expected": "initial-value",
            "actual": "updated-value",
            "differenceType": "NOT_EQUAL",
            "ignored": False,
            "accepted": False,
        }
    ]


def test_coverage_per_stack_and_fleet_and_fail_on_unchecked(
    cfnops_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    name = _nested(cfnops_sandbox)  # Queue checked, Log unsupported, child's parameter checked
    plain = unique("plain")
    deploy_sample(cfnops_sandbox.client("cloudformation"), plain, f"/{plain}/p")
    assert _cli(cfnops_sandbox, monkeypatch, "-o", "json", "drift", name, plain) == 0
    out = json.loads(capsys.readouterr().out)
    parent, other = out["stacks"]
    expect = {"checked": 1, "notChecked": 0, "unsupported": 1, "total": 2, "percent": 50.0}
    assert parent["coverage"] == {**expect, "stacksNotCheckable": 0}
    assert parent["coverageWithNested"]["checked"] == 2
    assert parent["coverageWithNested"]["percent"] == 66.7
    assert other["coverage"]["percent"] == 100.0
    assert out["coverage"] == {
        "checked": 3,
        "notChecked": 0,
        "unsupported": 1,
        "total": 4,
        "percent": 75.0,
        "stacksNotCheckable": 0,
    }
    assert _cli(cfnops_sandbox, monkeypatch, "drift", plain, "--fail-on-unchecked") == 0
    capsys.readouterr()
    assert _cli(cfnops_sandbox, monkeypatch, "drift", name, "--fail-on-unchecked") == 1
    captured = capsys.readouterr()
    assert "not everything was checked: coverage 66.7%: 2 of 3 resources checked" in captured.err
    assert "fleet coverage 66.7%" in captured.out


def test_markdown_and_text_reports(
    cfnops_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    name = _nested(cfnops_sandbox)
    assert _cli(cfnops_sandbox, monkeypatch, "drift", name, "--output", "markdown") == 0
    md = capsys.readouterr().out
    assert md.startswith("# Drift report")
    assert f"## Stack `{name}`: DRIFTED" in md and "## Nested stack `" in md
    assert "| SampleParameter | AWS::SSM::Parameter | MODIFIED | `/Value` | initial-value |" in md
    assert "NOT_CHECKED" in md
    assert "Fleet coverage 66.7%: 2 of 3 resources checked, 0 not checked, 1 unsupported." in md
    assert "Coverage 50%: 1 of 2 resources checked, 0 not checked, 1 unsupported." in md
    monkeypatch.setenv("COLUMNS", "200")
    assert _cli(cfnops_sandbox, monkeypatch, "drift", name) == 0
    text = capsys.readouterr().out
    assert "nested stack" in text and "expected 'initial-value', actual 'updated-value'" in text


def test_ignore_rule_from_the_config_file_marks_the_difference(
    cfnops_sandbox: Sandbox,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    stack = unique("ign")
    deploy_sample(cfnops_sandbox.client("cloudformation"), stack, f"/{stack}/p")
    drift_sample(cfnops_sandbox.client("ssm"), f"/{stack}/p")
    config = tmp_path / "cfnops.toml"
    config.write_text(
        '[[heal.ignore]]\nresource_type = "AWS::SSM::Parameter"\nproperty_path = "/Value"\n'
        f'stack = "{stack[:4]}*"\n'
    )
    assert (
        _cli(cfnops_sandbox, monkeypatch, "--config", str(config), "-o", "json", "drift", stack)
        == 0
    )
    (report,) = json.loads(capsys.readouterr().out)["stacks"]
    assert report["status"] == "DRIFTED" and report["effectiveStatus"] == "IN_SYNC"
    prop: dict[str, Any] = report["resources"][0]["properties"][0]
    assert prop["ignored"] is True


def test_stack_names_or_all_is_a_usage_error(
    cfnops_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _cli(cfnops_sandbox, monkeypatch, "drift") == 2
    assert _cli(cfnops_sandbox, monkeypatch, "drift", "x", "--all") == 2
