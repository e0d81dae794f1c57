"""Image look-ups: bounded wait for ``available``, compatibility, Image Builder resolution."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from cfnops.ami import ImageEvent, ImageFacts, wait_until_available
from cfnops.ami._images import compatibility_differences, resolve_event_images
from cfnops.ami.errors import ImageNotAvailable
from cfnops.aws import AwsClients
from cfnops.config import AwsSettings
from cfnops.errors import ExitCode


class FakeEc2:
    """DescribeImages answering the given states in turn (the last one repeats)."""

    def __init__(self, *states: str) -> None:
        self.states = list(states)
        self.calls = 0

    def describe_images(self, ImageIds: list[str]) -> dict[str, Any]:
        state = self.states[min(self.calls, len(self.states) - 1)]
        self.calls += 1
        if state == "missing":
            return {"Images": []}
        return {"Images": [{"ImageId": ImageIds[0], "State": state, "Architecture": "x86_64"}]}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_waits_through_missing_and_pending() -> None:
    ec2, clock = FakeEc2("missing", "pending", "available"), Clock()
    facts = wait_until_available(
        ec2, "ami-1", wait_seconds=60, poll_seconds=5, sleep=clock.sleep, clock=lambda: clock.now
    )
    assert facts.state == "available" and ec2.calls == 3 and clock.sleeps == [5, 5]


def test_bounded_wait_then_error() -> None:
    ec2, clock = FakeEc2("pending"), Clock()
    with pytest.raises(ImageNotAvailable) as err:
        wait_until_available(
            ec2,
            "ami-1",
            wait_seconds=12,
            poll_seconds=5,
            sleep=clock.sleep,
            clock=lambda: clock.now,
        )
    assert sum(clock.sleeps) == 12  # never sleeps past the bound
    assert err.value.state == "pending" and err.value.exit_code == ExitCode.FAILED
    assert "ami-1 is pending after waiting 12 s" in str(err.value)


def test_a_failed_image_ends_the_wait_at_once() -> None:
    ec2, clock = FakeEc2("failed"), Clock()
    with pytest.raises(ImageNotAvailable, match="failed"):
        wait_until_available(
            ec2,
            "ami-1",
            wait_seconds=600,
            poll_seconds=5,
            sleep=clock.sleep,
            clock=lambda: clock.now,
        )
    assert clock.sleeps == []


def test_compatibility_differences() -> None:
    a = ImageFacts("ami-a", "available", "x86_64", "hvm")
    assert compatibility_differences(a, ImageFacts("ami-b", "available", "x86_64", "hvm")) == []
    assert compatibility_differences(a, ImageFacts("ami-b", "available", "arm64", "hvm")) == [
        "architecture x86_64 ≠ arm64"
    ]
    assert compatibility_differences(a, ImageFacts("ami-b", "available", None, "paravirtual")) == [
        "virtualization type hvm ≠ paravirtual"
    ]


def test_image_builder_amis_come_from_get_image_for_this_region() -> None:
    session = boto3.session.Session(
        aws_access_key_id="x", aws_secret_access_key="y", region_name="us-east-1"
    )
    client = session.client("imagebuilder", region_name="us-east-1")
    arn = "arn:aws:imagebuilder:us-east-1:123456789012:image/web/1.0.0/3"
    with Stubber(client) as stub:
        stub.add_response(
            "get_image",
            {
                "image": {
                    "arn": arn,
                    "outputResources": {
                        "amis": [
                            {"region": "eu-west-1", "image": "ami-0000000000000000e"},
                            {"region": "us-east-1", "image": "ami-0000000000000000a"},
                        ]
                    },
                }
            },
            {"imageBuildVersionArn": arn},
        )
        clients = AwsClients(AwsSettings(region="us-east-1"), clients={"imagebuilder": client})
        event = ImageEvent("imagebuilder", "id", "us-east-1", image_build_version_arn=arn)
        assert resolve_event_images(clients, event) == ["ami-0000000000000000a"]
        stub.assert_no_pending_responses()
