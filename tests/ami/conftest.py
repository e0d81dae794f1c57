from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cfnops.ami import Rotator
from cfnops.config import AwsSettings, Settings, load_settings
from cfnops.durable import Engine
from cfnops.sandbox import Sandbox

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "ami-rotation"


@pytest.fixture(scope="session")
def sandbox_env(cfnops_sandbox_server: Sandbox) -> Iterator[dict[str, str]]:
    """Dummy credentials for clients built inside workflow steps (they use the default chain)."""
    wanted = {
        k: v
        for k, v in cfnops_sandbox_server.environment().items()
        if k != "AWS_ENDPOINT_URL"  # everything else passes the endpoint explicitly
    }
    saved = {k: os.environ.get(k) for k in wanted}
    os.environ.update(wanted)
    yield wanted
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(scope="session")
def engine(
    tmp_path_factory: pytest.TempPathFactory, sandbox_env: dict[str, str]
) -> Iterator[Engine]:
    """One durable engine per process (DBOS is a singleton): reuse one already running."""
    current = Engine.current()
    if current is not None:
        yield current
        return
    db = tmp_path_factory.mktemp("ami") / "engine.sqlite"
    settings = load_settings(database_url=f"sqlite:///{db}", worker={"heartbeat_seconds": 0.5})
    eng = Engine.start_process(settings)
    yield eng
    eng.shutdown(grace_seconds=1)


def make_settings(sandbox: Sandbox, database_url: str, **ami: Any) -> Settings:
    waits = {"poll_seconds": 1.0, "image_wait_seconds": 3.0, "stack_busy_wait_seconds": 10.0}
    return load_settings(
        database_url=database_url,
        aws=AwsSettings(region=sandbox.region, endpoint_url=sandbox.endpoint_url, max_attempts=2),
        ami={**waits, **ami},
    )


@pytest.fixture
def settings(cfnops_sandbox: Sandbox, engine: Engine) -> Settings:
    return make_settings(cfnops_sandbox, engine.settings.database_url)


@pytest.fixture
def rotator(settings: Settings, cfnops_sandbox: Sandbox) -> Iterator[Rotator]:
    with Rotator(settings, cfnops_sandbox.clients) as rot:
        yield rot


def unique(prefix: str) -> str:
    return f"{prefix}-{time.monotonic_ns() % 10**10}"


def base_images(sandbox: Sandbox) -> list[str]:
    images = sandbox.client("ec2").describe_images(Owners=["amazon"])["Images"]
    return [i["ImageId"] for i in images if i.get("Architecture") == "x86_64"][:2]


def deploy(sandbox: Sandbox, pattern: int, stack: str, **params: str) -> dict[str, Any]:
    """Create an example stack; answer its group."""
    cfn, ec2 = sandbox.client("cloudformation"), sandbox.client("ec2")
    subnet = ec2.describe_subnets(Filters=[{"Name": "default-for-az", "Values": ["true"]}])[
        "Subnets"
    ][0]["SubnetId"]
    name = "pattern1-ssm-parameter.yaml" if pattern == 1 else "pattern2-stack-parameter.yaml"
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
