"""Events that trigger a rotation, parsed at the trust boundary (pydantic).

Understood:

- AWS Backup "Backup Job State Change" from ``aws.backup`` (AWS Backup Developer
  Guide, "Monitoring AWS Backup events using Amazon EventBridge",
  https://docs.aws.amazon.com/aws-backup/latest/devguide/eventbridge.html): the
  ``detail`` carries ``backupJobId``, ``state``, ``resourceType``, ``resourceArn``
  and, once ``COMPLETED``, the created recovery point. For an EC2 backup the
  recovery point is an AMI (``arn:aws:ec2:REGION::image/ami-...``, "Amazon EC2
  backups", devguide/ec2-backups.html). The image is read from
  ``detail.createdResourceArn`` (or ``recoveryPointArn``), else from an image ARN
  in ``resources``; when the event names none, the caller asks DescribeBackupJob
  for the job's ``RecoveryPointArn``.
- EC2 Image Builder "EC2 Image Builder Image State Change" from
  ``aws.imagebuilder`` (EventBridge events reference, events-ref-imagebuilder.html;
  ``detail.state.status`` takes the ImageState values of the Image Builder API
  reference): with status ``AVAILABLE`` the image build version ARN is
  ``resources[0]``; the AMI ids are not in the event and come from GetImage
  (``image.outputResources.amis[].image`` for this region).

Every other event, and every other state, is a :class:`Skipped` with a reason.
Events that are not EventBridge events at all raise :class:`MalformedEvent`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cfnops.ami.errors import MalformedEvent

__all__ = [
    "BACKUP_COMPLETED_PATTERN",
    "BACKUP_DETAIL_TYPE",
    "IMAGE_BUILDER_DETAIL_TYPE",
    "ImageEvent",
    "Skipped",
    "image_id_from_arn",
    "load_event",
    "parse_event",
]

BACKUP_SOURCE = "aws.backup"
BACKUP_DETAIL_TYPE = "Backup Job State Change"
IMAGE_BUILDER_SOURCE = "aws.imagebuilder"
IMAGE_BUILDER_DETAIL_TYPE = "EC2 Image Builder Image State Change"

# The EventBridge rule that feeds rotation (deploy/ami-rotation.yaml uses the same).
BACKUP_COMPLETED_PATTERN: dict[str, Any] = {
    "source": [BACKUP_SOURCE],
    "detail-type": [BACKUP_DETAIL_TYPE],
    "detail": {"state": ["COMPLETED"], "resourceType": ["EC2"]},
}

_IMAGE_ARN = re.compile(r"^arn:aws[a-z-]*:ec2:[a-z0-9-]*:\d*:image/(ami-[0-9a-f]+)$")
_IMAGE_ID = re.compile(r"^ami-[0-9a-f]{8,17}$")


class _Envelope(BaseModel):
    """The EventBridge envelope ("Amazon EventBridge events", eb-events-structure.html)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    version: str | None = None
    id: str | None = None
    detail_type: str = Field(alias="detail-type", min_length=1)
    source: str = Field(min_length=1)
    account: str | None = None
    time: str | None = None
    region: str | None = None
    resources: list[str] = Field(default_factory=list)
    detail: dict[str, Any]


class _BackupJobDetail(BaseModel):
    model_config = ConfigDict(extra="allow")

    backupJobId: str = Field(min_length=1)
    state: str = Field(min_length=1)
    resourceType: str | None = None
    resourceArn: str | None = None
    createdResourceArn: str | None = None
    recoveryPointArn: str | None = None
    statusMessage: str | None = None


class _ImageState(BaseModel):
    model_config = ConfigDict(extra="allow")

    status: str = Field(min_length=1)
    reason: str | None = None


