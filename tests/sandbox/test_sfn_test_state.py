"""stepfunctions:TestState on the sandbox: boto3 (botocore's validation on) gets the
documented answer for every example of tests/sandbox/data/test_state_examples.json (each
names the AWS page it comes from), over real HTTP; every request and answer is checked
against botocore's service model (the raw body by RawShapeChecker, the parsed answer and
the request by botocore's Stubber, which validates both against the TestState shapes)."""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path
from typing import Any, ClassVar

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError
from botocore.stub import Stubber

from cfnops.sandbox import Sandbox
from cfnops.sandbox.shapecheck import RawShapeChecker, assert_matches_output_shape

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


def _stubbed_round_trip(request: dict[str, Any], answer: dict[str, Any]) -> None:
    """botocore's Stubber validates ``answer`` against TestState's output shape when it is
    added, and ``request`` against the input shape when the stubbed client is called."""
    client = boto3.client(
        "stepfunctions", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x"
    )
    body = {k: v for k, v in answer.items() if k != "ResponseMetadata"}
    with Stubber(client) as stub:
        stub.add_response("test_state", body, expected_params=request)
        assert client.test_state(**request) == body
        stub.assert_no_pending_responses()


def _shown(key: str, value: Any) -> Any:
    return (
        json.loads(value)
        if isinstance(value, str) and key not in ("request", "response")
        else value
    )


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_documented_example(sfn: Any, example: dict[str, Any]) -> None:
    expected = example["expected"]
    if "errorCode" in expected:
        with pytest.raises(ClientError) as info:
            sfn.test_state(**example["request"])
        assert info.value.response["Error"]["Code"] == expected["errorCode"]
        assert info.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
        message = info.value.response["Error"]["Message"]
        assert expected.get("messageIncludes", "") in message, message
        return
    with RawShapeChecker(sfn) as raw:
        got = sfn.test_state(**example["request"])
    raw.assert_clean()
    assert raw.checked == ["TestState"]
    assert_matches_output_shape(sfn, "TestState", got)
    _stubbed_round_trip(example["request"], got)
    assert got["status"] == expected["status"], got
    assert got.get("nextState") == expected.get("nextState"), got
    if "output" in expected:
        assert json.loads(got["output"]) == expected["output"], got
    else:
        assert "output" not in got, got
    for key in ("error", "cause"):
        if key in expected or f"{key}Includes" not in expected:
            assert got.get(key) == expected.get(key), got
    if "causeIncludes" in expected:
        assert expected["causeIncludes"] in got["cause"], got
    inspection = got.get("inspectionData", {})
    for key, want in expected.get("inspectionData", {}).items():
        assert key in inspection, (key, inspection)
        assert _shown(key, inspection[key]) == want, (key, inspection)
    for key in expected.get("inspectionAbsent", []):
        assert key not in inspection, (key, inspection)


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


