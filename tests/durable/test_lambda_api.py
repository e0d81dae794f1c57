"""The Lambda durable-execution API of the sandbox, driven by boto3 (botocore validation on).

A client starts an execution of a durable function (``Invoke`` with an execution name),
reads it and its history, finds the callback the handler waits on, completes it, and
lists and stops executions; every raw response is checked against botocore's model.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import botocore.exceptions
import pytest
from aws_durable_execution_sdk_python import DurableContext, durable_execution
from aws_durable_execution_sdk_python.config import CallbackConfig, Duration
from tests._runtime import runtime_for

from cfnops.config import load_settings
from cfnops.durable import Engine, LocalLambda, lambda_function
from cfnops.sandbox import Sandbox
from cfnops.sandbox.shapecheck import RawShapeChecker


@lambda_function("api-approval")
@durable_execution
def approval(event: Any, context: DurableContext) -> Any:
    total = context.step(lambda _: sum(event["amounts"]), name="total")
    callback = context.create_callback(
        name="approve", config=CallbackConfig(timeout=Duration.from_minutes(5))
    )
    answer = callback.result()
    return {"total": total, "answer": answer}


@pytest.fixture
def lam(engine: Engine, cfnops_sandbox: Any) -> Iterator[Any]:
    cfnops_sandbox.serve_lambda(engine.local_lambda())
    try:
        yield cfnops_sandbox.client("lambda")
    finally:
        cfnops_sandbox.serve_lambda(None)


def _history(lam: Any, arn: str) -> list[dict[str, Any]]:
    return list(lam.get_durable_execution_history(DurableExecutionArn=arn)["Events"])


def _wait_for(lam: Any, arn: str, ready: Any, timeout: float = 20) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while True:
        events = _history(lam, arn)
        if ready(events) or time.monotonic() > deadline:
            return events
        time.sleep(0.05)


def test_boto3_starts_reads_and_completes_a_callback(lam: Any) -> None:
    with RawShapeChecker(lam) as raw:
        started = lam.invoke(
            FunctionName="api-approval",
            InvocationType="Event",
            DurableExecutionName="order-1",
            Payload=json.dumps({"amounts": [3, 4]}).encode(),
        )
        arn = started["DurableExecutionArn"]
        assert started["StatusCode"] == 202
        assert "/durable-execution/order-1/" in arn

        events = _wait_for(
            lam, arn, lambda ev: any(e["EventType"] == "CallbackStarted" for e in ev)
        )
        kinds = [e["EventType"] for e in events]
        assert kinds[:4] == ["ExecutionStarted", "StepStarted", "StepSucceeded", "CallbackStarted"]
        callback = next(e for e in events if e["EventType"] == "CallbackStarted")
        assert callback["Name"] == "approve"
        assert callback["CallbackStartedDetails"]["Timeout"] == 300
        assert lam.get_durable_execution(DurableExecutionArn=arn)["Status"] == "RUNNING"

        lam.send_durable_execution_callback_heartbeat(
            CallbackId=callback["CallbackStartedDetails"]["CallbackId"]
        )
        lam.send_durable_execution_callback_success(
            CallbackId=callback["CallbackStartedDetails"]["CallbackId"],
            Result=json.dumps("approved").encode(),
        )
        events = _wait_for(lam, arn, lambda ev: ev[-1]["EventType"].startswith("Execution"))
        execution = lam.get_durable_execution(DurableExecutionArn=arn)
        listed = lam.list_durable_executions_by_function(
            FunctionName="api-approval", Statuses=["SUCCEEDED"]
        )["DurableExecutions"]
    raw.assert_clean()
    assert execution["Status"] == "SUCCEEDED"
    # The SDK hands a callback's payload over as the raw string it was sent as.
    assert json.loads(execution["Result"]) == {"total": 7, "answer": '"approved"'}
    assert events[-1]["EventType"] == "ExecutionSucceeded"
    assert [e["EventId"] for e in events] == list(range(1, len(events) + 1))
    assert arn in [e["DurableExecutionArn"] for e in listed]
    assert {"GetDurableExecutionHistory", "SendDurableExecutionCallbackSuccess"} <= set(raw.checked)


def test_callback_failure_stop_and_unknown_ids(lam: Any) -> None:
    arn = lam.invoke(
        FunctionName="api-approval",
        InvocationType="Event",
        DurableExecutionName="order-2",
        Payload=b'{"amounts": [1]}',
    )["DurableExecutionArn"]
    events = _wait_for(lam, arn, lambda ev: any(e["EventType"] == "CallbackStarted" for e in ev))
    callback = next(e for e in events if e["EventType"] == "CallbackStarted")
    callback_id = callback["CallbackStartedDetails"]["CallbackId"]
    lam.send_durable_execution_callback_failure(
        CallbackId=callback_id, Error={"ErrorType": "Rejected", "ErrorMessage": "no budget"}
    )
    events = _wait_for(lam, arn, lambda ev: ev[-1]["EventType"].startswith("Execution"))
    failed = next(e for e in events if e["EventType"] == "CallbackFailed")
    assert failed["CallbackFailedDetails"]["Error"]["Payload"]["ErrorMessage"] == "no budget"
    assert lam.get_durable_execution(DurableExecutionArn=arn)["Status"] == "FAILED"
    with pytest.raises(botocore.exceptions.ClientError) as closed:
        lam.send_durable_execution_callback_success(CallbackId=callback_id, Result=b'"late"')
    assert closed.value.response["Error"]["Code"] == "CallbackTimeoutException"

    other = lam.invoke(
        FunctionName="api-approval",
        InvocationType="Event",
        DurableExecutionName="order-3",
        Payload=b'{"amounts": [2]}',
    )["DurableExecutionArn"]
    _wait_for(lam, other, lambda ev: any(e["EventType"] == "CallbackStarted" for e in ev))
    assert "StopTimestamp" in lam.stop_durable_execution(DurableExecutionArn=other)
    assert lam.get_durable_execution(DurableExecutionArn=other)["Status"] == "STOPPED"
    assert _history(lam, other)[-1]["EventType"] == "ExecutionStopped"

    missing = arn.rsplit("/", 1)[0] + "/00000000-0000-0000-0000-000000000000"
    with pytest.raises(lam.exceptions.ResourceNotFoundException):
        lam.get_durable_execution(DurableExecutionArn=missing)


def test_two_sandboxes_in_one_process_serve_their_own_backends(
    engine: Engine, tmp_path: Any
) -> None:
    """Each sandbox answers from the backend it was given, none from another's."""
    other = LocalLambda(
        runtime_for(load_settings(database_url=f"sqlite:///{tmp_path / 'other.sqlite'}"))
    )
    with Sandbox(delays=0) as first, Sandbox(delays=0) as second, Sandbox(delays=0) as third:
        first.serve_lambda(engine.local_lambda())
        second.serve_lambda(other)  # served later: a shared holder would hand it to both
        a, b, c = (s.client("lambda") for s in (first, second, third))
        arn = a.invoke(
            FunctionName="api-approval",
            InvocationType="Event",
            DurableExecutionName="per-sandbox",
            Payload=b'{"amounts": [5]}',
        )["DurableExecutionArn"]
        try:
            assert a.get_durable_execution(DurableExecutionArn=arn)["DurableExecutionArn"] == arn
            listed = a.list_durable_executions_by_function(FunctionName="api-approval")
            assert arn in [e["DurableExecutionArn"] for e in listed["DurableExecutions"]]
            # The second serves its own (empty) run database.
            with pytest.raises(b.exceptions.ResourceNotFoundException):
                b.get_durable_execution(DurableExecutionArn=arn)
            empty = b.list_durable_executions_by_function(FunctionName="api-approval")
            assert empty["DurableExecutions"] == []
            # The third serves none: Invoke goes on to moto, which has no such function.
            with pytest.raises(c.exceptions.ResourceNotFoundException):
                c.invoke(FunctionName="api-approval", Payload=b'{"amounts": [1]}')
        finally:
            a.stop_durable_execution(DurableExecutionArn=arn)
        assert a.get_durable_execution(DurableExecutionArn=arn)["Status"] == "STOPPED"
        first.serve_lambda(None)  # the first stops serving: moto answers it too
        with pytest.raises(a.exceptions.ResourceNotFoundException):
            a.invoke(FunctionName="api-approval", Payload=b'{"amounts": [1]}')
        assert (
            b.list_durable_executions_by_function(FunctionName="api-approval")["DurableExecutions"]
            == []
        )
