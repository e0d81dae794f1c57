"""The example job-nets end to end on the sandbox: stop, start, a failure and its redrive."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from cfnops.aws import AwsClients
from cfnops.demo.websystem import build_web_system
from cfnops.durable import Attempt, Position, Visit
from cfnops.jobs import CapturingTransport, JobService
from cfnops.jobs._definition import load_definition
from cfnops.jobs._views import state_views
from cfnops.sandbox.extensions import ssm_commands
from conftest import EXAMPLES

pytestmark = pytest.mark.slow
SLACK = "https://hooks.slack.test/services/T0/B0/x"


@pytest.fixture
def system(sandbox_env: dict[str, str], cfnops_sandbox: Any) -> Iterator[dict[str, Any]]:
    ssm_commands.clear_outcomes()
    # Apache is stopped once "systemctl stop httpd" ran: the status check exits 3.
    ssm_commands.set_outcome(command=r"systemctl is-active httpd", exit_code=3, stdout="inactive")
    yield build_web_system(AwsClients(), wait_seconds=0, slack_endpoint=SLACK)
    ssm_commands.clear_outcomes()


def _run(jobs: JobService, name: str, value: Any) -> tuple[str, Any]:
    definition = load_definition(EXAMPLES / f"{name}.asl.json")
    run_id = jobs.start(definition, value, machine_name=name)
    return run_id, jobs.wait(run_id, timeout=120)


def test_stop_then_start(
    jobs: JobService, system: dict[str, Any], slack: CapturingTransport
) -> None:
    clients = AwsClients()
    run_id, result = _run(jobs, "webapp-stop", system)
    assert result.status == "SUCCEEDED", (result.error, result.cause)
    assert sorted(i["instanceId"] for i in result.output["instances"]) == sorted(
        system["instanceIds"]
    )
    assert all(i["backupJobId"] for i in result.output["instances"])
    assert result.output["cluster"]["status"] == "stopped"
    ec2 = clients.client("ec2")
    states = ec2.describe_instances(InstanceIds=system["instanceIds"])["Reservations"]
    assert {i["State"]["Name"] for r in states for i in r["Instances"]} == {"stopped"}
    rules = clients.client("elbv2").describe_rules(ListenerArn=system["listenerArn"])["Rules"]
    fixed = [r for r in rules if r["Priority"] == "1"]
    assert fixed and fixed[0]["Actions"][0]["FixedResponseConfig"]["StatusCode"] == "503"
    report = slack.json_bodies()[-1]["text"]
    assert "Web system stopped" in report and system["instanceIds"][0] in report
    assert slack.requests[-1].url == SLACK
    views = state_views(jobs.store.history(run_id))
    assert views["StopInstance"].status == "SUCCEEDED"
    assert views["DescribeInstance"].output == {"Code": 80, "Name": "stopped"}

    _, started = _run(jobs, "webapp-start", system)
    assert started.status == "SUCCEEDED", (started.error, started.cause)
    assert started.output["maintenancePageRemoved"] is True
    assert {t["state"] for t in started.output["targets"]} == {"healthy"}
    rules = clients.client("elbv2").describe_rules(ListenerArn=system["listenerArn"])["Rules"]
    assert [r for r in rules if r["Priority"] == "1"] == []
    cluster = clients.client("rds").describe_db_clusters(DBClusterIdentifier=system["clusterId"])
    assert cluster["DBClusters"][0]["Status"] == "available"
    assert "Web system started" in slack.json_bodies()[-1]["text"]


def test_run_command_failure_then_redrive(
    jobs: JobService, system: dict[str, Any], slack: CapturingTransport
) -> None:
    bad = system["instanceIds"][1]
    ssm_commands.set_outcome(
        instance_id=bad,
        command=r"systemctl stop httpd",
        exit_code=1,
        stderr="Failed to stop httpd.service: Access denied",
    )
    run_id, result = _run(jobs, "webapp-stop", system)
    assert result.status == "FAILED"
    assert result.error == "ApacheStopFailed"
    assert bad in (result.cause or "") and "Access denied" in (result.cause or "")
    report = slack.json_bodies()[-1]["text"]
    assert f"execution:webapp-stop:{run_id}" in report  # the execution ARN
    assert report.count("```") % 2 == 0 and len(report) <= 2000
    done_before = {s.position for s in jobs.store.list_steps(run_id) if s.ok}

    ssm_commands.clear_outcomes()
    ssm_commands.set_outcome(command=r"systemctl is-active httpd", exit_code=3)
    jobs.redrive(run_id)
    redriven = jobs.wait(run_id, timeout=120)
    assert redriven.status == "SUCCEEDED", (redriven.error, redriven.cause)
    assert jobs.store.get_run(run_id).redrive_count == 1
    # The maintenance rule was created once (a second CreateRule at priority 1 would fail),
    # and every task that had finished kept its checkpoint.
    assert Position.of(Visit("PutMaintenancePage", 1), Attempt(1)) in done_before
    after = {s.position: s for s in jobs.store.list_steps(run_id)}
    assert done_before <= set(after)
    history = jobs.store.history(run_id)
    types = [e["type"] for e in history]
    assert types.count("ExecutionRedriven") == 1
    redriven_at = types.index("ExecutionRedriven")
    assert types[redriven_at + 1] == "MapStateEntered"  # StopInstances, the failed state
    assert history[redriven_at + 1]["details"]["name"] == "StopInstances"
    assert all(e["details"].get("name") != "PutMaintenancePage" for e in history[redriven_at:])
    assert history[-1]["type"] == "ExecutionSucceeded"
