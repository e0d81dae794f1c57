"""Helpers shared by the tests of ``cfnops.ami`` (imported by module name; see conftest)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from cfnops.config import AwsSettings, Settings, load_settings
from cfnops.sandbox import Sandbox

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "ami-rotation"


def make_settings(sandbox: Sandbox, database_url: str, **ami: Any) -> Settings:
    waits = {"poll_seconds": 1.0, "image_wait_seconds": 3.0, "stack_busy_wait_seconds": 10.0}
    return load_settings(
        database_url=database_url,
        aws=AwsSettings(region=sandbox.region, endpoint_url=sandbox.endpoint_url, max_attempts=2),
        ami={**waits, **ami},
    )


def unique(prefix: str) -> str:
    return f"{prefix}-{time.monotonic_ns() % 10**10}"


def base_images(sandbox: Sandbox, architecture: str = "x86_64") -> list[str]:
    """Two of moto's Amazon Linux 2 AMIs (a filtered query: listing all 1,300 takes seconds)."""
    images = sandbox.client("ec2").describe_images(
        Filters=[
            {"Name": "architecture", "Values": [architecture]},
            {"Name": "name", "Values": ["amzn2-ami-hvm-*"]},
        ]
    )["Images"]
    found = sorted(i["ImageId"] for i in images)[:2]
    assert found, f"moto has no {architecture} Amazon Linux 2 image"
    return found


def deploy(sandbox: Sandbox, pattern: int, stack: str, **params: str) -> dict[str, Any]:
    """Create an example stack; answer its group."""
    cfn, ec2 = sandbox.client("cloudformation"), sandbox.client("ec2")
    subnet = ec2.describe_subnets(Filters=[{"Name": "default-for-az", "Values": ["true"]}])[
        "Subnets"
    ][0]["SubnetId"]
    name = {
        1: "pattern1-ssm-parameter.yaml",
        2: "pattern2-stack-parameter.yaml",
        3: "pattern3-instance-refresh.yaml",
    }[pattern]
    cfn.create_stack(
        StackName=stack,
        TemplateBody=(EXAMPLES / name).read_text(),
        Parameters=[
            {"ParameterKey": k, "ParameterValue": v}
            for k, v in {**params, "Subnets": subnet}.items()
        ],
    )
    stack_info = cfn.describe_stacks(StackName=stack)["Stacks"][0]
    assert stack_info["StackStatus"] == "CREATE_COMPLETE"
    group = next(o["OutputValue"] for o in stack_info["Outputs"] if o["OutputKey"] == "GroupName")
    return dict(
        sandbox.client("autoscaling").describe_auto_scaling_groups(AutoScalingGroupNames=[group])[
            "AutoScalingGroups"
        ][0]
    )


def back_up(sandbox: Sandbox, instance_id: str, **tags: str) -> str:
    """Run an AWS Backup job of the instance to completion; answer the AMI id."""
    backup = sandbox.client("backup")
    arn = f"arn:aws:ec2:{sandbox.region}:123456789012:instance/{instance_id}"
    job = backup.start_backup_job(
        BackupVaultName="Default",
        ResourceArn=arn,
        IamRoleArn="arn:aws:iam::123456789012:role/backup",
        RecoveryPointTags=tags,
    )["BackupJobId"]
    for _ in range(100):
        described = backup.describe_backup_job(BackupJobId=job)
        if described["State"] == "COMPLETED":
            return str(described["RecoveryPointArn"]).rsplit("/", 1)[-1]
        time.sleep(0.05)
    raise AssertionError(f"backup job {job} did not complete")


def parameter_value(sandbox: Sandbox, stack: str, key: str) -> str:
    found = sandbox.client("cloudformation").describe_stacks(StackName=stack)["Stacks"][0]
    return next(p["ParameterValue"] for p in found["Parameters"] if p["ParameterKey"] == key)
