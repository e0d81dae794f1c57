"""``cfnops demo ami``: both drift-free patterns on the local sandbox, then the naive one.

1. Pattern 1: deploy ``examples/ami-rotation/pattern1-ssm-parameter.yaml`` with the
   parameter created outside the stack; back the instance up with an AWS Backup
   job (the sandbox makes the AMI and publishes "Backup Job State Change"); the
   event reaches the rotation handler on the sandbox bus; the parameter holds the
   new AMI; drift detection: IN_SYNC; an auto-healing replacement launches from it.
2. Pattern 2: the same with ``pattern2-stack-parameter.yaml``: the stack is updated
   (durable workflow); drift detection: IN_SYNC.
3. The naive approach on a third stack: a new launch template version and the
   group switched to it; drift detection: DRIFTED.
4. Pattern 3 with ``pattern3-instance-refresh.yaml``: the Backup event rotates with
   ``roll`` on; CloudFormation's instance refresh replaces the instance (progress
   reported); drift detection: IN_SYNC.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfnops.ami import Rotator
from cfnops.config import AwsSettings, Settings
from cfnops.demo.ami_bridge import subscribe_rotation
from cfnops.errors import OperationFailed, UsageError
from cfnops.runtime import Runtime

if TYPE_CHECKING:
    from mypy_boto3_cloudformation import CloudFormationClient
    from mypy_boto3_ec2 import EC2Client

    from cfnops.aws import AwsClients

__all__ = ["detect_drift", "examples_dir", "run_demo", "wait_stack"]

Log = Callable[[str], None] | None


def examples_dir() -> Path:
    """``examples/ami-rotation`` of the source tree this package runs from."""
    found = Path(__file__).resolve().parents[3] / "examples" / "ami-rotation"
    if not found.is_dir():
        raise UsageError(
            f"example templates not found at {found}",
            hint="run the demo from a cfnops source checkout (pip install -e .)",
        )
    return found


def wait_stack(cfn: CloudFormationClient, stack: str, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    while True:
        status = str(cfn.describe_stacks(StackName=stack)["Stacks"][0]["StackStatus"])
        if not status.endswith("_IN_PROGRESS") or time.monotonic() > deadline:
            return status
        time.sleep(0.2)


def detect_drift(cfn: CloudFormationClient, stack: str, timeout: float = 60.0) -> dict[str, Any]:
    """DetectStackDrift, wait, and the drifted resources with their differences."""
    detection = cfn.detect_stack_drift(StackName=stack)["StackDriftDetectionId"]
    deadline = time.monotonic() + timeout
    while True:
        status = cfn.describe_stack_drift_detection_status(StackDriftDetectionId=detection)
        if status["DetectionStatus"] != "DETECTION_IN_PROGRESS" or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    drifts = cfn.describe_stack_resource_drifts(StackName=stack)["StackResourceDrifts"]
    return {
        "StackDriftStatus": status.get("StackDriftStatus"),
        "Drifted": [
            {
                "LogicalResourceId": d["LogicalResourceId"],
                "Status": d["StackResourceDriftStatus"],
                "Differences": d.get("PropertyDifferences", []),
            }
            for d in drifts
            if d["StackResourceDriftStatus"] not in ("IN_SYNC", "NOT_CHECKED")
        ],
    }


def _group(clients: AwsClients, cfn: CloudFormationClient, stack: str) -> dict[str, Any]:
    outputs = cfn.describe_stacks(StackName=stack)["Stacks"][0].get("Outputs", [])
    name = next(o["OutputValue"] for o in outputs if o["OutputKey"] == "GroupName")
    groups = clients.client("autoscaling").describe_auto_scaling_groups(
        AutoScalingGroupNames=[name]
    )
    return dict(groups["AutoScalingGroups"][0])


def _backup(clients: AwsClients, instance_id: str) -> str:
    account = clients.account_id()
    arn = f"arn:aws:ec2:{clients.region}:{account}:instance/{instance_id}"
    backup = clients.client("backup")
    job = backup.start_backup_job(
        BackupVaultName="Default",
        ResourceArn=arn,
        IamRoleArn=f"arn:aws:iam::{account}:role/service-role/AWSBackupDefaultServiceRole",
    )["BackupJobId"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        described = backup.describe_backup_job(BackupJobId=job)
        if described["State"] in ("COMPLETED", "FAILED", "ABORTED"):
            return str(described.get("RecoveryPointArn", "")).rsplit("/", 1)[-1]
        time.sleep(0.2)
    raise OperationFailed(f"backup job {job} did not complete within 60 s")


def _base_images(ec2: EC2Client) -> list[str]:
    """Two Amazon Linux 2 x86_64 AMIs of the sandbox (a filtered query is quick)."""
    images = ec2.describe_images(
        Filters=[
            {"Name": "architecture", "Values": ["x86_64"]},
            {"Name": "name", "Values": ["amzn2-ami-hvm-*"]},
        ]
    )["Images"]
    return sorted(i["ImageId"] for i in images)[:2]


def _instance_image(clients: AwsClients, instance_id: str) -> str:
    reply = clients.client("ec2").describe_instances(InstanceIds=[instance_id])
    return str(reply["Reservations"][0]["Instances"][0]["ImageId"])


def run_demo(settings: Settings, log: Log = None, *, delays: float = 0.2) -> dict[str, Any]:
    """Run the three scenarios; ``report["ok"]`` when each ended as it should."""
    from cfnops.sandbox import Delays, Sandbox

    say = log or (lambda _: None)
    steps: dict[str, Any] = {}
    sandbox_delays = Delays.uniform(delays)
    # No environment variables are set: the rotator's clients (dummy credentials aimed at
    # the sandbox) are handed to the stack workflow too (on the rotator's runtime).
    with Sandbox(delays=sandbox_delays) as sandbox:
        aws = AwsSettings(region=sandbox.region, endpoint_url=sandbox.endpoint_url, max_attempts=3)
        ami = settings.ami.replace(poll_seconds=1.0)
        demo_settings = settings.replace(aws=aws, ami=ami)
        runtime = Runtime.from_settings(demo_settings, aws=sandbox.clients)
        with Rotator(runtime) as rotator:
            rotator.engine()  # start the durable engine before events arrive
            subscription = subscribe_rotation(rotator)
            try:
                steps["pattern1"] = _pattern(rotator, 1, say)
                steps["pattern2"] = _pattern(rotator, 2, say)
                steps["naive"] = _naive(rotator, say)
            finally:
                subscription.close()
            steps["handler"] = {
                "results": [r.to_json() for r in subscription.results],
                "errors": [str(e) for e in subscription.errors],
            }
            roll_settings = demo_settings.replace(ami=ami.replace(roll=True))
            rolling_runtime = runtime.with_settings(roll_settings)
            with Rotator(rolling_runtime) as roller:
                roller.engine()
                rolling = subscribe_rotation(roller)
                try:
                    steps["pattern3"] = _pattern3(roller, rolling, say)
                finally:
                    rolling.close()
                steps["pattern3"]["errors"] = [str(e) for e in rolling.errors]
    ok = (
        steps["pattern1"]["drift"]["StackDriftStatus"] == "IN_SYNC"
        and steps["pattern1"]["rotated"]
        and steps["pattern2"]["drift"]["StackDriftStatus"] == "IN_SYNC"
        and steps["pattern2"]["rotated"]
        and steps["naive"]["drift"]["StackDriftStatus"] == "DRIFTED"
        and steps["pattern3"]["drift"]["StackDriftStatus"] == "IN_SYNC"
        and steps["pattern3"]["rolled"]
    )
    summary = {
        "pattern1 (SSM parameter)": steps["pattern1"]["drift"]["StackDriftStatus"],
        "pattern2 (stack parameter)": steps["pattern2"]["drift"]["StackDriftStatus"],
        "naive (new LT version + group version)": steps["naive"]["drift"]["StackDriftStatus"],
        "pattern3 (stack parameter + instance refresh)": steps["pattern3"]["drift"][
            "StackDriftStatus"
        ],
    }
    return {"ok": ok, "summary": summary, "steps": steps}


def _deploy(rotator: Rotator, pattern: int, stack: str, params: dict[str, str]) -> None:
    clients = rotator.clients
    cfn, ec2 = clients.client("cloudformation"), clients.client("ec2")
    subnets = ec2.describe_subnets(Filters=[{"Name": "default-for-az", "Values": ["true"]}])
    subnet = subnets["Subnets"][0]["SubnetId"]
    name = {
        1: "pattern1-ssm-parameter.yaml",
        2: "pattern2-stack-parameter.yaml",
        3: "pattern3-instance-refresh.yaml",
    }[pattern]
    body = (examples_dir() / name).read_text(encoding="utf-8")
    values = {**params, "Subnets": subnet}
    cfn.create_stack(
        StackName=stack,
        TemplateBody=body,
        Parameters=[{"ParameterKey": k, "ParameterValue": v} for k, v in values.items()],
    )
    status = wait_stack(cfn, stack)
    if status != "CREATE_COMPLETE":
        raise OperationFailed(f"demo stack {stack} ended {status}")


def _pattern(rotator: Rotator, pattern: int, say: Callable[[str], None]) -> dict[str, Any]:
    clients = rotator.clients
    cfn, ssm = clients.client("cloudformation"), clients.client("ssm")
    base = _base_images(clients.client("ec2"))[0]
    stack = f"cfnops-demo-ami-p{pattern}-{int(time.time())}"
    parameter = f"/cfnops/demo/{stack}/ami"
    if pattern == 1:
        ssm.put_parameter(Name=parameter, Value=base, Type="String", DataType="aws:ec2:image")
        say(f"pattern 1: parameter {parameter} = {base} (created outside the stack)")
        _deploy(rotator, 1, stack, {"ImageIdParameterName": parameter})
    else:
        _deploy(rotator, 2, stack, {"ImageId": base})
    say(f"pattern {pattern}: stack {stack} CREATE_COMPLETE")
    group = _group(clients, cfn, stack)
    instance = group["Instances"][0]["InstanceId"]
    new_ami = _backup(clients, instance)
    say(f"pattern {pattern}: AWS Backup job of {instance} COMPLETED → AMI {new_ami}")
    from cfnops.sandbox.extensions import events

    events.wait_for_deliveries(timeout=120)
    if pattern == 1:
        value = ssm.get_parameter(Name=parameter)["Parameter"]["Value"]
        rotated = value == new_ami
        say(f"pattern 1: handler wrote {parameter} = {value}")
    else:
        found = cfn.describe_stacks(StackName=stack)["Stacks"][0]
        value = next(
            p["ParameterValue"] for p in found["Parameters"] if p["ParameterKey"] == "ImageId"
        )
        rotated = value == new_ami and found["StackStatus"] == "UPDATE_COMPLETE"
        say(f"pattern 2: handler updated {stack}: ImageId = {value} ({found['StackStatus']})")
    drift = detect_drift(cfn, stack)
    say(f"pattern {pattern}: drift detection → {drift['StackDriftStatus']}")
    # Auto-healing: the replacement instance launches from the new AMI.
    clients.client("autoscaling").terminate_instance_in_auto_scaling_group(
        InstanceId=instance, ShouldDecrementDesiredCapacity=False
    )
    replacement = _group(clients, cfn, stack)["Instances"][0]["InstanceId"]
    healed_image = _instance_image(clients, replacement)
    say(f"pattern {pattern}: replacement {replacement} launched from {healed_image}")
    return {
        "stack": stack,
        "newImageId": new_ami,
        "value": value,
        "rotated": rotated,
        "drift": drift,
        "replacementImageId": healed_image,
    }


def _naive(rotator: Rotator, say: Callable[[str], None]) -> dict[str, Any]:
    clients = rotator.clients
    cfn, ec2 = clients.client("cloudformation"), clients.client("ec2")
    base, new = _base_images(ec2)
    stack = f"cfnops-demo-ami-naive-{int(time.time())}"
    _deploy(rotator, 2, stack, {"ImageId": base})
    group = _group(clients, cfn, stack)
    lt = group["LaunchTemplate"]["LaunchTemplateId"]
    version = ec2.create_launch_template_version(
        LaunchTemplateId=lt,
        SourceVersion=str(group["LaunchTemplate"]["Version"]),
        LaunchTemplateData={"ImageId": new},
    )["LaunchTemplateVersion"]["VersionNumber"]
    after_version = detect_drift(cfn, stack)
    say(f"naive: new launch template version {version} alone → {after_version['StackDriftStatus']}")
    clients.client("autoscaling").update_auto_scaling_group(
        AutoScalingGroupName=group["AutoScalingGroupName"],
        LaunchTemplate={"LaunchTemplateId": lt, "Version": str(version)},
    )
    drift = detect_drift(cfn, stack)
    say(f"naive: group switched to version {version} → {drift['StackDriftStatus']}")
    for item in drift["Drifted"]:
        for diff in item["Differences"]:
            say(
                f"  {item['LogicalResourceId']} {diff['PropertyPath']}: expected "
                f"{diff['ExpectedValue']}, actual {diff['ActualValue']}"
            )
    return {"stack": stack, "afterNewVersion": after_version, "drift": drift}


def _pattern3(rotator: Rotator, rolling: Any, say: Callable[[str], None]) -> dict[str, Any]:
    """Pattern 3 from a Backup event: the instances are replaced now, the stack stays in sync."""
    clients = rotator.clients
    cfn = clients.client("cloudformation")
    base = _base_images(clients.client("ec2"))[0]
    stack = f"cfnops-demo-ami-p3-{int(time.time())}"
    _deploy(rotator, 3, stack, {"ImageId": base})
    say(f"pattern 3: stack {stack} CREATE_COMPLETE (UpdatePolicy AutoScalingInstanceRefresh)")
    before = [i["InstanceId"] for i in _group(clients, cfn, stack)["Instances"]]
    new_ami = _backup(clients, before[0])
    say(f"pattern 3: AWS Backup job of {before[0]} COMPLETED → AMI {new_ami}")
    from cfnops.sandbox.extensions import events

    events.wait_for_deliveries(timeout=120)
    rolling.wait(1, timeout=120)
    results = [r.to_json() for r in rolling.results]
    for result in results:
        for step in (result.get("Roll") or {}).get("Progress", []):
            say(
                f"pattern 3: refresh of {step['GroupName']}: {step['Status']} "
                f"{step.get('PercentageComplete') or 0} %"
            )
    status = wait_stack(cfn, stack)
    after = [i["InstanceId"] for i in _group(clients, cfn, stack)["Instances"]]
    images = sorted({_instance_image(clients, i) for i in after})
    rolled = not set(after) & set(before) and images == [new_ami]
    say(
        f"pattern 3: handler updated {stack} ({status}); the instance refresh replaced "
        f"{', '.join(before)} with {', '.join(after)} from {', '.join(images)}"
    )
    drift = detect_drift(cfn, stack)
    say(f"pattern 3: drift detection → {drift['StackDriftStatus']}")
    return {
        "stack": stack,
        "newImageId": new_ami,
        "instancesBefore": before,
        "instancesAfter": after,
        "rolled": rolled,
        "drift": drift,
        "results": results,
    }
