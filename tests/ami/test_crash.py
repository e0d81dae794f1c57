"""kill -9 during a pattern 2 rotation: the next process resumes it; UpdateStack runs once."""

from __future__ import annotations

import dataclasses
import json
import signal
import time
from pathlib import Path

import pytest
from ami_test_support import base_images, deploy, make_settings, parameter_value, unique
from tests._runtime import database_for
from tests._subprocess import cfnops, wait_for, worker_env

from cfnops.ami import ROTATE_STACK_WORKFLOW, build_request
from cfnops.durable import RunStore
from cfnops.sandbox import Delays, Sandbox

pytestmark = pytest.mark.slow


def user_initiated_updates(sandbox: Sandbox, stack: str) -> int:
    events = sandbox.client("cloudformation").describe_stack_events(StackName=stack)
    return sum(
        1
        for e in events["StackEvents"]
        if e["LogicalResourceId"] == stack and e["ResourceStatus"] == "UPDATE_IN_PROGRESS"
    )


def test_killed_rotation_resumes_and_updates_once(
    cfnops_sandbox: Sandbox, tmp_path: Path, sandbox_env: dict[str, str]
) -> None:
    old, _ = base_images(cfnops_sandbox)
    stack = unique("ami-crash")
    group = deploy(cfnops_sandbox, 2, stack, ImageId=old)
    # The AMI exists (pending) from half the backup delay until the job completes: the
    # run is killed while it waits for it.
    cfnops_sandbox.state.set_delays(dataclasses.replace(Delays.zero(), backup_job=10.0))
    backup = cfnops_sandbox.client("backup")
    instance = group["Instances"][0]["InstanceId"]
    job = backup.start_backup_job(
        BackupVaultName="Default",
        ResourceArn=f"arn:aws:ec2:us-east-1:123456789012:instance/{instance}",
        IamRoleArn="arn:aws:iam::123456789012:role/backup",
    )["BackupJobId"]
    deadline = time.monotonic() + 30
    while (described := backup.describe_backup_job(BackupJobId=job))["State"] != "RUNNING":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    image_id = str(described["RecoveryPointArn"]).rsplit("/", 1)[-1]
    images = cfnops_sandbox.client("ec2").describe_images(ImageIds=[image_id])["Images"]
    assert [i["State"] for i in images] == ["pending"]

    db = f"sqlite:///{tmp_path / 'crash.sqlite'}"
    settings = make_settings(cfnops_sandbox, db, image_wait_seconds=60.0)
    request = build_request(settings, stack=stack, image_id=image_id)
    run_id = f"{stack}-run"
    args = ["runs", "start", ROTATE_STACK_WORKFLOW, "--run-id", run_id, "--input"]
    first = cfnops(worker_env(db), *args, json.dumps(request))
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, "the first process never polled the image"
        try:
            with RunStore(database_for(settings)) as store:
                names = [s.name for s in store.steps(run_id)]
        except Exception:  # the database may not exist yet
            names = []
        if "image-available #1" in names:
            break
        time.sleep(0.1)
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=10)  # reap it and close its pipes

    second = cfnops(worker_env(db), "-o", "json", *args, json.dumps(request))
    _out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    with RunStore(database_for(settings)) as store:
        record = store.get(run_id)
        names = [s.name for s in store.steps(run_id)]
    assert record.status == "SUCCEEDED", record
    assert record.output["outcome"] == "UPDATED"
    assert names.count("image-available #1") == 1  # not repeated after the kill
    assert names.count("update-stack") == 1
    assert parameter_value(cfnops_sandbox, stack, "ImageId") == image_id
    assert user_initiated_updates(cfnops_sandbox, stack) == 1


def test_killed_during_the_refresh_wait_resumes_without_a_second_update(
    cfnops_sandbox: Sandbox, tmp_path: Path, sandbox_env: dict[str, str]
) -> None:
    """Pattern 3: kill -9 while CloudFormation's instance refresh runs; the next
    process waits through the same refresh (one UpdateStack) and reports it."""
    old, new = base_images(cfnops_sandbox)
    stack = unique("ami-roll-crash")
    group = deploy(cfnops_sandbox, 3, stack, ImageId=old)
    before = {i["InstanceId"] for i in group["Instances"]}
    # Long enough for the first process to be killed while the refresh runs.
    cfnops_sandbox.state.set_delays(dataclasses.replace(Delays.zero(), instance_refresh=2.0))

    db = f"sqlite:///{tmp_path / 'roll.sqlite'}"
    settings = make_settings(cfnops_sandbox, db, update_wait_seconds=120.0)
    request = build_request(settings, stack=stack, image_id=new, roll=True)
    request["CheckCompatibility"] = False
    run_id = f"{stack}-run"
    args = ["runs", "start", ROTATE_STACK_WORKFLOW, "--run-id", run_id, "--input"]
    first = cfnops(worker_env(db), *args, json.dumps(request))

    def polled_the_refresh() -> bool:
        try:
            with RunStore(database_for(settings)) as store:
                return "update-complete #1" in [s.name for s in store.steps(run_id)]
        except Exception:  # the database may not exist yet
            return False

    wait_for(polled_the_refresh, timeout=60, what="the first poll of the refresh")
    status = cfnops_sandbox.client("cloudformation").describe_stacks(StackName=stack)
    assert status["Stacks"][0]["StackStatus"] == "UPDATE_IN_PROGRESS"  # killed mid-refresh
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=10)

    second = cfnops(worker_env(db), "-o", "json", *args, json.dumps(request))
    _out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    with RunStore(database_for(settings)) as store:
        record = store.get(run_id)
        names = [s.name for s in store.steps(run_id)]
    assert record.status == "SUCCEEDED", record
    assert record.output["outcome"] == "UPDATED"
    assert names.count("update-stack") == 1
    assert names.count("update-complete #1") == 1  # the finished poll was not repeated
    (refresh,) = record.output["Roll"]["Refreshes"]
    assert refresh["Status"] == "Successful"
    assert user_initiated_updates(cfnops_sandbox, stack) == 1
    now = cfnops_sandbox.client("autoscaling").describe_auto_scaling_groups(
        AutoScalingGroupNames=[group["AutoScalingGroupName"]]
    )["AutoScalingGroups"][0]["Instances"]
    assert before.isdisjoint(i["InstanceId"] for i in now)
