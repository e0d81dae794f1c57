"""``cfnops ami rotate/rollback`` exit codes and JSON; the Lambda handlers on the sandbox."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ami_test_support import EXAMPLES, back_up, base_images, deploy, parameter_value, unique

from cfnops.ami import ROTATE_STACK_WORKFLOW
from cfnops.ami._stack_workflow import ROTATE_STACK_EVENT_WORKFLOW
from cfnops.cli.main import run
from cfnops.config import Settings
from cfnops.durable import Engine
from cfnops.lambda_handlers import ami as handlers
from cfnops.runtime import Runtime
from cfnops.sandbox import Sandbox
from cfnops.sandbox.extensions import events


@pytest.fixture
def cli(cfnops_sandbox: Sandbox, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Global flags aimed at the sandbox; the engine's database and short waits via env."""
    monkeypatch.setenv("CFNOPS_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("CFNOPS_AMI__POLL_SECONDS", "1")
    monkeypatch.setenv("CFNOPS_AMI__IMAGE_WAIT_SECONDS", "2")
    return ["--endpoint-url", cfnops_sandbox.endpoint_url, "--region", cfnops_sandbox.region]


def backup_event(sandbox: Sandbox, job_image: str) -> dict[str, Any]:
    """The COMPLETED event the sandbox published for the backup that made ``job_image``."""
    for event in reversed(events.recorded(source="aws.backup")):
        detail = event["detail"]
        if detail.get("state") == "COMPLETED" and str((event.get("resources") or [""])[0]).endswith(
            job_image
        ):
            return dict(event)
    raise AssertionError(f"no COMPLETED backup event for {job_image}")


def write(tmp_path: Path, data: Any) -> str:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_rotate_event_skip_paths_exit_0(
    cli: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    running = {
        "source": "aws.backup",
        "detail-type": "Backup Job State Change",
        "detail": {"backupJobId": "J1", "state": "RUNNING", "resourceType": "EC2"},
    }
    assert run([*cli, "ami", "rotate", "--event", write(tmp_path, running), "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["outcome"] == "SKIPPED" and "RUNNING" in out["reason"]


def test_rotate_malformed_event_exit_2(
    cli: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = {"source": "aws.backup", "detail-type": "Backup Job State Change", "detail": {}}
    assert run([*cli, "ami", "rotate", "--event", write(tmp_path, bad)]) == 2
    err = capsys.readouterr().err
    assert "malformed event" in err and "/detail/backupJobId" in err


def test_rotate_flags_are_checked(cli: list[str]) -> None:
    assert run([*cli, "ami", "rotate", "--image-id", "ami-12345678"]) == 2
    assert (
        run([*cli, "ami", "rotate", "--image-id", "ami-1", "--parameter", "/a", "--stack", "s"])
        == 2
    )
    assert run([*cli, "ami", "rollback"]) == 2


@pytest.mark.slow
def test_rotate_and_rollback_a_parameter(
    cli: list[str], cfnops_sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = base_images(cfnops_sandbox)
    name = f"/cfnops/tests/{unique('cli')}"
    ssm = cfnops_sandbox.client("ssm")
    ssm.put_parameter(Name=name, Value=old, Type="String")
    argv = [*cli, "ami", "rotate", "--image-id", new, "--parameter", name, "-o", "json"]
    assert run(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["outcome"], out["ImageId"], out["PreviousImageId"]) == ("UPDATED", new, old)
    assert run([*cli, "ami", "rollback", "--parameter", name]) == 0
    assert "UPDATED" in capsys.readouterr().out
    assert ssm.get_parameter(Name=name)["Parameter"]["Value"] == old


def test_refused_stack_owned_parameter_exit_1(
    cli: list[str], cfnops_sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = base_images(cfnops_sandbox)
    stack, name = unique("owner"), f"/cfnops/tests/{unique('owned')}"
    cfnops_sandbox.client("cloudformation").create_stack(
        StackName=stack,
        TemplateBody=(
            "Resources:\n  Ami:\n    Type: AWS::SSM::Parameter\n    Properties:\n"
            f"      Type: String\n      Name: {name}\n      Value: {old}\n"
        ),
    )
    assert run([*cli, "ami", "rotate", "--image-id", new, "--parameter", name]) == 1
    assert f"belongs to stack {stack}" in capsys.readouterr().err
    assert run([*cli, "ami", "rotate", "--image-id", new, "--parameter", name, "--force"]) == 0


@pytest.mark.slow
def test_rotate_and_rollback_a_stack(
    cli: list[str], cfnops_sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = base_images(cfnops_sandbox)
    stack = unique("ami-cli")
    deploy(cfnops_sandbox, 2, stack, ImageId=old)
    argv = [*cli, "ami", "rotate", "--image-id", new, "--stack", stack, "-o", "json"]
    assert run(argv) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["outcome"] == "UPDATED" and out["RunId"]
    # stderr is not a terminal here: the run's phases are reported there
    assert f"run {out['RunId']}: SUCCEEDED" in captured.err
    assert parameter_value(cfnops_sandbox, stack, "ImageId") == new
    # "UPDATED" is verified: drift detection ran on the stack after the update
    assert (out["Drift"], out["StillDrifted"]) == ("IN_SYNC", [])
    assert run([*cli, "ami", "rollback", "--stack", stack]) == 0
    assert parameter_value(cfnops_sandbox, stack, "ImageId") == old


def deploy_with_extra_parameter(sandbox: Sandbox, stack: str, image: str) -> str:
    """Pattern 2's example stack plus an SSM parameter the rotation does not touch;
    answer that parameter's name."""
    body = (EXAMPLES / "pattern2-stack-parameter.yaml").read_text()
    extra = (
        "  Extra:\n    Type: AWS::SSM::Parameter\n    Properties:\n"
        "      Type: String\n      Value: declared\n\nOutputs:"
    )
    assert "\nOutputs:" in body
    subnet = sandbox.client("ec2").describe_subnets(
        Filters=[{"Name": "default-for-az", "Values": ["true"]}]
    )["Subnets"][0]["SubnetId"]
    cfn = sandbox.client("cloudformation")
    cfn.create_stack(
        StackName=stack,
        TemplateBody=body.replace("\nOutputs:", "\n" + extra, 1),
        Parameters=[
            {"ParameterKey": "ImageId", "ParameterValue": image},
            {"ParameterKey": "Subnets", "ParameterValue": subnet},
        ],
    )
    found = cfn.describe_stack_resource(StackName=stack, LogicalResourceId="Extra")
    return str(found["StackResourceDetail"]["PhysicalResourceId"])


def _sns_queue(sandbox: Sandbox, name: str) -> tuple[str, str]:
    """An SNS topic on the sandbox with an SQS queue subscribed: (topic ARN, queue URL)."""
    sns, sqs = sandbox.client("sns"), sandbox.client("sqs")
    topic = sns.create_topic(Name=name)["TopicArn"]
    queue = sqs.create_queue(QueueName=name)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn["QueueArn"])
    return topic, queue


def _published(sandbox: Sandbox, queue: str) -> list[dict[str, Any]]:
    """The SNS messages waiting in ``queue`` (taken off it)."""
    sqs, found = sandbox.client("sqs"), []
    while True:
        got = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10).get("Messages", [])
        if not got:
            return found
        for message in got:
            found.append(json.loads(message["Body"]))
            sqs.delete_message(QueueUrl=queue, ReceiptHandle=message["ReceiptHandle"])


def _finished(settings: Settings, outcome: str) -> float:
    """``cfnops_runs_finished`` of stack rotations ending ``outcome`` (what /metrics serves)."""
    from cfnops.database import Database
    from cfnops.metrics import StoreCollector

    database = Database.open(settings.database_url)
    try:
        for family in StoreCollector(database).collect():
            if family.name == "cfnops_runs_finished":
                return sum(
                    s.value
                    for s in family.samples
                    if s.labels == {"workflow": ROTATE_STACK_WORKFLOW, "outcome": outcome}
                )
    finally:
        database.dispose()
    raise AssertionError("no cfnops_runs_finished family")


@pytest.mark.slow
def test_rotation_that_leaves_drift_says_drifted_exit_1(
    cli: list[str],
    cfnops_sandbox: Sandbox,
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The update ran, but a resource it did not touch was changed out of band: the
    rotation does not claim the stack is in sync (outcome DRIFTED naming it, exit 1), the
    operator's channels are told (SNS here) and the metrics count it DRIFTED."""
    old, new = base_images(cfnops_sandbox)
    stack = unique("ami-drift")
    topic, queue = _sns_queue(cfnops_sandbox, unique("ami-notes"))
    monkeypatch.setenv("CFNOPS_NOTIFY__SNS_TOPIC_ARN", topic)
    monkeypatch.setenv("CFNOPS_NOTIFY__CONSOLE", "false")
    name = deploy_with_extra_parameter(cfnops_sandbox, stack, old)
    cfnops_sandbox.client("ssm").put_parameter(
        Name=name, Value="changed", Type="String", Overwrite=True
    )
    drifted_before = _finished(settings, "DRIFTED")
    argv = [*cli, "ami", "rotate", "--image-id", new, "--stack", stack]
    assert run([*argv, "-o", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert (out["outcome"], out["Drift"], out["PreviousImageId"]) == ("DRIFTED", "DRIFTED", old)
    assert parameter_value(cfnops_sandbox, stack, "ImageId") == new  # the update itself ran
    (note,) = _published(cfnops_sandbox, queue)
    assert note["Subject"] == f"cfnops AMI rotation: stack {stack} DRIFTED"
    assert note["Message"].startswith(f"AMI rotation of stack {stack} set ImageId to {new} ")
    assert "still drifted" in note["Message"]
    assert "Extra /Value: expected 'declared', actual 'changed'" in note["Message"]
    assert _finished(settings, "DRIFTED") == drifted_before + 1
    # runs list reads the run's outcome, and finds it by it
    listed = [*cli, "-o", "json", "runs", "list", "--outcome", "drifted", "--limit", "500"]
    assert run(listed) == 0
    runs = json.loads(capsys.readouterr().out)
    assert [r["outcome"] for r in runs if r["runId"] == out["RunId"]] == ["DRIFTED"]
    (still,) = out["StillDrifted"]
    assert (still["LogicalResourceId"], still["ResourceType"], still["Status"]) == (
        "Extra",
        "AWS::SSM::Parameter",
        "MODIFIED",
    )
    assert [(p["Path"], p["Expected"], p["Actual"]) for p in still["Properties"]] == [
        ("/Value", "declared", "changed")
    ]
    # text names it too; a rollback is an update as well and is verified the same way
    assert run([*cli, "ami", "rollback", "--stack", stack]) == 1
    text = capsys.readouterr().out
    assert text.startswith("DRIFTED: stack " + stack) and ", drift DRIFTED," in text
    assert "still drifted: Extra (AWS::SSM::Parameter) /Value: expected 'declared', " in text
    assert parameter_value(cfnops_sandbox, stack, "ImageId") == old
    # once the drift is gone, the same rotation reads UPDATED, IN_SYNC, exit 0
    cfnops_sandbox.client("ssm").put_parameter(
        Name=name, Value="declared", Type="String", Overwrite=True
    )
    assert run(argv) == 0
    assert ", drift IN_SYNC," in capsys.readouterr().out
    # the rollback (DRIFTED) was notified too; the rotation in sync sends nothing
    assert [n["Subject"] for n in _published(cfnops_sandbox, queue)] == [
        f"cfnops AMI rotation: stack {stack} DRIFTED"
    ]
    assert _finished(settings, "DRIFTED") == drifted_before + 2


def test_lambda_parameter_handler(
    cfnops_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, sandbox_env: dict[str, str]
) -> None:
    monkeypatch.setenv("CFNOPS_AWS__ENDPOINT_URL", cfnops_sandbox.endpoint_url)
    old, _ = base_images(cfnops_sandbox)
    stack, parameter = unique("ami-l1"), f"/cfnops/tests/{unique('l1')}"
    ssm = cfnops_sandbox.client("ssm")
    ssm.put_parameter(Name=parameter, Value=old, Type="String")
    group = deploy(cfnops_sandbox, 1, stack, ImageIdParameterName=parameter)
    new = back_up(cfnops_sandbox, group["Instances"][0]["InstanceId"])
    result = handlers.parameter_handler(backup_event(cfnops_sandbox, new), None)
    assert [r["outcome"] for r in result["results"]] == ["UPDATED"]
    assert ssm.get_parameter(Name=parameter)["Parameter"]["Value"] == new
    skipped = handlers.parameter_handler(
        {**backup_event(cfnops_sandbox, new), "detail": {"backupJobId": "J", "state": "FAILED"}},
        None,
    )
    assert skipped["results"] == [] and "FAILED" in skipped["skipped"][0]


def test_lambda_stack_handler_is_the_durable_workflow(
    cfnops_sandbox: Sandbox,
    engine: Engine,
    monkeypatch: pytest.MonkeyPatch,
    sandbox_env: dict[str, str],
) -> None:
    monkeypatch.setenv("CFNOPS_AWS__ENDPOINT_URL", cfnops_sandbox.endpoint_url)
    monkeypatch.setenv("CFNOPS_AMI__POLL_SECONDS", "1")
    # the engine runs the same body the Lambda durable function does, on the runtime a
    # Lambda handler builds from its environment
    engine.use(Runtime.from_environment(database=engine.runtime.database))
    old, _ = base_images(cfnops_sandbox)
    stack = unique("ami-l2")
    group = deploy(cfnops_sandbox, 2, stack, ImageId=old)
    new = back_up(cfnops_sandbox, group["Instances"][0]["InstanceId"])
    run_id = f"{stack}-lambda"
    engine.start(ROTATE_STACK_EVENT_WORKFLOW, backup_event(cfnops_sandbox, new), run_id=run_id)
    output = engine.result(run_id, timeout=60)
    assert output["skipped"] == []
    (result,) = output["results"]
    assert (result["outcome"], result["StackName"], result["PreviousImageId"]) == (
        "UPDATED",
        stack,
        old,
    )
    assert parameter_value(cfnops_sandbox, stack, "ImageId") == new
    assert ROTATE_STACK_WORKFLOW != ROTATE_STACK_EVENT_WORKFLOW
