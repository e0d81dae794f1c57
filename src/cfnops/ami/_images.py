"""AMI facts from EC2 (and Image Builder / Backup look-ups): the adapter for images.

An AMI is usable once its state is ``available`` (EC2 User Guide, "AMI
lifecycle"; DescribeImages ``State``: pending | available | invalid |
deregistered | transient | failed | error | disabled). A freshly created image
may not be visible yet (eventual consistency), so "not found" counts as not yet
available until the bounded wait ends.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from cfnops.ami._events import ImageEvent, image_id_from_arn
from cfnops.ami.errors import ImageNotAvailable, IncompatibleImage
from cfnops.aws import error_code

if TYPE_CHECKING:
    from mypy_boto3_ec2 import EC2Client

    from cfnops.aws import AwsClients

__all__ = [
    "ImageFacts",
    "compatibility_differences",
    "describe_image",
    "resolve_event_images",
    "wait_until_available",
]

_FINAL_BAD = frozenset({"invalid", "deregistered", "failed", "error", "disabled"})


@dataclass(frozen=True)
class ImageFacts:
    """What rotation needs to know about one AMI."""

    image_id: str
    state: str  # EC2 State, or "missing"
    architecture: str | None = None
    virtualization_type: str | None = None
    tags: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "ImageId": self.image_id,
            "State": self.state,
            "Architecture": self.architecture,
            "VirtualizationType": self.virtualization_type,
            "Tags": dict(self.tags),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ImageFacts:
        return cls(
            image_id=str(data["ImageId"]),
            state=str(data["State"]),
            architecture=data.get("Architecture"),
            virtualization_type=data.get("VirtualizationType"),
            tags={str(k): str(v) for k, v in (data.get("Tags") or {}).items()},
        )


def describe_image(ec2: EC2Client, image_id: str) -> ImageFacts:
    """One DescribeImages call; a missing image is ``state="missing"``."""
    try:
        images = ec2.describe_images(ImageIds=[image_id]).get("Images", [])
    except ClientError as exc:
        if error_code(exc).startswith("InvalidAMIID"):
            return ImageFacts(image_id, "missing")
        raise
    if not images:
        return ImageFacts(image_id, "missing")
    image = images[0]
    return ImageFacts(
        image_id=image_id,
        state=str(image.get("State", "unknown")),
        architecture=image.get("Architecture"),
        virtualization_type=image.get("VirtualizationType"),
        tags={t["Key"]: t["Value"] for t in image.get("Tags", []) or []},
    )


def wait_until_available(
    ec2: EC2Client,
    image_id: str,
    *,
    wait_seconds: float,
    poll_seconds: float,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> ImageFacts:
    """Poll until the AMI is ``available``; :class:`ImageNotAvailable` otherwise."""
    started = clock()
    while True:
        facts = describe_image(ec2, image_id)
        if facts.state == "available":
            return facts
        waited = clock() - started
        if facts.state in _FINAL_BAD or waited >= wait_seconds:
            raise ImageNotAvailable(image_id, facts.state, round(waited, 1))
        sleep(min(poll_seconds, max(0.0, wait_seconds - waited)) or poll_seconds)


def compatibility_differences(new: ImageFacts, current: ImageFacts) -> list[str]:
    """Architecture / virtualisation type differences (unknown values are not compared)."""
    out: list[str] = []
    for label, a, b in (
        ("architecture", new.architecture, current.architecture),
        ("virtualization type", new.virtualization_type, current.virtualization_type),
    ):
        if a and b and a != b:
            out.append(f"{label} {a} ≠ {b}")
    return out


def check_compatible(ec2: EC2Client, target: str, new: ImageFacts, current_id: str | None) -> None:
    """Raise :class:`IncompatibleImage` when the image in use is known and differs."""
    if not current_id or not image_id_from_arn(current_id) or current_id == new.image_id:
        return
    current = describe_image(ec2, current_id)
    if current.state == "missing":
        return  # the old image is gone: nothing to compare with
    differences = compatibility_differences(new, current)
    if differences:
        raise IncompatibleImage(target, new.image_id, current_id, differences)


def resolve_event_images(clients: AwsClients, event: ImageEvent) -> list[str]:
    """The AMI ids an event stands for (asking Backup / Image Builder when needed)."""
    if event.image_id:
        return [event.image_id]
    if event.kind == "backup" and event.backup_job_id:
        job = clients.client("backup").describe_backup_job(BackupJobId=event.backup_job_id)
        found = image_id_from_arn(str(job.get("RecoveryPointArn") or ""))
        return [found] if found else []
    if event.kind == "imagebuilder" and event.image_build_version_arn:
        # Image Builder API reference, GetImage: image.outputResources.amis[] per region.
        reply = clients.client("imagebuilder").get_image(
            imageBuildVersionArn=event.image_build_version_arn
        )
        amis = reply.get("image", {}).get("outputResources", {}).get("amis", []) or []
        region = event.region or clients.region
        return [
            str(a["image"])
            for a in amis
            if a.get("image") and (not a.get("region") or a.get("region") == region)
        ]
    return []
