"""Rerun modes on the web-system job-nets (examples/jobnets) against the sandbox."""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_webapp_jobnets import SLACK, _run, system  # noqa: F401 - the fixture

from cfnops.aws import AwsClients
from cfnops.durable import Attempt, Branch, Position, Visit
from cfnops.jobs import CapturingTransport, JobService, RerunRequest
from cfnops.sandbox.extensions import ssm_commands

pytestmark = pytest.mark.slow


def _rerun(jobs: JobService, run_id: str, mode: str, **kw: Any) -> tuple[str, Any]:
    new_id = jobs.rerun(run_id, RerunRequest(mode, **kw), actor="ops", reason="test")
    return new_id, jobs.wait(new_id, timeout=120)


def _entered(jobs: JobService, run_id: str) -> list[str]:
    history = jobs.store.history(run_id)
    return [e["details"]["name"] for e in history if e["type"].endswith("StateEntered")]


def _instance_states(clients: AwsClients, ids: list[str]) -> dict[str, str]:
    found = clients.client("ec2").describe_instances(InstanceIds=ids)["Reservations"]
    return {i["InstanceId"]: i["State"]["Name"] for r in found for i in r["Instances"]}


def _stop_commands(jobs: JobService, run_id: str) -> dict[Position, Any]:
    """The StopApache sendCommand results of a run, by position under the Map's visit."""
    return {
        Position(s.position.segments[1:]): s.result
        for s in jobs.store.list_steps(run_id)
        if s.ok and (v := s.position.last_visit()) is not None and v.state == "StopApache"
    }


def test_stop_net_failed_iteration_alone_then_after_failed(
    jobs: JobService,
    system: dict[str, Any],  # noqa: F811
    slack: CapturingTransport,
) -> None:
    clients = AwsClients()
    bad = system["instanceIds"][1]
    ssm_commands.set_outcome(
        instance_id=bad, command=r"systemctl stop httpd", exit_code=1, stderr="Access denied"
    )
    origin, result = _run(jobs, "webapp-stop", system)
    assert (result.status, result.error) == ("FAILED", "ApacheStopFailed")
    before = _stop_commands(jobs, origin)
    states = _instance_states(clients, system["instanceIds"])
    assert states[bad] == "running"

    ssm_commands.clear_outcomes()
    ssm_commands.set_outcome(command=r"systemctl is-active httpd", exit_code=3)
    only_id, only = _rerun(jobs, origin, "only", state="StopInstances", iterations="failed")
    assert only.status == "SUCCEEDED", (only.error, only.cause)
    assert _entered(jobs, only_id)[0] == "StopInstances"
    assert "PutMaintenancePage" not in _entered(jobs, only_id)
    assert "BackupCluster" not in _entered(jobs, only_id)  # --only: the run ends there
    after = _stop_commands(jobs, only_id)
    kept, again = before, after  # by iteration: positions under the Map's visit
    # What finished in the good iteration is the origin's (not sent again; an iteration the
    # failure cut short resumes); the bad instance's (iteration 1) is a new command.
    stop = (Visit("StopApache", 1), Attempt(1))
    count = len(system["instanceIds"])
    assert set(again) == {Position.of(Branch(1, i), *stop) for i in range(count)}
    assert Position.of(Branch(1, 1), *stop) in kept
    for key, command in kept.items():
        assert (again[key] == command) is (key.segments[0] != Branch(1, 1)), key
    assert _instance_states(clients, system["instanceIds"])[bad] == "stopped"

    recorded = next(
        json.loads(e["details"]["input"])
        for e in jobs.store.history(origin)
        if e["type"] == "MapStateEntered"
    )
    after_id, passed = _rerun(jobs, origin, "after-failed", output=recorded)
    assert passed.status == "SUCCEEDED", (passed.error, passed.cause)
    skipped = [e for e in jobs.store.history(after_id) if e["type"] == "StateSkipped"]
    assert [e["details"]["name"] for e in skipped] == ["StopInstances"]
    assert _entered(jobs, after_id)[:2] == ["StopInstances", "BackupCluster"]
    cluster = clients.client("rds").describe_db_clusters(DBClusterIdentifier=system["clusterId"])
    assert cluster["DBClusters"][0]["Status"] == "stopped"
    assert [r["runId"] for r in jobs.lineage(origin)["reruns"]] == [only_id, after_id]


def test_start_net_from_a_state_and_from_start(
    jobs: JobService,
    system: dict[str, Any],  # noqa: F811
    slack: CapturingTransport,
) -> None:
    origin, result = _run(jobs, "webapp-stop", system)
    assert result.status == "SUCCEEDED", (result.error, result.cause)
    start_id, started = _run(jobs, "webapp-start", system)
    assert started.status == "SUCCEEDED", (started.error, started.cause)

    from_id, again = _rerun(jobs, start_id, "from", state="CheckTargetHealth")
    assert again.status == "SUCCEEDED", (again.error, again.cause)
    entered = _entered(jobs, from_id)
    assert entered[0] == "CheckTargetHealth" and "StartInstances" not in entered
    assert {t["state"] for t in again.output["targets"]} == {"healthy"}

    whole_id, whole = _rerun(jobs, start_id, "from-start")
    assert whole.status == "SUCCEEDED", (whole.error, whole.cause)
    assert _entered(jobs, whole_id)[:2] == ["Init", "DescribeCluster"]
    assert jobs.store.lineage_of(whole_id).mode == "from-start"  # type: ignore[union-attr]
    assert "Web system started" in slack.json_bodies()[-1]["text"]
    assert jobs.store.get_run(origin).status == "SUCCEEDED"
