"""AWS Backup jobs over HTTP: AMIs with the instance's tags, cluster snapshots, events."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from botocore.exceptions import ClientError

from cfnops.sandbox import Sandbox
from cfnops.sandbox.extensions import events
from cfnops.sandbox.shapecheck import RawShapeChecker, assert_matches_output_shape

ROLE = "arn:aws:iam::123456789012:role/service-role/AWSBackupDefaultServiceRole"


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


def _instance(sandbox: Sandbox, tags: dict[str, str]) -> str:
    ec2 = sandbox.client("ec2")
    reservation = ec2.run_instances(
        ImageId="ami-760aaa0f",
        MinCount=1,
        MaxCount=1,
        TagSpecifications=[
            {"ResourceType": "instance", "Tags": [{"Key": k, "Value": v} for k, v in tags.items()]}
        ],
    )
    return str(reservation["Instances"][0]["InstanceId"])


def _instance_arn(instance_id: str) -> str:
    return f"arn:aws:ec2:us-east-1:123456789012:instance/{instance_id}"


def _job_events(job_id: str) -> list[dict[str, Any]]:
    return [
        e
        for e in events.recorded(source="aws.backup", detail_type="Backup Job State Change")
        if e["detail"]["backupJobId"] == job_id
    ]


def test_ec2_backup_job_creates_an_ami_with_the_instance_tags_and_emits_events(
    cfnops_sandbox: Sandbox,
) -> None:
    cfnops_sandbox.state.set_delays(backup_job=0.6)
    backup, ec2 = cfnops_sandbox.client("backup"), cfnops_sandbox.client("ec2")
    tags = {"Name": "web-1", "App": "shop", "Env": f"t-{uuid.uuid4().hex[:6]}"}
    instance = _instance(cfnops_sandbox, tags)
    delivered: list[dict[str, Any]] = []
    sub = events.register_handler(
        {"source": ["aws.backup"], "detail": {"state": ["COMPLETED"], "resourceType": ["EC2"]}},
        delivered.append,
    )
    try:
        with RawShapeChecker(backup) as raw:
            started = backup.start_backup_job(
                BackupVaultName="Default",
                ResourceArn=_instance_arn(instance),
                IamRoleArn=ROLE,
                RecoveryPointTags={"BackupRun": "nightly"},
            )
            job_id = started["BackupJobId"]

            def state() -> str:
                job = backup.describe_backup_job(BackupJobId=job_id)
                assert_matches_output_shape(backup, "DescribeBackupJob", job)
                return str(job["State"])

            assert _poll(state, {"COMPLETED", "FAILED"}) == ["CREATED", "RUNNING", "COMPLETED"]
            job = backup.describe_backup_job(BackupJobId=job_id)
            listed = backup.list_backup_jobs(ByResourceArn=_instance_arn(instance))
        raw.assert_clean()
        assert events.wait_for_deliveries()
    finally:
        events.unregister_handler(sub)
    assert_matches_output_shape(backup, "StartBackupJob", started)
    assert_matches_output_shape(backup, "ListBackupJobs", listed)
    assert [j["BackupJobId"] for j in listed["BackupJobs"]] == [job_id]

    assert job["ResourceType"] == "EC2"
    assert job["PercentDone"] == "100.0"
    image_arn = job["RecoveryPointArn"]
    assert image_arn.startswith("arn:aws:ec2:us-east-1::image/ami-")
    (image,) = ec2.describe_images(ImageIds=[image_arn.rsplit("/", 1)[1]])["Images"]
    assert image["State"] == "available"
    assert {t["Key"]: t["Value"] for t in image["Tags"]} == {**tags, "BackupRun": "nightly"}

    states = [e["detail"]["state"] for e in _job_events(job_id)]
    assert states == ["CREATED", "RUNNING", "COMPLETED"]
    completed = _job_events(job_id)[-1]
    assert completed["detail-type"] == "Backup Job State Change"
    assert completed["source"] == "aws.backup"
    # AWS Backup's documented COMPLETED example names the recovery point in resources
    assert completed["resources"] == [image_arn]
    detail = completed["detail"]
    assert detail["resourceArn"] == _instance_arn(instance)
    assert detail["resourceType"] == "EC2"
    assert detail["percentDone"] == 100
    assert "createdResourceArn" not in detail
    created, running = _job_events(job_id)[:2]
    assert created["resources"] == [] and running["resources"] == []
    assert set(created["detail"]) == {"backupJobId", "state", "creationDate"}
    assert detail["backupVaultName"] == "Default"
    assert detail["iamRoleArn"] == ROLE
    assert [e["id"] for e in delivered] == [completed["id"]]


def test_aurora_cluster_backup_creates_a_cluster_snapshot(cfnops_sandbox: Sandbox) -> None:
    backup, rds = cfnops_sandbox.client("backup"), cfnops_sandbox.client("rds")
    name = f"db-{uuid.uuid4().hex[:8]}"
    cluster = rds.create_db_cluster(
        DBClusterIdentifier=name,
        Engine="aurora-postgresql",
        MasterUsername="admin",
        MasterUserPassword="password123",
    )["DBCluster"]
    backup.create_backup_vault(BackupVaultName=f"vault-{name}")
    job_id = backup.start_backup_job(
        BackupVaultName=f"vault-{name}", ResourceArn=cluster["DBClusterArn"], IamRoleArn=ROLE
    )["BackupJobId"]
    read = lambda: backup.describe_backup_job(BackupJobId=job_id)["State"]  # noqa: E731
    assert _poll(read, {"COMPLETED", "FAILED"})[-1] == "COMPLETED"
    job = backup.describe_backup_job(BackupJobId=job_id)
    assert job["ResourceType"] == "Aurora"
    snapshot_id = job["RecoveryPointArn"].split(":cluster-snapshot:", 1)[1]
    # AWS Backup snapshots are listed with SnapshotType "awsbackup" (DescribeDBClusterSnapshots)
    snapshots = rds.describe_db_cluster_snapshots(
        DBClusterSnapshotIdentifier=snapshot_id, SnapshotType="awsbackup"
    )
    (snapshot,) = snapshots["DBClusterSnapshots"]
    assert snapshot["DBClusterIdentifier"] == name
    assert _job_events(job_id)[-1]["resources"] == [job["RecoveryPointArn"]]


def test_backup_event_reaches_an_eventbridge_rule_target(cfnops_sandbox: Sandbox) -> None:
    eb, sqs, backup = (cfnops_sandbox.client(s) for s in ("events", "sqs", "backup"))
    suffix = uuid.uuid4().hex[:8]
    queue_url = sqs.create_queue(QueueName=f"backup-events-{suffix}")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])[
        "Attributes"
    ]["QueueArn"]
    rule = f"backup-done-{suffix}"
    eb.put_rule(
        Name=rule,
        EventPattern=json.dumps(
            {
                "source": ["aws.backup"],
                "detail-type": ["Backup Job State Change"],
                "detail": {"state": ["COMPLETED"]},
            }
        ),
    )
    eb.put_targets(Rule=rule, Targets=[{"Id": "q", "Arn": queue_arn}])
    instance = _instance(cfnops_sandbox, {"Name": f"rule-{suffix}"})
    job_id = backup.start_backup_job(
        BackupVaultName="Default", ResourceArn=_instance_arn(instance), IamRoleArn=ROLE
    )["BackupJobId"]
    read = lambda: backup.describe_backup_job(BackupJobId=job_id)["State"]  # noqa: E731
    _poll(read, {"COMPLETED"})
    bodies = [
        json.loads(m["Body"])
        for m in sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10)["Messages"]
    ]
    assert [b["detail"]["backupJobId"] for b in bodies] == [job_id]
    assert bodies[0]["detail"]["state"] == "COMPLETED"
    eb.remove_targets(Rule=rule, Ids=["q"])
    eb.delete_rule(Name=rule)


def test_missing_instance_fails_the_job(cfnops_sandbox: Sandbox) -> None:
    backup = cfnops_sandbox.client("backup")
    job_id = backup.start_backup_job(
        BackupVaultName="Default",
        ResourceArn=_instance_arn("i-0000000000000dead"),
        IamRoleArn=ROLE,
    )["BackupJobId"]
    read = lambda: backup.describe_backup_job(BackupJobId=job_id)["State"]  # noqa: E731
    assert _poll(read, {"COMPLETED", "FAILED"})[-1] == "FAILED"
    job = backup.describe_backup_job(BackupJobId=job_id)
    assert "i-0000000000000dead" in job["StatusMessage"]
    assert _job_events(job_id)[-1]["detail"]["state"] == "FAILED"


@pytest.mark.parametrize(
    ("vault", "arn", "code"),
    [
        ("no-such-vault", _instance_arn("i-1"), "ResourceNotFoundException"),
        ("Default", "arn:aws:s3:::bucket", "InvalidParameterValueException"),
    ],
    ids=["unknown vault", "unsupported resource"],
)
def test_start_backup_job_errors(cfnops_sandbox: Sandbox, vault: str, arn: str, code: str) -> None:
    backup = cfnops_sandbox.client("backup")
    with pytest.raises(ClientError) as info:
        backup.start_backup_job(BackupVaultName=vault, ResourceArn=arn, IamRoleArn=ROLE)
    assert info.value.response["Error"]["Code"] == code


def test_describe_unknown_job(cfnops_sandbox: Sandbox) -> None:
    with pytest.raises(ClientError) as info:
        cfnops_sandbox.client("backup").describe_backup_job(BackupJobId="NOPE")
    assert info.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_idempotency_token_returns_the_same_job(cfnops_sandbox: Sandbox) -> None:
    backup = cfnops_sandbox.client("backup")
    instance = _instance(cfnops_sandbox, {"Name": "idem"})
    token = uuid.uuid4().hex
    first, second = (
        backup.start_backup_job(
            BackupVaultName="Default",
            ResourceArn=_instance_arn(instance),
            IamRoleArn=ROLE,
            IdempotencyToken=token,
        )["BackupJobId"]
        for _ in range(2)
    )
    assert first == second
    now = datetime.now(UTC)
    after = backup.list_backup_jobs(
        ByResourceArn=_instance_arn(instance), ByCreatedAfter=now - timedelta(minutes=5)
    )
    before = backup.list_backup_jobs(
        ByResourceArn=_instance_arn(instance), ByCreatedBefore=now - timedelta(minutes=5)
    )
    assert [j["BackupJobId"] for j in after["BackupJobs"]] == [first]
    assert before["BackupJobs"] == []


def _handler_written_for_aws(event: dict[str, Any], context: object) -> dict[str, str]:
    """A Lambda handler as written against AWS: the AMI is ``resources[0]``'s last part."""
    import boto3

    ami_id = event["resources"][0].split("/")[-1]
    ec2 = boto3.client("ec2", region_name=event["region"])
    image = ec2.describe_images(ImageIds=[ami_id])["Images"][0]
    return {"ami": ami_id, "name": image["Name"]}


