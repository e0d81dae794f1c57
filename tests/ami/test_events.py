"""Event parsing at the trust boundary: understood, skipped, malformed."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from cfnops.ami import ImageEvent, Skipped, load_event, parse_event
from cfnops.ami.errors import MalformedEvent
from cfnops.errors import ExitCode

IMAGE_ARN = "arn:aws:ec2:us-east-1::image/ami-0a1b2c3d4e5f60718"

# Shape of the AWS Backup Developer Guide's "Backup Job State Change" example.
BACKUP: dict[str, Any] = {
    "version": "0",
    "id": "f2a7c1d0-1111-2222-3333-444455556666",
    "detail-type": "Backup Job State Change",
    "source": "aws.backup",
    "account": "123456789012",
    "time": "2026-11-21T10:00:00Z",
    "region": "us-east-1",
    "resources": ["arn:aws:ec2:us-east-1:123456789012:instance/i-0123456789abcdef0"],
    "detail": {
        "backupJobId": "7A2B3C4D-0000-1111-2222-333344445555",
        "backupSizeInBytes": "0",
        "backupVaultArn": "arn:aws:backup:us-east-1:123456789012:backup-vault:Default",
        "backupVaultName": "Default",
        "bytesTransferred": "0",
        "creationDate": "2026-11-21T09:58:00.000Z",
        "iamRoleArn": "arn:aws:iam::123456789012:role/backup",
        "resourceArn": "arn:aws:ec2:us-east-1:123456789012:instance/i-0123456789abcdef0",
        "resourceType": "EC2",
        "state": "COMPLETED",
        "percentDone": "100.0",
        "completionDate": "2026-11-21T10:00:00.000Z",
        "createdResourceArn": IMAGE_ARN,
    },
}

IMAGE_BUILDER: dict[str, Any] = {
    "version": "0",
    "id": "0e2b7f00-aaaa-bbbb-cccc-ddddeeeeffff",
    "detail-type": "EC2 Image Builder Image State Change",
    "source": "aws.imagebuilder",
    "account": "123456789012",
    "time": "2026-11-21T10:00:00Z",
    "region": "us-east-1",
    "resources": ["arn:aws:imagebuilder:us-east-1:123456789012:image/web/1.0.0/3"],
    "detail": {"previous-state": {"status": "DISTRIBUTING"}, "state": {"status": "AVAILABLE"}},
}


def backup(**detail: Any) -> dict[str, Any]:
    event = copy.deepcopy(BACKUP)
    for key, value in detail.items():
        if value is None:
            event["detail"].pop(key, None)
        else:
            event["detail"][key] = value
    return event


def test_completed_backup_names_the_ami_from_created_resource_arn() -> None:
    parsed = parse_event(BACKUP)
    assert parsed == ImageEvent(
        kind="backup",
        event_id=BACKUP["id"],
        region="us-east-1",
        image_id="ami-0a1b2c3d4e5f60718",
        backup_job_id=BACKUP["detail"]["backupJobId"],
        source_resource=BACKUP["detail"]["resourceArn"],
    )


def test_image_arn_in_resources_is_used_when_the_detail_has_none() -> None:
    event = backup(createdResourceArn=None)
    event["resources"].append(IMAGE_ARN)
    parsed = parse_event(event)
    assert isinstance(parsed, ImageEvent) and parsed.image_id == "ami-0a1b2c3d4e5f60718"


def test_without_an_image_arn_the_job_id_is_kept_for_describe_backup_job() -> None:
    parsed = parse_event(backup(createdResourceArn=None))
    assert isinstance(parsed, ImageEvent)
    assert parsed.image_id is None
    assert parsed.backup_job_id == BACKUP["detail"]["backupJobId"]


@pytest.mark.parametrize("state", ["CREATED", "RUNNING", "FAILED", "ABORTED", "EXPIRED"])
def test_other_states_are_skipped_with_the_state_in_the_reason(state: str) -> None:
    parsed = parse_event(backup(state=state, createdResourceArn=None))
    assert isinstance(parsed, Skipped)
    assert state in parsed.reason and "COMPLETED" in parsed.reason
    assert parsed.to_json()["outcome"] == "SKIPPED"


def test_non_ec2_backups_are_skipped() -> None:
    parsed = parse_event(backup(resourceType="Aurora", createdResourceArn="arn:aws:rds:x"))
    assert isinstance(parsed, Skipped) and "Aurora" in parsed.reason


def test_other_events_are_skipped() -> None:
    event = {
        "source": "aws.ec2",
        "detail-type": "EC2 Instance State-change Notification",
        "detail": {"state": "running"},
    }
    parsed = parse_event(event)
    assert isinstance(parsed, Skipped) and "aws.ec2" in parsed.reason


def test_image_builder_available_gives_the_build_version_arn() -> None:
    parsed = parse_event(IMAGE_BUILDER)
    assert isinstance(parsed, ImageEvent)
    assert parsed.kind == "imagebuilder" and parsed.image_id is None
    assert parsed.image_build_version_arn == IMAGE_BUILDER["resources"][0]


def test_image_builder_other_status_is_skipped() -> None:
    event = copy.deepcopy(IMAGE_BUILDER)
    event["detail"]["state"]["status"] = "FAILED"
    parsed = parse_event(event)
    assert isinstance(parsed, Skipped) and "FAILED" in parsed.reason


@pytest.mark.parametrize(
    ("mutate", "pointer"),
    [
        (lambda e: e.pop("detail-type"), "/detail-type"),
        (lambda e: e.pop("source"), "/source"),
        (lambda e: e.update(detail="COMPLETED"), "/detail"),
        (lambda e: e["detail"].pop("backupJobId"), "/detail/backupJobId"),
        (lambda e: e["detail"].update(state=7), "/detail/state"),
        (lambda e: e.update(resources="arn"), "/resources"),
    ],
    ids=[
        "no-detail-type",
        "no-source",
        "detail-not-object",
        "no-job-id",
        "state-not-text",
        "resources-not-list",
    ],
)
def test_malformed_events_say_where(mutate: Any, pointer: str) -> None:
    event = copy.deepcopy(BACKUP)
    mutate(event)
    with pytest.raises(MalformedEvent) as err:
        parse_event(event, "event.json")
    assert err.value.pointer == pointer
    assert err.value.exit_code == ExitCode.USAGE
    assert "event.json" in str(err.value) and pointer in str(err.value)


def test_image_builder_without_image_arn_is_malformed() -> None:
    event = copy.deepcopy(IMAGE_BUILDER)
    event["resources"] = []
    with pytest.raises(MalformedEvent, match="/resources"):
        parse_event(event)


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", '"text"', "null"])
def test_load_event_refuses_non_objects(text: str) -> None:
    with pytest.raises(MalformedEvent) as err:
        load_event(text, "<stdin>")
    assert err.value.exit_code == ExitCode.USAGE
