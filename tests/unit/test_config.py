from __future__ import annotations

from pathlib import Path

import pytest

from cfnops.config import ConfigError, default_state_dir, load_settings
from cfnops.errors import ExitCode


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key in list(__import__("os").environ):
        if key.startswith("CFNOPS_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


def test_defaults_match_the_documented_values(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    s = load_settings()
    assert s.database_url == f"sqlite:///{tmp_path / 'state' / 'cfnops' / 'cfnops.sqlite'}"
    assert (
        s.heal.drift_poll_seconds,
        s.heal.changeset_poll_seconds,
        s.heal.execute_poll_seconds,
    ) == (30, 30, 60)
    assert (
        s.heal.drift_max_attempts,
        s.heal.changeset_max_attempts,
        s.heal.execute_max_attempts,
    ) == (10, 10, 10)
    assert s.aws.retry_mode == "adaptive"


def test_state_dir_falls_back_to_local_state() -> None:
    assert default_state_dir({}) == Path.home() / ".local" / "state" / "cfnops"
    assert default_state_dir({"XDG_STATE_HOME": "/x"}) == Path("/x/cfnops")


def test_argument_beats_environment_beats_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "cfnops.toml").write_text(
        "[heal]\ndrift_poll_seconds = 5\nchangeset_poll_seconds = 6\n"
        '[notify]\nsns_topic_arn = "arn:aws:sns:us-east-1:1:t"\n'
    )
    monkeypatch.setenv("CFNOPS_HEAL__DRIFT_POLL_SECONDS", "7")
    s = load_settings()
    assert (s.heal.drift_poll_seconds, s.heal.changeset_poll_seconds) == (7, 6)
    assert s.notify.sns_topic_arn == "arn:aws:sns:us-east-1:1:t"
    s = load_settings(heal={"drift_poll_seconds": 9})
    assert s.heal.drift_poll_seconds == 9


def test_explicit_config_file(tmp_path: Path) -> None:
    path = tmp_path / "other.toml"
    path.write_text('database_url = "postgresql://ops@db:5432/cfnops"\n')
    assert load_settings(path).database_url == "postgresql://ops@db:5432/cfnops"


@pytest.mark.parametrize(
    ("text", "key", "reason"),
    [
        (
            "[heal]\ndrift_poll_seconds = 0\n",
            "heal.drift_poll_seconds",
            "greater than or equal to 0.1",
        ),
        (
            "[heal]\nexecute_poll_seconds = 2.5\n",
            "heal.execute_poll_seconds",
            "whole seconds (AWS Lambda durable functions wait whole seconds); use 2 or 3",
        ),
        ("[heal]\nbogus = 1\n", "heal.bogus", "unknown setting"),
        ('database_url = "mysql://x"\n', "database_url", "sqlite:///PATH"),
        ('[notify]\nslack_webhook_ref = "vault:x"\n', "notify.slack_webhook_ref", "ssm:"),
        ("[heal\n", "(syntax)", ""),
        (
            'poll_profile = "slow"\n',
            "poll_profile",
            "'slow' is not allowed: give one of auto, aws, fast",
        ),
        ("[worker]\nconcurrency = 0\n", "worker.concurrency", "greater than or equal to 1 (got 0)"),
        ("[worker]\nconcurrency = 2.5\n", "worker.concurrency", "must be a whole number (got 2.5)"),
        (
            "[drift_scan.schedules.nightly]\nschedule = 'rate(1 day)'\nconcurrency = 300\n",
            "drift_scan.schedules.nightly.concurrency",
            "less than or equal to 256 (got 300)",
        ),
        (
            "[drift_scan.schedules.nightly]\nschedule = 'rate(1 day)'\nnotify = ['pager']\n",
            "drift_scan.schedules.nightly.notify.0",
            "'pager' is not allowed: give one of console, sns, slack",
        ),
        (
            "[drift_scan.schedules.nightly]\nenabled = true\n",
            "drift_scan.schedules.nightly.schedule",
            "required",
        ),
    ],
    ids=[
        "too-small",
        "fraction-above-1s",
        "unknown-key",
        "bad-url",
        "bad-secret-ref",
        "toml-syntax",
        "not-a-choice",
        "below-minimum",
        "fraction-for-whole-number",
        "table-entry-named-by-key",
        "list-item-named-by-position",
        "missing-required",
    ],
)
def test_invalid_file_names_file_key_and_reason(
    tmp_path: Path, text: str, key: str, reason: str
) -> None:
    path = tmp_path / "cfnops.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_settings()
    err = info.value
    assert err.source == str(path) and err.key == key and reason in err.reason
    assert err.exit_code == ExitCode.USAGE


def test_invalid_environment_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CFNOPS_WORKER__CONCURRENCY", "many")
    with pytest.raises(ConfigError) as info:
        load_settings()
    assert info.value.key == "worker.concurrency" and "environment" in info.value.source


def test_environment_text_converts_and_a_bad_flag_names_the_arguments(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CFNOPS_HEAL__ATTRIBUTION", "no")
    monkeypatch.setenv("CFNOPS_WORKER__QUEUE_POLL_SECONDS", "0.5")
    s = load_settings()
    assert s.heal.attribution is False and s.worker.queue_poll_seconds == 0.5
    monkeypatch.setenv("CFNOPS_HEAL__ATTRIBUTION", "maybe")
    with pytest.raises(ConfigError) as info:
        load_settings()
    assert info.value.source == "the environment (CFNOPS_HEAL__ATTRIBUTION)"
    assert info.value.reason == "must be true or false (got 'maybe')"
    monkeypatch.delenv("CFNOPS_HEAL__ATTRIBUTION")
    with pytest.raises(ConfigError) as info:
        load_settings(aws={"max_attempts": 500})
    assert info.value.source == "command-line arguments" and info.value.key == "aws.max_attempts"
    assert info.value.reason == "must be a whole number less than or equal to 100 (got 500)"


def test_settings_are_frozen_hashable_and_copied_with_replace() -> None:
    s = load_settings(aws={"region": "eu-west-1"})
    with pytest.raises(AttributeError):
        s.aws.region = "us-east-1"  # type: ignore[misc]
    assert hash(s.aws) == hash(load_settings(aws={"region": "eu-west-1"}).aws)
    moved = s.replace(aws=s.aws.replace(region="us-east-1"))
    assert (moved.aws.region, s.aws.region, moved.heal) == ("us-east-1", "eu-west-1", s.heal)


def test_missing_explicit_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_settings(tmp_path / "nope.toml")


def test_webhook_url_is_secret() -> None:
    s = load_settings(notify={"slack_webhook_url": "https://hooks.slack.com/services/T/B/secret"})
    assert "secret" not in repr(s) and "secret" not in str(s.notify)


@pytest.mark.parametrize(
    "url",
    [
        "http://hooks.slack.com/services/T/B/x",
        "ftp://example.com/x",
        "hooks.slack.com/x",
        "https://",
    ],
)
def test_webhook_url_must_be_https(url: str) -> None:
    with pytest.raises(ConfigError) as bad:
        load_settings(notify={"slack_webhook_url": url})
    assert "notify.slack_webhook_url" in bad.value.message
    assert url not in bad.value.message  # the secret is not echoed


def test_a_secret_of_the_wrong_type_is_not_echoed(tmp_path: Path) -> None:
    (tmp_path / "cfnops.toml").write_text("[notify]\npagerduty_routing_key = 12345678\n")
    with pytest.raises(ConfigError) as bad:
        load_settings()
    assert bad.value.key == "notify.pagerduty_routing_key" and "12345678" not in str(bad.value)
    assert bad.value.reason == "must be text"


def test_loopback_http_webhook_is_accepted_for_local_receivers() -> None:
    s = load_settings(notify={"slack_webhook_url": "http://127.0.0.1:8080/hook"})
    assert s.notify.slack_webhook_url is not None


def test_docs_auto_poll_profile_names_every_endpoint_source_it_honours(tmp_path: Path) -> None:
    """docs/configuration.md's `auto` row says where the endpoint is looked for; each of
    those places does make the profile fast (and the ignore switch turns them off)."""
    from cfnops.config import uses_loopback_endpoint

    docs = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    (row,) = [line for line in docs.splitlines() if line.startswith("| `auto` (default)")]
    sandbox = "http://127.0.0.1:5000"
    aws_config = tmp_path / "config"
    aws_config.write_text(f"[default]\nendpoint_url = {sandbox}\n")
    sources = {
        "--endpoint-url": ({}, {"aws": {"endpoint_url": sandbox}}),
        "AWS_ENDPOINT_URL": ({"AWS_ENDPOINT_URL": sandbox}, {}),
        "AWS_ENDPOINT_URL_<SERVICE>": ({"AWS_ENDPOINT_URL_SSM": sandbox}, {}),
        "shared AWS config file": ({"AWS_CONFIG_FILE": str(aws_config)}, {}),
    }
    for name, (environ, kwargs) in sources.items():
        assert name in row, name
        settings = load_settings(**kwargs)  # type: ignore[arg-type]
        base = {"AWS_CONFIG_FILE": str(tmp_path / "none")}
        assert uses_loopback_endpoint(settings, {**base, **environ}), name
    assert "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS" in row
    ignored = {"AWS_ENDPOINT_URL": sandbox, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true"}
    assert not uses_loopback_endpoint(load_settings(), ignored)
