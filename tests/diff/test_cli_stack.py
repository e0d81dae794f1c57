"""``cfnops diff --stack`` end to end against moto's CloudFormation (in process)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from cfnops.cli.main import run

DEPLOYED = {
    "Parameters": {"Env": {"Type": "String", "Default": "dev"}},
    "Resources": {
        "Bucket": {
            "Type": "AWS::S3::Bucket",
            "Properties": {"BucketName": {"Fn::Sub": "data-${Env}"}},
        },
        "Queue": {
            "Type": "AWS::SQS::Queue",
            "Properties": {"QueueName": {"Fn::Sub": "${Bucket}-q"}},
        },
    },
}
NEW = """\
Parameters:
  Env: {Type: String, Default: dev}
Resources:
  Bucket:
    Type: AWS::S3::Bucket
    Properties: {BucketName: !Sub 'data-${Env}'}
  Queue:
    Type: AWS::SQS::Queue
    Properties: {QueueName: !Sub '${Bucket}-q', VisibilityTimeout: 60}
"""


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    for key in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_CLOUDFORMATION"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    new = tmp_path / "new.yaml"
    new.write_text(NEW, encoding="utf-8")
    with mock_aws():
        boto3.client("cloudformation", region_name="us-east-1").create_stack(
            StackName="web",
            TemplateBody=json.dumps(DEPLOYED),
            Parameters=[{"ParameterKey": "Env", "ParameterValue": "prod"}],
        )
        yield new


def test_stack_diff_uses_deployed_template_and_values(
    stack: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["--region", "us-east-1", "diff", "--stack", "web", str(stack), "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["resources"]["Queue"]["impact"] == "WILL_UPDATE"
    assert set(doc["resources"]) == {"Queue"}
    assert "parameterValues" not in doc  # Env keeps its deployed value (UsePreviousValue)


def test_stack_diff_with_new_parameter_value(
    stack: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "--region",
        "us-east-1",
        "diff",
        "--stack",
        "web",
        str(stack),
        "--parameters",
        "Env=test",
        "-o",
        "json",
        "--fail-on",
        "replace",
    ]
    assert run(argv) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["parameterValues"] == {"Env": {"old": "prod", "new": "test"}}
    assert doc["resources"]["Bucket"]["impact"] == "WILL_REPLACE"
    assert doc["resources"]["Queue"]["impact"] == "WILL_REPLACE"  # propagated through ${Bucket}


def test_unknown_stack_exits_2(stack: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # docs/cli.md: an unknown stack is a usage error (2), as for drift and heal
    assert run(["--region", "us-east-1", "diff", "--stack", "nope", str(stack)]) == 2
    assert "stack nope" in capsys.readouterr().err


def test_change_set_mode_merges_and_cleans_up(
    stack: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        run(
            [
                "--region",
                "us-east-1",
                "diff",
                "--stack",
                "web",
                str(stack),
                "--change-set",
                "-o",
                "json",
            ]
        )
        == 0
    )
    doc = json.loads(capsys.readouterr().out)
    assert any("change set" in note for note in doc["notes"])
    cfn = boto3.client("cloudformation", region_name="us-east-1")
    assert cfn.list_change_sets(StackName="web")["Summaries"] == []


def test_validate_with_stack_names_taken_in_the_account(
    stack: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="taken-bucket")
    boto3.client("sqs", region_name="us-east-1").create_queue(QueueName="taken-queue")
    stack.write_text(
        NEW
        + "  Extra:\n    Type: AWS::S3::Bucket\n    Properties: {BucketName: taken-bucket}\n"
        + "  Free:\n    Type: AWS::S3::Bucket\n    Properties: {BucketName: free-bucket}\n"
        + "  Jobs:\n    Type: AWS::SQS::Queue\n    Properties: {QueueName: taken-queue}\n",
        encoding="utf-8",
    )
    argv = ["--region", "us-east-1", "diff", "--stack", "web", str(stack), "--validate"]
    assert run([*argv, "-o", "json"]) == 0
    found = json.loads(capsys.readouterr().out)["deployFindings"]
    taken = sorted(f["resource"] for f in found if f["rule"] == "name-exists")
    assert taken == ["Extra", "Jobs"]
    assert run([*argv, "--fail-on", "destroy"]) == 1
    assert "Extra (name-exists)" in capsys.readouterr().err
