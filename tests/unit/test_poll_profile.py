"""``poll_profile``: sandbox runs poll every second unless told otherwise."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cfnops.config import ConfigError, is_loopback_endpoint, load_settings


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key in list(os.environ):
        if key.startswith(("CFNOPS_", "AWS_ENDPOINT_URL", "AWS_PROFILE", "AWS_IGNORE_CONFIG")):
            monkeypatch.delenv(key)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.chdir(tmp_path)


def _polls(**overrides: object) -> tuple[float, ...]:
    s = load_settings(**overrides)
    h = s.heal
    return (
        h.busy_poll_seconds,
        h.drift_poll_seconds,
        h.changeset_poll_seconds,
        h.execute_poll_seconds,
        s.ami.poll_seconds,
    )


def test_aws_endpoint_keeps_aws_sized_polls() -> None:
    assert _polls() == (30, 30, 30, 60, 15.0)
    assert _polls(aws={"endpoint_url": "https://cloudformation.eu-west-1.amazonaws.com"}) == (
        30,
        30,
        30,
        60,
        15.0,
    )


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:5000", "http://localhost:5000", "http://[::1]:5000"]
)
def test_loopback_endpoint_polls_every_second(url: str) -> None:
    assert _polls(aws={"endpoint_url": url}) == (1, 1, 1, 1, 1.0)


def test_fast_profile_from_environment_without_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CFNOPS_POLL_PROFILE", "fast")
    assert _polls() == (1, 1, 1, 1, 1.0)


def test_aws_profile_keeps_polls_on_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CFNOPS_POLL_PROFILE", "aws")
    assert _polls(aws={"endpoint_url": "http://127.0.0.1:5000"}) == (30, 30, 30, 60, 15.0)


def test_explicit_interval_wins_over_the_fast_profile(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "cfnops.toml").write_text(
        'poll_profile = "fast"\n[heal]\nexecute_poll_seconds = 9\n'
    )
    monkeypatch.setenv("CFNOPS_AMI__POLL_SECONDS", "4")
    assert _polls() == (1, 1, 1, 9, 4.0)


def test_unknown_profile_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CFNOPS_POLL_PROFILE", "slow")
    with pytest.raises(ConfigError, match="poll_profile"):
        load_settings()


def test_loopback_detection() -> None:
    assert is_loopback_endpoint("http://127.0.0.2:9")
    assert not is_loopback_endpoint("http://10.0.0.1:5000")
    assert not is_loopback_endpoint("http://sandbox.example:5000")
    assert not is_loopback_endpoint(None)


# The exports `cfnops sandbox up` prints name the endpoint through botocore's own
# variables; every way of naming a loopback endpoint gets the same fast polls.
@pytest.mark.parametrize(
    "env",
    [
        {"AWS_ENDPOINT_URL": "http://127.0.0.1:5000"},
        {"AWS_ENDPOINT_URL_CLOUDFORMATION": "http://localhost:5000"},
        {
            "AWS_ENDPOINT_URL_CLOUDFORMATION": "http://127.0.0.1:5000",
            "AWS_ENDPOINT_URL_SSM": "http://127.0.0.1:5000",
        },
    ],
    ids=["AWS_ENDPOINT_URL", "one-service", "two-services"],
)
def test_loopback_named_by_botocore_variables_polls_every_second(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str]
) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert _polls() == (1, 1, 1, 1, 1.0)


def test_loopback_in_the_aws_config_file_polls_every_second(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config = tmp_path / "aws-config"
    config.write_text(
        "[profile sandbox]\nendpoint_url = http://127.0.0.1:5000\n"
        "[profile svc]\nservices = local\n"
        "[services local]\ncloudformation =\n  endpoint_url = http://localhost:5000\n"
    )
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    assert _polls(aws={"profile": "sandbox"}) == (1, 1, 1, 1, 1.0)
    assert _polls(aws={"profile": "svc"}) == (1, 1, 1, 1, 1.0)
    assert _polls(aws={"profile": "missing"}) == (30, 30, 30, 60, 15.0)


def test_remote_or_mixed_endpoints_keep_aws_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "AWS_ENDPOINT_URL", "https://vpce-1.cloudformation.eu-west-1.vpce.amazonaws.com"
    )
    assert _polls() == (30, 30, 30, 60, 15.0)
    monkeypatch.delenv("AWS_ENDPOINT_URL")
    monkeypatch.setenv("AWS_ENDPOINT_URL_CLOUDFORMATION", "http://127.0.0.1:5000")
    monkeypatch.setenv("AWS_ENDPOINT_URL_SSM", "https://ssm.eu-west-1.amazonaws.com")
    assert _polls() == (30, 30, 30, 60, 15.0)


def test_ignore_configured_endpoints_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:5000")
    monkeypatch.setenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true")
    assert _polls() == (30, 30, 30, 60, 15.0)


def test_the_flag_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:5000")
    assert _polls(aws={"endpoint_url": "https://cloudformation.us-east-1.amazonaws.com"}) == (
        30,
        30,
        30,
        60,
        15.0,
    )
