"""EC2 and RDS pass through their intermediate states, observed by polling over HTTP."""

from __future__ import annotations

import json
import time
import urllib.request
import uuid
from collections.abc import Callable

import pytest
from botocore.exceptions import ClientError

from cfnops.sandbox import Sandbox
from cfnops.sandbox.shapecheck import assert_matches_output_shape

DELAY = 0.5


def _poll(read: Callable[[], str], until: set[str], timeout: float = 10.0) -> list[str]:
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


def test_ec2_instance_goes_through_pending_and_stopping(cfnops_sandbox: Sandbox) -> None:
    cfnops_sandbox.state.set_delays(ec2_transition=DELAY)
    ec2 = cfnops_sandbox.client("ec2")
    instance = ec2.run_instances(ImageId="ami-760aaa0f", MinCount=1, MaxCount=1)["Instances"][0]
    instance_id = instance["InstanceId"]
    assert instance["State"] == {"Code": 0, "Name": "pending"}

    def state() -> str:
        resp = ec2.describe_instances(InstanceIds=[instance_id])
        assert_matches_output_shape(ec2, "DescribeInstances", resp)
        return str(resp["Reservations"][0]["Instances"][0]["State"]["Name"])

    assert _poll(state, {"running"}) == ["pending", "running"]

    stopping = ec2.stop_instances(InstanceIds=[instance_id])
    assert_matches_output_shape(ec2, "StopInstances", stopping)
    assert stopping["StoppingInstances"][0]["CurrentState"]["Name"] == "stopping"
    assert stopping["StoppingInstances"][0]["PreviousState"]["Name"] == "running"
    with pytest.raises(ClientError) as info:
        ec2.start_instances(InstanceIds=[instance_id])
    assert info.value.response["Error"]["Code"] == "IncorrectInstanceState"
    assert _poll(state, {"stopped"}) == ["stopping", "stopped"]

    starting = ec2.start_instances(InstanceIds=[instance_id])
    assert starting["StartingInstances"][0]["CurrentState"]["Name"] == "pending"
    with pytest.raises(ClientError) as info:
        ec2.stop_instances(InstanceIds=[instance_id])
    assert info.value.response["Error"]["Code"] == "IncorrectInstanceState"
    assert _poll(state, {"running"}) == ["pending", "running"]
    ec2.terminate_instances(InstanceIds=[instance_id])


def test_zero_delay_settles_on_the_next_request(cfnops_sandbox: Sandbox) -> None:
    ec2 = cfnops_sandbox.client("ec2")
    instance_id = ec2.run_instances(ImageId="ami-760aaa0f", MinCount=1, MaxCount=1)["Instances"][0][
        "InstanceId"
    ]
    resp = ec2.describe_instances(InstanceIds=[instance_id])
    assert resp["Reservations"][0]["Instances"][0]["State"]["Name"] == "running"


def test_rds_cluster_stop_start_and_backing_up(cfnops_sandbox: Sandbox) -> None:
    cfnops_sandbox.state.set_delays(rds_transition=DELAY)
    rds = cfnops_sandbox.client("rds")
    name = f"tr-{uuid.uuid4().hex[:8]}"
    rds.create_db_cluster(
        DBClusterIdentifier=name,
        Engine="aurora-postgresql",
        MasterUsername="admin",
        MasterUserPassword="password123",
    )

    def status() -> str:
        resp = rds.describe_db_clusters(DBClusterIdentifier=name)
        assert_matches_output_shape(rds, "DescribeDBClusters", resp)
        return str(resp["DBClusters"][0]["Status"])

    _poll(status, {"available"})
    stopped = rds.stop_db_cluster(DBClusterIdentifier=name)
    assert_matches_output_shape(rds, "StopDBCluster", stopped)
    assert stopped["DBCluster"]["Status"] == "stopping"
    with pytest.raises(ClientError) as info:
        rds.start_db_cluster(DBClusterIdentifier=name)
    assert info.value.response["Error"]["Code"] == "InvalidDBClusterStateFault"
    assert _poll(status, {"stopped"}) == ["stopping", "stopped"]

    started = rds.start_db_cluster(DBClusterIdentifier=name)
    assert started["DBCluster"]["Status"] == "starting"
    assert _poll(status, {"available"}) == ["starting", "available"]

    snapshot = rds.create_db_cluster_snapshot(
        DBClusterIdentifier=name, DBClusterSnapshotIdentifier=f"{name}-snap"
    )["DBClusterSnapshot"]
    assert snapshot["Status"] == "creating"
    assert _poll(status, {"available"}) == ["backing-up", "available"]
    snaps = rds.describe_db_cluster_snapshots(DBClusterSnapshotIdentifier=f"{name}-snap")
    assert snaps["DBClusterSnapshots"][0]["Status"] == "available"


def test_transition_delays_through_the_control_route(cfnops_sandbox: Sandbox) -> None:
    cfnops_sandbox.state.set_delays(ec2_transition=1.25)
    with urllib.request.urlopen(cfnops_sandbox.endpoint_url + "/_cfnops/transitions") as resp:
        assert json.loads(resp.read())["ec2_transition"] == 1.25
