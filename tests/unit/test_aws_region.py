"""``AWS_REGION`` is honoured ahead of ``AWS_DEFAULT_REGION`` (as the AWS SDKs and CLI v2 do)."""

from __future__ import annotations

import pytest

from cfnops.aws import AwsClients, AwsSetupError
from cfnops.config import AwsSettings


@pytest.fixture(autouse=True)
def _no_profile(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent/config")


def test_aws_region_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_REGION", "eu-west-3")
    assert AwsClients(AwsSettings()).region == "eu-west-3"


def test_aws_region_wins_over_aws_default_region(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_REGION", "eu-west-3")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-west-2")
    assert AwsClients(AwsSettings()).region == "eu-west-3"


def test_aws_default_region_still_works(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-west-2")
    assert AwsClients(AwsSettings()).region == "us-west-2"


def test_explicit_region_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_REGION", "eu-west-3")
    assert AwsClients(AwsSettings(region="ap-northeast-1")).region == "ap-northeast-1"


def test_bad_aws_region_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_REGION", "mars-1")
    with pytest.raises(AwsSetupError, match="mars-1"):
        AwsClients(AwsSettings()).region  # noqa: B018
