"""The sample web system of the example job-nets, built on the sandbox (or any account).

Two EC2 instances behind an Application Load Balancer (listener + target group) and an
Aurora MySQL cluster: what ``examples/jobnets/webapp-stop.asl.json`` stops and
``webapp-start.asl.json`` starts. :func:`build_web_system` returns the execution input
both job-nets take.
"""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING, Any

from cfnops.aws import AwsClients

if TYPE_CHECKING:
    from mypy_boto3_ec2 import EC2Client

__all__ = ["build_web_system"]


def build_web_system(
    clients: AwsClients,
    *,
    prefix: str = "webapp",
    wait_seconds: int = 10,
    slack_endpoint: str = "cfnops:slack",
) -> dict[str, Any]:
    """Create the system with unique names; the input for the stop/start job-nets."""
    suffix = uuid.uuid4().hex[:6]
    ec2, elbv2, rds = clients.client("ec2"), clients.client("elbv2"), clients.client("rds")
    vpc = ec2.create_vpc(CidrBlock="10.20.0.0/16")["Vpc"]["VpcId"]
    zones = [z["ZoneName"] for z in ec2.describe_availability_zones()["AvailabilityZones"]][:2]
    subnets = [
        ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.20.{i}.0/24", AvailabilityZone=zone)["Subnet"][
            "SubnetId"
        ]
        for i, zone in enumerate(zones)
    ]
    image = ec2.describe_images(Owners=["amazon"])["Images"][0]["ImageId"]
    instances = [
        ec2.run_instances(
            ImageId=image,
            MinCount=1,
            MaxCount=1,
            InstanceType="t3.micro",
            SubnetId=subnets[i % 2],
            TagSpecifications=[
                {
                    "ResourceType": "instance",
                    "Tags": [{"Key": "Name", "Value": f"{prefix}-web-{i + 1}"}],
                }
            ],
        )["Instances"][0]["InstanceId"]
        for i in range(2)
    ]
    _until_running(ec2, instances)
    lb = elbv2.create_load_balancer(Name=f"{prefix}-{suffix}", Subnets=subnets, Type="application")[
        "LoadBalancers"
    ][0]
    tg = elbv2.create_target_group(
        Name=f"{prefix}-tg-{suffix}", Protocol="HTTP", Port=80, VpcId=vpc, TargetType="instance"
    )["TargetGroups"][0]
    elbv2.register_targets(
        TargetGroupArn=tg["TargetGroupArn"], Targets=[{"Id": i, "Port": 80} for i in instances]
    )
    listener = elbv2.create_listener(
        LoadBalancerArn=lb["LoadBalancerArn"],
        Protocol="HTTP",
        Port=80,
        DefaultActions=[{"Type": "forward", "TargetGroupArn": tg["TargetGroupArn"]}],
    )["Listeners"][0]
    cluster = f"{prefix}-db-{suffix}"
    rds.create_db_cluster(
        DBClusterIdentifier=cluster,
        Engine="aurora-mysql",
        MasterUsername="admin",
        MasterUserPassword="not-a-secret-1",
    )
    account = lb["LoadBalancerArn"].split(":")[4]
    backup = clients.client("backup")
    vaults = {v["BackupVaultName"] for v in backup.list_backup_vaults()["BackupVaultList"]}
    if "Default" not in vaults:
        backup.create_backup_vault(BackupVaultName="Default")
    return {
        "listenerArn": listener["ListenerArn"],
        "targetGroupArn": tg["TargetGroupArn"],
        "instanceIds": instances,
        "clusterId": cluster,
        "region": clients.region,
        "accountId": account,
        "waitSeconds": wait_seconds,
        "backup": {
            "vaultName": "Default",
            "roleArn": f"arn:aws:iam::{account}:role/service-role/AWSBackupDefaultServiceRole",
        },
        "slack": {
            "endpoint": slack_endpoint,
            "connectionArn": f"arn:aws:events:{clients.region}:{account}:connection/slack/x",
        },
    }


def _until_running(ec2: EC2Client, instances: list[str], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while True:
        found = ec2.describe_instances(InstanceIds=instances)["Reservations"]
        if {i["State"]["Name"] for r in found for i in r["Instances"]} == {"running"}:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"instances {instances} are not running after {timeout} s")
        time.sleep(0.5)
