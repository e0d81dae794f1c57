"""Fault injection over HTTP: throttling retried by botocore, latency, one-shot failures."""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from cfnops.sandbox import Sandbox
from cfnops.sandbox.extensions import faults


@pytest.fixture(autouse=True)
def _clean() -> Any:
    faults.clear()
    yield
    faults.clear()


def _client(sandbox: Sandbox, service: str, attempts: int) -> Any:
    """A plain boto3 client with standard retries (fresh: no adaptive-mode state)."""
    env = sandbox.environment()
    return boto3.session.Session(
        aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
        region_name=env["AWS_REGION"],
    ).client(
        service,
        endpoint_url=sandbox.endpoint_url,
        config=Config(retries={"mode": "standard", "total_max_attempts": attempts}),
    )


# one call per protocol: json, query, ec2, rest-json
CALLS = {
    "ssm (json)": ("ssm", "DescribeParameters", lambda c: c.describe_parameters()),
    "cloudformation (query)": ("cloudformation", "ListStacks", lambda c: c.list_stacks()),
    "ec2 (ec2)": ("ec2", "DescribeInstances", lambda c: c.describe_instances()),
    "backup (rest-json)": ("backup", "ListBackupJobs", lambda c: c.list_backup_jobs()),
}
CODES = {
    "ssm": "ThrottlingException",
    "cloudformation": "Throttling",
    "ec2": "RequestLimitExceeded",
    "backup": "ThrottlingException",
}


@pytest.mark.parametrize(("service", "operation", "call"), CALLS.values(), ids=CALLS.keys())
def test_throttling_is_retried_by_botocore(
    cfnops_sandbox: Sandbox, service: str, operation: str, call: Any
) -> None:
    client = _client(cfnops_sandbox, service, attempts=3)
    faults.throttle(service, operation, count=2)
    resp = call(client)
    assert resp["ResponseMetadata"]["RetryAttempts"] == 2
    assert faults.injected(service, operation, kind="throttle") == 2


@pytest.mark.parametrize(("service", "operation", "call"), CALLS.values(), ids=CALLS.keys())
def test_throttling_surfaces_when_retries_are_exhausted(
    cfnops_sandbox: Sandbox, service: str, operation: str, call: Any
) -> None:
    client = _client(cfnops_sandbox, service, attempts=2)
    faults.throttle(service, operation)
    with pytest.raises(ClientError) as info:
        call(client)
    error = info.value.response
    assert error["Error"]["Code"] == CODES[service]
    assert "Rate exceeded" in error["Error"]["Message"]
    assert error["ResponseMetadata"]["RetryAttempts"] == 1
    assert faults.injected(service, operation) == 2


def test_rate_is_seeded_and_other_operations_pass(cfnops_sandbox: Sandbox) -> None:
    client = _client(cfnops_sandbox, "ssm", attempts=1)

    def pattern() -> list[bool]:
        outcome = []
        for _ in range(30):
            try:
                client.describe_parameters()
                outcome.append(True)
            except ClientError as exc:
                assert exc.response["Error"]["Code"] == "ThrottlingException"
                outcome.append(False)
        return outcome

    faults.throttle("ssm", "DescribeParameters", rate=0.5, seed=42)
    first = pattern()
    client.put_parameter(Name="/faults/other-op", Value="x", Type="String", Overwrite=True)
    faults.clear()
    faults.throttle("ssm", "DescribeParameters", rate=0.5, seed=42)
    assert pattern() == first
    assert 5 < first.count(False) < 25
    assert faults.injected("ssm", "PutParameter") == 0


def test_latency_is_added(cfnops_sandbox: Sandbox) -> None:
    client = _client(cfnops_sandbox, "ssm", attempts=1)
    faults.add_latency("ssm", "DescribeParameters", seconds=0.4)
    started = time.monotonic()
    client.describe_parameters()
    assert time.monotonic() - started >= 0.4
    assert faults.injected("ssm", "DescribeParameters", kind="latency") == 1


def test_one_shot_failures(cfnops_sandbox: Sandbox) -> None:
    client = _client(cfnops_sandbox, "ssm", attempts=3)
    faults.fail_next("ssm", "GetParameters", count=1, code="ValidationException", status=400)
    with pytest.raises(ClientError) as info:
        client.get_parameters(Names=["/nope"])
    assert info.value.response["Error"]["Code"] == "ValidationException"
    assert info.value.response["ResponseMetadata"]["RetryAttempts"] == 0
    assert client.get_parameters(Names=["/nope"])["InvalidParameters"] == ["/nope"]

    faults.fail_next("ssm", "GetParameters", count=1)  # InternalFailure, 500: retried
    resp = client.get_parameters(Names=["/nope"])
    assert resp["ResponseMetadata"]["RetryAttempts"] == 1


def test_faults_through_the_control_route(cfnops_sandbox: Sandbox) -> None:
    body = {"add": [{"kind": "throttle", "service": "ec2", "operation": "DescribeVpcs"}]}
    request = urllib.request.Request(
        cfnops_sandbox.endpoint_url + "/_cfnops/faults", data=json.dumps(body).encode()
    )
    with urllib.request.urlopen(request) as resp:
        answer = json.loads(resp.read())
    assert answer["rules"][0]["kind"] == "throttle"
    with pytest.raises(ClientError) as info:
        _client(cfnops_sandbox, "ec2", attempts=1).describe_vpcs()
    assert info.value.response["Error"]["Code"] == "RequestLimitExceeded"
    request = urllib.request.Request(
        cfnops_sandbox.endpoint_url + "/_cfnops/faults", data=json.dumps({"clear": True}).encode()
    )
    with urllib.request.urlopen(request) as resp:
        assert json.loads(resp.read())["rules"] == []
    _client(cfnops_sandbox, "ec2", attempts=1).describe_vpcs()


def test_bad_fault_rules_are_refused() -> None:
    with pytest.raises(ValueError, match="rate"):
        faults.throttle("ssm", rate=1.5)
    with pytest.raises(ValueError, match="kind"):
        faults.FaultRule("explode")  # type: ignore[arg-type]