class _Recorded(http.server.BaseHTTPRequestHandler):
    seen: ClassVar[list[tuple[str, str, dict[str, str], bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.seen.append(
            (self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        )
        answer = b'{"accepted": true}'
        self.send_response(202 if b"please-fail" not in body else 503)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def endpoint() -> Any:
    _Recorded.seen = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorded)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_trace_shows_an_http_task_exchange_and_reveal_secrets_the_connection(
    sfn: Any, cfnops_sandbox: Sandbox, endpoint: str
) -> None:
    """TRACE: an HTTP Task without a mock is sent; the request leaves out what the
    EventBridge connection adds (its API key, invocation header and query parameter)
    unless revealSecrets is true; the response is the endpoint's."""
    events = cfnops_sandbox.client("events")
    arn = events.create_connection(
        Name="ticketing",
        AuthorizationType="API_KEY",
        AuthParameters={
            "ApiKeyAuthParameters": {"ApiKeyName": "x-api-key", "ApiKeyValue": "s3cret"},
            "InvocationHttpParameters": {
                "HeaderParameters": [{"Key": "x-team", "Value": "ops", "IsValueSecret": True}],
                "QueryStringParameters": [{"Key": "tenant", "Value": "t1", "IsValueSecret": True}],
            },
        },
    )["ConnectionArn"]
    state = {
        "Type": "Task",
        "Resource": "arn:aws:states:::http:invoke",
        "Parameters": {
            "ApiEndpoint": f"{endpoint}/tickets",
            "Method": "POST",
            "Headers": {"x-job": "nightly"},
            "RequestBody": {"summary.$": "$.summary"},
            "Authentication": {"ConnectionArn": arn},
        },
        "ResultSelector": {"status.$": "$.StatusCode", "body.$": "$.ResponseBody"},
        "Next": "Done",
    }
    request = {
        "definition": json.dumps(state),
        "input": json.dumps({"summary": "db stop failed"}),
        "inspectionLevel": "TRACE",
    }
    with RawShapeChecker(sfn) as raw:
        hidden = sfn.test_state(**request)
        shown = sfn.test_state(**request, revealSecrets=True)
    raw.assert_clean()
    for answer, reveal in ((hidden, False), (shown, True)):
        _stubbed_round_trip({**request, **({"revealSecrets": True} if reveal else {})}, answer)
        assert answer["status"] == "SUCCEEDED", answer
        assert answer["nextState"] == "Done"
        assert json.loads(answer["output"]) == {"status": 202, "body": {"accepted": True}}
        sent = answer["inspectionData"]["request"]
        assert (sent["method"], sent["protocol"]) == ("POST", "http")
        assert json.loads(sent["body"]) == {"summary": "db stop failed"}
        assert "x-job: nightly" in sent["headers"]
        assert ("x-api-key: s3cret" in sent["headers"]) is reveal
        assert ("x-team: ops" in sent["headers"]) is reveal
        assert sent["url"].endswith("/tickets?tenant=t1" if reveal else "/tickets"), sent
        received = answer["inspectionData"]["response"]
        assert (received["statusCode"], received["statusMessage"]) == ("202", "Accepted")
        assert json.loads(received["body"]) == {"accepted": True}
    # the endpoint got the connection's additions both times: only the display differs
    assert [(m, p) for m, p, _, _ in _Recorded.seen] == [("POST", "/tickets?tenant=t1")] * 2
    assert all(h.get("x-api-key") == "s3cret" for _, _, h, _ in _Recorded.seen)
    # DEBUG shows no exchange; a 503 fails the Task with States.Http.StatusCode.503
    failing = {**request, "input": json.dumps({"summary": "please-fail"})}
    answer = sfn.test_state(**{**failing, "inspectionLevel": "DEBUG"})
    assert answer["status"] == "FAILED" and answer["error"] == "States.Http.StatusCode.503"
    assert "request" not in answer["inspectionData"]
    answer = sfn.test_state(**failing)
    assert answer["inspectionData"]["response"]["statusCode"] == "503"


def test_an_http_task_on_an_unknown_connection_fails_naming_it(sfn: Any, endpoint: str) -> None:
    arn = "arn:aws:events:us-east-1:123456789012:connection/missing/abc"
    state = {"Type": "Task", "Resource": "arn:aws:states:::http:invoke", "End": True,
             "Parameters": {"ApiEndpoint": endpoint, "Method": "GET",
                            "Authentication": {"ConnectionArn": arn}}}  # fmt: skip
    answer = sfn.test_state(definition=json.dumps(state))
    assert answer["status"] == "FAILED" and arn in answer["cause"]
    assert _Recorded.seen == []


def test_cli_job_test_state_passes_context_and_map_configuration(
    cfnops_sandbox: Sandbox,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from cfnops.cli.main import run

    for key, value in cfnops_sandbox.environment().items():
        monkeypatch.setenv(key, value)
    by_id = {e["id"]: e["request"] for e in EXAMPLES}
    task = tmp_path / "task.json"
    task.write_text(by_id["context-object-task"]["definition"])
    context = tmp_path / "context.json"
    context.write_text(by_id["context-object-task"]["context"])
    capsys.readouterr()
    code = run(["-o", "json", "job", "test-state", str(task), "--context", f"@{context}",
                "--mock-result", '{"Payload": {"stopped": true}}'])  # fmt: skip
    answer = json.loads(capsys.readouterr().out)
    assert code == 0 and answer["status"] == "SUCCEEDED", answer
    params = json.loads(answer["inspectionData"]["afterParameters"])
    assert params["Payload"]["execution"] == "run-42"
    stop = tmp_path / "map.json"
    stop.write_text(by_id["map-stages-debug"]["definition"])
    args = ["-o", "json", "job", "test-state", str(stop), "--input",
            by_id["map-stages-debug"]["input"]]  # fmt: skip
    code = run([*args, "--mock-result", "[1]", "--map-failures", "2"])
    answer = json.loads(capsys.readouterr().out)
    assert (code, answer["status"], answer["nextState"]) == (0, "CAUGHT_ERROR", "Escalate")
    code = run([*args, "--mock-error", "E", "--error-caused-by-state", "Nope"])
    assert code != 0 and "StopInstance" in capsys.readouterr().err