def test_an_unchanged_aws_handler_reads_the_ami_from_resources(
    cfnops_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in cfnops_sandbox.environment().items():
        monkeypatch.setenv(key, value)
    backup = cfnops_sandbox.client("backup")
    instance = _instance(cfnops_sandbox, {"Name": "handler"})
    results: list[dict[str, str]] = []
    sub = events.register_handler(
        {
            "source": ["aws.backup"],
            "detail-type": ["Backup Job State Change"],
            "detail": {"state": ["COMPLETED"]},
        },
        lambda event: results.append(_handler_written_for_aws(event, None)),
    )
    try:
        job_id = backup.start_backup_job(
            BackupVaultName="Default", ResourceArn=_instance_arn(instance), IamRoleArn=ROLE
        )["BackupJobId"]
        read = lambda: backup.describe_backup_job(BackupJobId=job_id)["State"]  # noqa: E731
        assert _poll(read, {"COMPLETED", "FAILED"})[-1] == "COMPLETED"
        assert events.wait_for_deliveries()
    finally:
        events.unregister_handler(sub)
    recovery_point = backup.describe_backup_job(BackupJobId=job_id)["RecoveryPointArn"]
    assert results == [
        {"ami": recovery_point.rsplit("/", 1)[1], "name": f"AwsBackup_{instance}_{job_id}"}
    ]
