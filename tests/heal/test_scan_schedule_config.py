"""Bad [drift_scan.schedules.*] settings: exit 2 naming the file and key, nothing started."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfnops.cli.main import run

GOOD = 'schedule = "cron(0 3 * * ? *)"\ntimezone = "Asia/Tokyo"\n'


def _config(tmp_path: Path, entry: str, notify: str = "console = false") -> Path:
    path = tmp_path / "cfnops.toml"
    path.write_text(
        f'database_url = "sqlite:///{tmp_path}/db.sqlite"\n'
        f"[notify]\n{notify}\n[drift_scan.schedules.nightly]\n{entry}"
    )
    return path


CASES = [
    (
        'schedule = "cron(0 3 * * *)"\n',
        "drift_scan.schedules.nightly.schedule: invalid schedule expression "
        "'cron(0 3 * * *)': cron needs six fields",
    ),
    (
        'schedule = "rate(0 minutes)"\n',
        "drift_scan.schedules.nightly.schedule: invalid schedule expression",
    ),
    (
        GOOD.replace("Asia/Tokyo", "Mars/Olympus"),
        "drift_scan.schedules.nightly.schedule: invalid schedule expression "
        "'cron(0 3 * * ? *)': unknown time zone 'Mars/Olympus'",
    ),
    (
        GOOD + 'notify = ["pagerduty"]\n',
        "drift_scan.schedules.nightly.notify.0: 'pagerduty' is not allowed: "
        "give one of console, sns, slack",
    ),
    (
        GOOD + 'notify = ["sns"]\n',
        "drift_scan.schedules.nightly.notify: channel 'sns' is not enabled in [notify] "
        "(set notify.sns_topic_arn)",
    ),
    (
        GOOD + 'regions = ["eu-west-9"]\n',
        "drift_scan.schedules.nightly.regions: unknown region 'eu-west-9'",
    ),
    (
        GOOD + 'accounts = ["1234"]\n',
        "drift_scan.schedules.nightly.accounts: 1234: an account id is 12 digits",
    ),
    (
        GOOD + "organization = true\n",
        "drift_scan.schedules.nightly.role_name: needed to enter the other accounts",
    ),
    (GOOD + "every = 5\n", "drift_scan.schedules.nightly.every: unknown setting"),
]
IDS = [
    "cron-fields",
    "rate-zero",
    "timezone",
    "unknown-notifier",
    "channel-off",
    "region",
    "account",
    "org-no-role",
    "unknown-key",
]


@pytest.mark.parametrize("command", [["worker"], ["drift", "schedules"]], ids=["worker", "list"])
@pytest.mark.parametrize(("entry", "message"), CASES, ids=IDS)
def test_bad_schedule_config_exits_2_naming_the_key(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
    entry: str,
    message: str,
) -> None:
    path = _config(tmp_path, entry)
    assert run(["--config", str(path), *command]) == 2
    err = capsys.readouterr().err
    assert f"invalid configuration in {path}: {message}" in " ".join(err.split()), err
    assert not (tmp_path / "db.sqlite").exists()  # no engine was started


def test_unknown_schedule_and_mixed_flags_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _config(tmp_path, GOOD)
    assert run(["--config", str(path), "drift", "scan", "--schedule", "weekly"]) == 2
    assert "no drift-scan schedule named 'weekly' (configured: nightly)" in capsys.readouterr().err
    args = ["--config", str(path), "drift", "scan", "--schedule", "nightly", "--regions", "x"]
    assert run(args) == 2
    assert "--schedule: the schedule's settings say what" in capsys.readouterr().err
    assert not (tmp_path / "db.sqlite").exists()


def test_schedules_listing_shows_the_next_fire_in_the_schedule_time_zone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    path = _config(tmp_path, GOOD + "enabled = true\n")
    assert run(["--config", str(path), "-o", "json", "drift", "schedules"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["schedules"]
    assert row["name"] == "nightly" and row["nextFire"].endswith("T03:00:00+09:00")
    assert row["lastRun"] is None and row["notify"] == "all"


def test_the_example_in_heal_md_is_a_valid_schedule(tmp_path: Path) -> None:
    from cfnops.config import load_settings
    from cfnops.heal import plan_drift_schedules

    page = (Path(__file__).resolve().parents[2] / "docs" / "heal.md").read_text()
    start = page.index("```toml\n[drift_scan.schedules.nightly]")
    block = page[start + len("```toml\n") : page.index("```", start + 7)]
    block = block.replace("/var/lib/cfnops/drift", str(tmp_path / "drift"))
    path = tmp_path / "cfnops.toml"
    notify = '[notify]\nsns_topic_arn = "arn:aws:sns:us-east-1:123456789012:ops"\n'
    path.write_text(notify + 'slack_webhook_ref = "ssm:/ops/slack"\n' + block)
    (plan,) = plan_drift_schedules(load_settings(path), str(path))
    assert plan.name == "nightly" and plan.config.role_name == "DriftScan"
    assert plan.config.notify == ("slack", "sns") and plan.schedule.timezone == "Asia/Tokyo"