class _ImageBuilderDetail(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    state: _ImageState
    previous_state: _ImageState | None = Field(default=None, alias="previous-state")


@dataclass(frozen=True)
class ImageEvent:
    """A finished image: ``image_id`` when the event names it, else how to find it."""

    kind: Literal["backup", "imagebuilder"]
    event_id: str | None
    region: str | None
    image_id: str | None = None
    backup_job_id: str | None = None
    image_build_version_arn: str | None = None
    source_resource: str | None = None


@dataclass(frozen=True)
class Skipped:
    """Nothing to do, and why (exit 0)."""

    reason: str
    event_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"outcome": "SKIPPED", "reason": self.reason, "eventId": self.event_id}


def image_id_from_arn(value: str) -> str | None:
    """``ami-...`` from an image ARN (or an AMI id itself); ``None`` otherwise."""
    if _IMAGE_ID.match(value):
        return value
    found = _IMAGE_ARN.match(value)
    return found.group(1) if found else None


def load_event(text: str, source: str = "<event>") -> dict[str, Any]:
    """Decode JSON text into an object, or raise :class:`MalformedEvent`."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MalformedEvent(source, "", f"not JSON ({exc.msg} at line {exc.lineno})") from exc
    if not isinstance(data, dict):
        raise MalformedEvent(source, "", f"expected a JSON object, got {type(data).__name__}")
    return data


def _pointer(loc: tuple[int | str, ...], prefix: str = "") -> str:
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in loc]
    return prefix + "".join(f"/{p}" for p in parts)


def _validate(model: type[BaseModel], data: Any, source: str, prefix: str = "") -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise MalformedEvent(source, _pointer(tuple(first["loc"]), prefix), first["msg"]) from exc


def parse_event(data: Any, source: str = "<event>") -> ImageEvent | Skipped:
    """The image an EventBridge event announces, or why it announces none."""
    if not isinstance(data, dict):
        raise MalformedEvent(source, "", f"expected a JSON object, got {type(data).__name__}")
    env: _Envelope = _validate(_Envelope, data, source)
    if env.source == BACKUP_SOURCE and env.detail_type == BACKUP_DETAIL_TYPE:
        return _backup(env, source)
    if env.source == IMAGE_BUILDER_SOURCE and env.detail_type == IMAGE_BUILDER_DETAIL_TYPE:
        return _image_builder(env, source)
    return Skipped(
        f"event {env.detail_type!r} from {env.source} is neither an AWS Backup "
        f"{BACKUP_DETAIL_TYPE!r} nor an {IMAGE_BUILDER_DETAIL_TYPE!r} event",
        env.id,
    )


def _backup(env: _Envelope, source: str) -> ImageEvent | Skipped:
    detail: _BackupJobDetail = _validate(_BackupJobDetail, env.detail, source, "/detail")
    job = detail.backupJobId
    if detail.state != "COMPLETED":
        return Skipped(f"backup job {job} is {detail.state}, not COMPLETED", env.id)
    if detail.resourceType is not None and detail.resourceType != "EC2":
        return Skipped(
            f"backup job {job} backed up a {detail.resourceType} resource, which makes no AMI",
            env.id,
        )
    image_id = None
    for candidate in (detail.createdResourceArn, detail.recoveryPointArn, *env.resources):
        if candidate and (image_id := image_id_from_arn(candidate)):
            break
    if image_id is None and detail.resourceType is None:
        return Skipped(f"backup job {job} names no EC2 resource and no image", env.id)
    return ImageEvent(
        kind="backup",
        event_id=env.id,
        region=env.region,
        image_id=image_id,
        backup_job_id=job,
        source_resource=detail.resourceArn,
    )


def _image_builder(env: _Envelope, source: str) -> ImageEvent | Skipped:
    detail: _ImageBuilderDetail = _validate(_ImageBuilderDetail, env.detail, source, "/detail")
    status = detail.state.status
    if status != "AVAILABLE":
        return Skipped(f"Image Builder image is {status}, not AVAILABLE", env.id)
    arns = [r for r in env.resources if ":image/" in r and r.startswith("arn:")]
    if not arns:
        raise MalformedEvent(source, "/resources", "no Image Builder image ARN in resources")
    return ImageEvent(
        kind="imagebuilder", event_id=env.id, region=env.region, image_build_version_arn=arns[0]
    )
