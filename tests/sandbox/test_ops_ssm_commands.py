"""SSM Run Command outcomes over HTTP with plain boto3 clients of the sandbox."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

from cfnops.sandbox import Sandbox
from cfnops.sandbox.extensions import ssm_commands
from cfnops.sandbox.shapecheck import RawShapeChecker, assert_matches_output_shape


@pytest.fixture(autouse=True)
def _no_outcomes() -> Any:
    ssm_commands.clear_outcomes()
    yield
    ssm_commands.clear_outcomes()


def _poll(read: Callable[[], str], until: set[str], timeout: float = 10.0) -> list[str]:
    """Every distinct value ``read`` returned until one in ``until`` (in order)."""
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = read()
        if not seen or seen[-1] != value:
            seen.append(value)
        if value in until:
            return seen
        time.sleep(0.05)
    raise AssertionError(f"never reached {until}; saw {seen}")


def _instance(sandbox: Sandbox, name: str) -> str:
    ec2 = sandbox.client("ec2")
    reservation = ec2.run_instances(
        ImageId="ami-760aaa0f",
        MinCount=1,
        MaxCount=1,
        TagSpecifications=[{"ResourceType": "instance", "Tags": [{"Key": "Name", "Value": name}]}],
    )
    return str(reservation["Instances"][0]["InstanceId"])


def _send(ssm: Any, instance_ids: list[str], *commands: str) -> str:
    resp = ssm.send_command(
        InstanceIds=instance_ids,
        DocumentName="AWS-RunShellScript",
        Parameters={"commands": list(commands)},
    )
    assert_matches_output_shape(ssm, "SendCommand", resp)
    assert resp["Command"]["Status"] == "Pending"
    return str(resp["Command"]["CommandId"])


FINAL = {"Success", "Failed", "TimedOut"}


def test_failed_outcome_is_consistent_across_the_three_apis(cfnops_sandbox: Sandbox) -> None:
    ssm = cfnops_sandbox.client("ssm")
    instance = _instance(cfnops_sandbox, "ssm-fail")
    ssm_commands.set_outcome(
        instance_id=instance,
        command=r"systemctl restart app",
        exit_code=3,
        stdout="restarting app",
        stderr="Job for app.service failed",
    )
    with RawShapeChecker(ssm) as raw:
        command_id = _send(ssm, [instance], "systemctl restart app")

        def status() -> str:
            got = ssm.get_command_invocation(CommandId=command_id, InstanceId=instance)
            assert_matches_output_shape(ssm, "GetCommandInvocation", got)
            return str(got["Status"])

        assert _poll(status, FINAL)[-1] == "Failed"
        inv = ssm.get_command_invocation(CommandId=command_id, InstanceId=instance)
        listed = ssm.list_command_invocations(CommandId=command_id, Details=True)
        commands = ssm.list_commands(CommandId=command_id)
    raw.assert_clean()
    assert_matches_output_shape(ssm, "ListCommandInvocations", listed)
    assert_matches_output_shape(ssm, "ListCommands", commands)

    assert inv["ResponseCode"] == 3
    assert inv["StatusDetails"] == "Failed"
    assert inv["StandardOutputContent"] == "restarting app"
    assert inv["StandardErrorContent"] == "Job for app.service failed"
    assert inv["PluginName"] == "aws:runShellScript"
    assert inv["ExecutionEndDateTime"] >= inv["ExecutionStartDateTime"] > ""

    (entry,) = listed["CommandInvocations"]
    assert (entry["InstanceId"], entry["Status"]) == (instance, "Failed")
    (plugin,) = entry["CommandPlugins"]
    assert plugin["ResponseCode"] == 3
    assert plugin["Status"] == "Failed"
    assert "restarting app" in plugin["Output"]
    assert "Job for app.service failed" in plugin["Output"]

    (command,) = commands["Commands"]
    assert command["Status"] == "Failed"
    assert (command["TargetCount"], command["CompletedCount"], command["ErrorCount"]) == (1, 1, 1)


def test_statuses_progress_pending_inprogress_success(cfnops_sandbox: Sandbox) -> None:
    ssm = cfnops_sandbox.client("ssm")
    instance = _instance(cfnops_sandbox, "ssm-progress")
    ssm_commands.set_outcome(command="sleep", duration=0.6, stdout="done")
    command_id = _send(ssm, [instance], "sleep 1")

    def status() -> str:
        listed = ssm.list_command_invocations(CommandId=command_id)
        assert listed["CommandInvocations"][0]["CommandPlugins"] == []  # only with Details
        return str(listed["CommandInvocations"][0]["Status"])

    assert _poll(status, FINAL) == ["InProgress", "Success"]
    inv = ssm.get_command_invocation(CommandId=command_id, InstanceId=instance)
    assert (inv["ResponseCode"], inv["StandardOutputContent"]) == (0, "done")
    assert inv["ExecutionElapsedTime"].startswith("PT0.")


def test_default_outcome_is_success_and_other_commands_are_unaffected(
    cfnops_sandbox: Sandbox,
) -> None:
    ssm = cfnops_sandbox.client("ssm")
    instance = _instance(cfnops_sandbox, "ssm-default")
    ssm_commands.set_outcome(command="^false$", exit_code=1)
    command_id = _send(ssm, [instance], "uptime")
    read = lambda: ssm.get_command_invocation(CommandId=command_id, InstanceId=instance)["Status"]  # noqa: E731
    assert _poll(read, FINAL)[-1] == "Success"
    assert (
        ssm.get_command_invocation(CommandId=command_id, InstanceId=instance)["ResponseCode"] == 0
    )


def test_one_failing_node_fails_the_command(cfnops_sandbox: Sandbox) -> None:
    ssm = cfnops_sandbox.client("ssm")
    good, bad = _instance(cfnops_sandbox, "ssm-good"), _instance(cfnops_sandbox, "ssm-bad")
    ssm_commands.set_outcome(instance_id=bad, exit_code=127, stderr="command not found")
    command_id = _send(ssm, [good, bad], "deploy")
    read = lambda: ssm.list_commands(CommandId=command_id)["Commands"][0]["Status"]  # noqa: E731
    assert _poll(read, FINAL)[-1] == "Failed"
    listed = ssm.list_command_invocations(CommandId=command_id, Details=True)
    by_node = {
        e["InstanceId"]: e["CommandPlugins"][0]["ResponseCode"]
        for e in listed["CommandInvocations"]
    }
    assert by_node == {good: 0, bad: 127}
    failed = ssm.list_command_invocations(
        CommandId=command_id, Filters=[{"key": "Status", "value": "Failed"}]
    )
    assert [e["InstanceId"] for e in failed["CommandInvocations"]] == [bad]
    command = ssm.list_commands(CommandId=command_id)["Commands"][0]
    assert (command["TargetCount"], command["CompletedCount"], command["ErrorCount"]) == (2, 2, 1)


def test_timed_out_outcome(cfnops_sandbox: Sandbox) -> None:
    ssm = cfnops_sandbox.client("ssm")
    instance = _instance(cfnops_sandbox, "ssm-timeout")
    ssm_commands.set_outcome(instance_id=instance, timed_out=True)
    command_id = _send(ssm, [instance], "long-job")
    read = lambda: ssm.get_command_invocation(CommandId=command_id, InstanceId=instance)["Status"]  # noqa: E731
    assert _poll(read, FINAL)[-1] == "TimedOut"
    inv = ssm.get_command_invocation(CommandId=command_id, InstanceId=instance)
    assert inv["StatusDetails"] == "ExecutionTimedOut"
    assert ssm.list_commands(CommandId=command_id)["Commands"][0]["Status"] == "TimedOut"


def test_unknown_instance_is_refused_with_invalid_instance_id(cfnops_sandbox: Sandbox) -> None:
    ssm = cfnops_sandbox.client("ssm")
    with pytest.raises(ClientError) as info:
        ssm.send_command(
            InstanceIds=["i-0123456789abcdef0"],
            DocumentName="AWS-RunShellScript",
            Parameters={"commands": ["uptime"]},
        )
    assert info.value.response["Error"]["Code"] == "InvalidInstanceId"
    assert info.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_invocation_errors(cfnops_sandbox: Sandbox) -> None:
    ssm = cfnops_sandbox.client("ssm")
    instance, other = _instance(cfnops_sandbox, "ssm-e1"), _instance(cfnops_sandbox, "ssm-e2")
    command_id = _send(ssm, [instance], "uptime")
    with pytest.raises(ClientError) as info:
        ssm.get_command_invocation(CommandId=command_id, InstanceId=other)
    assert info.value.response["Error"]["Code"] == "InvocationDoesNotExist"
    with pytest.raises(ClientError) as info:
        ssm.list_command_invocations(
            CommandId=command_id, Filters=[{"key": "Colour", "value": "x"}]
        )
    assert info.value.response["Error"]["Code"] == "InvalidFilterKey"


def test_outcomes_through_the_control_route(cfnops_sandbox: Sandbox) -> None:
    ssm = cfnops_sandbox.client("ssm")
    instance = _instance(cfnops_sandbox, "ssm-control")
    body = json.dumps({"outcomes": [{"command": "migrate", "exit_code": 2, "stderr": "locked"}]})
    request = urllib.request.Request(
        cfnops_sandbox.endpoint_url + "/_cfnops/ssm-commands", data=body.encode()
    )
    with urllib.request.urlopen(request) as resp:
        answer = json.loads(resp.read())
    assert answer["outcomes"][-1]["exit_code"] == 2
    command_id = _send(ssm, [instance], "./migrate --all")
    read = lambda: ssm.get_command_invocation(CommandId=command_id, InstanceId=instance)["Status"]  # noqa: E731
    assert _poll(read, FINAL)[-1] == "Failed"
    inv = ssm.get_command_invocation(CommandId=command_id, InstanceId=instance)
    assert (inv["ResponseCode"], inv["StandardErrorContent"]) == (2, "locked")
