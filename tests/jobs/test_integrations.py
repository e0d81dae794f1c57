"""Task integrations: aws-sdk (error names), local Lambda, SNS, HTTP, child job-nets, tokens."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import Any

import pytest

from cfnops.asl import TaskContext
from cfnops.aws import AwsClients
from cfnops.durable import Engine
from cfnops.jobs import (
    CapturingTransport,
    JobService,
    register_function,
    register_state_machine,
)
from cfnops.jobs._aws_sdk import boto3_service, sfn_error_name
from cfnops.jobs._views import state_views


def _task(resource: str, args: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    state: dict[str, Any] = {"Type": "Task", "Resource": resource, "End": True, **extra}
    if args is not None:
        state["Parameters"] = args
    return {"StartAt": "T", "States": {"T": state}}


@pytest.mark.parametrize(
    ("service", "code", "expected"),
    [
        ("Ec2", "InvalidInstanceID.NotFound", "Ec2.InvalidInstanceIDNotFoundException"),
        ("S3", "BucketAlreadyExists", "S3.BucketAlreadyExistsException"),
        ("AcmPca", "ResourceNotFoundException", "AcmPca.ResourceNotFoundException"),
    ],
    ids=["dotted-ec2-code", "s3-no-suffix", "already-suffixed"],
)
def test_error_names_follow_step_functions(service: str, code: str, expected: str) -> None:
    assert sfn_error_name(service, code) == expected


def test_service_names_map_to_boto3() -> None:
    clients = AwsClients()
    assert boto3_service("elasticloadbalancingv2", clients) == "elbv2"
    assert boto3_service("sfn", clients) == "stepfunctions"
    assert boto3_service("acmpca", clients) == "acm-pca"
    assert boto3_service("ec2", clients) == "ec2"


def test_aws_sdk_error_is_catchable_by_its_step_functions_name(
    jobs: JobService, sandbox_env: dict[str, str]
) -> None:
    definition = _task(
        "arn:aws:states:::aws-sdk:ec2:describeInstances",
        {"InstanceIds": ["i-00000000000000000"]},
        Catch=[{"ErrorEquals": ["Ec2.InvalidInstanceIDNotFoundException"], "Next": "Caught"}],
    )
    definition["States"]["T"].pop("End")
    definition["States"]["T"]["Next"] = "Caught"
    definition["States"]["Caught"] = {"Type": "Pass", "End": True}
    run_id = jobs.start(definition, {}, machine_name="sdk-error")
    result = jobs.wait(run_id, timeout=60)
    assert result.status == "SUCCEEDED"
    assert result.output["Error"] == "Ec2.InvalidInstanceIDNotFoundException"
    assert "(Service: Ec2, Status Code: 400" in result.output["Cause"]


def test_aws_sdk_call_uses_pascal_case_parameters(
    jobs: JobService, sandbox_env: dict[str, str]
) -> None:
    definition = _task(
        "arn:aws:states:::aws-sdk:ssm:putParameter",
        {"Name": "/jobs/test/param", "Value": "v1", "Type": "String", "Overwrite": True},
    )
    result = jobs.wait(jobs.start(definition, {}, machine_name="sdk-put"), timeout=60)
    assert result.status == "SUCCEEDED", result
    assert result.output["Version"] >= 1
    got = AwsClients().client("ssm").get_parameter(Name="/jobs/test/param")
    assert got["Parameter"]["Value"] == "v1"


def test_lambda_invoke_runs_a_local_callable(jobs: JobService) -> None:
    calls: list[Any] = []

    def triple(payload: Any, ctx: TaskContext) -> Any:
        calls.append(payload)
        return {"value": payload["n"] * 3}

    register_function("jobs-test-triple", triple)
    definition = _task(
        "arn:aws:states:::lambda:invoke",
        {"FunctionName": "jobs-test-triple", "Payload": {"n.$": "$.n"}},
        OutputPath="$.Payload",
    )
    result = jobs.wait(jobs.start(definition, {"n": 14}, machine_name="local-lambda"), 60)
    assert (result.status, result.output, calls) == ("SUCCEEDED", {"value": 42}, [{"n": 14}])


def test_sns_publish(jobs: JobService, sandbox_env: dict[str, str]) -> None:
    topic = AwsClients().client("sns").create_topic(Name="jobs-test-topic")["TopicArn"]
    definition = _task(
        "arn:aws:states:::sns:publish",
        {"TopicArn": topic, "Message": {"hello.$": "$.who"}, "Subject": "jobs"},
    )
    result = jobs.wait(jobs.start(definition, {"who": "ops"}, machine_name="sns"), 60)
    assert result.status == "SUCCEEDED", result
    assert result.output["MessageId"]


def test_http_invoke_posts_json_and_fails_on_error_status(
    jobs: JobService, slack: CapturingTransport
) -> None:
    args = {
        "ApiEndpoint": "https://hooks.slack.test/x",
        "Method": "POST",
        "RequestBody": {"text.$": "$.text"},
        "Headers": {"X-Test": "1"},
    }
    result = jobs.wait(
        jobs.start(
            _task("arn:aws:states:::http:invoke", args), {"text": "hi"}, machine_name="http"
        ),
        60,
    )
    assert result.status == "SUCCEEDED"
    assert result.output["StatusCode"] == 200
    assert slack.json_bodies() == [{"text": "hi"}]
    assert slack.requests[0].headers["X-Test"] == "1"
    slack.status = 500
    failed = jobs.wait(
        jobs.start(_task("arn:aws:states:::http:invoke", args), {"text": "x"}, machine_name="http"),
        60,
    )
    assert (failed.status, failed.error) == ("FAILED", "States.Http.StatusCode.500")


def test_http_invoke_goes_through_the_runs_own_runtime(
    jobs: JobService, job_engine: Engine
) -> None:
    """No process-wide transport: each service's runs send through its runtime's."""
    first, second = CapturingTransport(status=201), CapturingTransport(status=202)
    args = {"ApiEndpoint": "https://hooks.example.test/x", "Method": "PUT", "RequestBody": "b"}
    statuses = []
    for transport in (first, second):
        service = JobService(replace(jobs.runtime, http=transport))
        run_id = service.start(_task("arn:aws:states:::http:invoke", args), {}, machine_name="h")
        result = service.wait(run_id, 60)
        assert result.status == "SUCCEEDED", result
        statuses.append(result.output["StatusCode"])
    assert statuses == [201, 202]
    assert [(r.method, r.body) for r in first.requests] == [("PUT", b"b")]
    assert [(r.method, r.body) for r in second.requests] == [("PUT", b"b")]
    # a runtime per run: starting runs hands the engine nobody's runtime
    assert job_engine.runtime.http not in (first, second)


def test_start_execution_sync_runs_a_child_job_net(jobs: JobService) -> None:
    register_state_machine(
        "jobs-test-child",
        {
            "StartAt": "Add",
            "States": {
                "Add": {
                    "Type": "Pass",
                    "Parameters": {"sum.$": "States.MathAdd($.a, $.b)"},
                    "End": True,
                }
            },
        },
    )
    definition = _task(
        "arn:aws:states:::states:startExecution.sync:2",
        {
            "StateMachineArn": "arn:aws:states:us-east-1:123456789012:stateMachine:jobs-test-child",
            "Input": {"a.$": "$.a", "b": 2},
        },
        OutputPath="$.Output",
    )
    run_id = jobs.start(definition, {"a": 40}, machine_name="parent")
    result = jobs.wait(run_id, timeout=60)
    assert (result.status, result.output) == ("SUCCEEDED", {"sum": 42})
    children = [r for r in jobs.store.list_runs() if r.parent_run_id == run_id]
    assert len(children) == 1 and children[0].status == "SUCCEEDED"


def test_wait_for_task_token_and_send_task_success(jobs: JobService) -> None:
    tokens: list[str] = []
    register_function("jobs-test-approver", lambda payload, ctx: tokens.append(payload["token"]))
    definition = _task(
        "arn:aws:states:::lambda:invoke.waitForTaskToken",
        {"FunctionName": "jobs-test-approver", "Payload": {"token.$": "$$.Task.Token"}},
    )
    run_id = jobs.start(definition, {}, machine_name="approval")
    deadline = time.monotonic() + 30
    while not tokens:
        assert time.monotonic() < deadline, "the task never received its token"
        time.sleep(0.05)
    assert jobs.store.get_run(run_id).status == "RUNNING"
    assert jobs.send_task_success(tokens[0], {"approved": True}) == run_id
    result = jobs.wait(run_id, timeout=30)
    assert (result.status, result.output) == ("SUCCEEDED", {"approved": True})


def test_wait_for_task_token_failure(jobs: JobService) -> None:
    tokens: list[str] = []
    register_function("jobs-test-rejecter", lambda payload, ctx: tokens.append(payload["t"]))
    definition = _task(
        "arn:aws:states:::lambda:invoke.waitForTaskToken",
        {"FunctionName": "jobs-test-rejecter", "Payload": {"t.$": "$$.Task.Token"}},
    )
    run_id = jobs.start(definition, {}, machine_name="approval")
    threading.Thread(
        target=lambda: (
            _wait_for(tokens),
            jobs.send_task_failure(tokens[0], "Rejected", "not today"),
        )
    ).start()
    result = jobs.wait(run_id, timeout=30)
    assert (result.status, result.error, result.cause) == ("FAILED", "Rejected", "not today")


def _wait_for(items: list[Any]) -> None:
    deadline = time.monotonic() + 30
    while not items and time.monotonic() < deadline:
        time.sleep(0.05)


def test_stop_aborts_a_waiting_run(jobs: JobService) -> None:
    definition = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 60, "End": True}}}
    run_id = jobs.start(definition, {}, machine_name="stoppable")
    deadline = time.monotonic() + 30
    while "W" not in state_views(jobs.store.history(run_id)):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    jobs.stop(run_id)
    result = jobs.wait(run_id, timeout=10)
    assert result.status == "ABORTED"
    assert jobs.store.history(run_id)[-1]["type"] == "ExecutionAborted"
