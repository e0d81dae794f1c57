"""stepfunctions:TestState on the sandbox: boto3 (botocore's validation on) gets the
documented answer for every example of tests/sandbox/data/test_state_examples.json (each
names the AWS page it comes from)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from cfnops.sandbox import Sandbox

EXAMPLES: list[dict[str, Any]] = json.loads(
    (Path(__file__).resolve().parent / "data" / "test_state_examples.json").read_text()
)


@pytest.fixture
def sfn(cfnops_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A plain ``boto3.client("stepfunctions")`` (parameter validation on), configured only
    by the variables ``cfnops sandbox up`` prints: among them
    ``AWS_DISABLE_HOST_PREFIX_INJECTION`` (TestState's host prefix ``sync-`` does not
    resolve on 127.0.0.1)."""
    for key, value in cfnops_sandbox.environment().items():
        monkeypatch.setenv(key, value)
    return boto3.client("stepfunctions", config=Config(parameter_validation=True))


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_documented_example(sfn: Any, example: dict[str, Any]) -> None:
    expected = example["expected"]
    if "errorCode" in expected:
        with pytest.raises(ClientError) as info:
            sfn.test_state(**example["request"])
        assert info.value.response["Error"]["Code"] == expected["errorCode"]
        assert info.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
        return
    got = sfn.test_state(**example["request"])
    assert got["status"] == expected["status"], got
    assert got.get("nextState") == expected.get("nextState"), got
    if "output" in expected:
        assert json.loads(got["output"]) == expected["output"], got
    else:
        assert "output" not in got, got
    for key in ("error", "cause"):
        assert got.get(key) == expected.get(key), got
    inspection = got.get("inspectionData", {})
    for key, want in expected.get("inspectionData", {}).items():
        value = inspection[key] if key == "errorDetails" else json.loads(inspection[key])
        assert value == want, (key, inspection)


def test_the_cfnops_client_reaches_test_state_unchanged(cfnops_sandbox: Sandbox) -> None:
    sfn = cfnops_sandbox.client("stepfunctions")  # cfnops.aws: no host prefix on an endpoint
    got = sfn.test_state(definition='{"Type": "Succeed"}', input='{"ok": true}')
    assert (got["status"], json.loads(got["output"])) == ("SUCCEEDED", {"ok": True})


def test_botocore_validation_still_applies(sfn: Any) -> None:
    from botocore.exceptions import ParamValidationError

    with pytest.raises(ParamValidationError):
        sfn.test_state(input="{}")  # definition is required
    with pytest.raises(ParamValidationError):
        sfn.test_state(
            definition='{"Type": "Succeed"}', stateConfiguration={"retrierRetryCount": "1"}
        )
    # botocore leaves enums to the service, which refuses an unknown level
    with pytest.raises(ClientError) as info:
        sfn.test_state(definition='{"Type": "Succeed"}', inspectionLevel="VERBOSE")
    assert info.value.response["Error"]["Code"] == "ValidationException"


def test_bad_requests_name_the_problem(sfn: Any) -> None:
    with pytest.raises(ClientError) as info:
        sfn.test_state(definition="{not json")
    assert info.value.response["Error"]["Code"] == "InvalidDefinition"
    with pytest.raises(ClientError) as info:
        sfn.test_state(definition='{"Type": "Pass", "End": true}', input="[1,")
    assert info.value.response["Error"]["Code"] == "InvalidExecutionInput"
    task = '{"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:s3:listBuckets", "End": true}'
    with pytest.raises(ClientError) as info:
        sfn.test_state(definition=task)
    assert "give the Task's answer in mock" in info.value.response["Error"]["Message"]


def test_cli_job_test_state_wraps_it(
    cfnops_sandbox: Sandbox,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from cfnops.cli.main import run

    for key, value in cfnops_sandbox.environment().items():
        monkeypatch.setenv(key, value)
    retry = next(e for e in EXAMPLES if e["id"] == "retry-retriable")["request"]
    definition = tmp_path / "state.json"
    definition.write_text(retry["definition"])
    mock = ["--mock-error", "Lambda.TooManyRequestsException", "--mock-cause", "Rate exceeded"]
    args = ["job", "test-state", str(definition), "--input", retry["input"], *mock]
    capsys.readouterr()
    code = run(["-o", "json", *args, "--retry-count", "1"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    answer = json.loads(captured.out)
    assert code == 0 and answer["status"] == "RETRIABLE"
    assert answer["inspectionData"]["errorDetails"]["retryBackoffIntervalSeconds"] == 4
    code = run([*args, "--retry-count", "3"])  # retries used up, no Catch: FAILED
    out = capsys.readouterr().out
    assert code == 1 and "status FAILED" in out and "error: Lambda.TooManyRequestsException" in out
