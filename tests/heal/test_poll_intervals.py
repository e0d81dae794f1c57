"""Heal poll intervals: whole seconds from 1 s up, or a fraction (0.1-1 s) for the sandbox."""

from __future__ import annotations

import re

import pytest
from aws_durable_execution_sdk_python.config import Duration

from cfnops.config import MIN_POLL_SECONDS, HealSettings, InvalidSettings, load_settings, validated
from cfnops.heal._event import parse_event
from cfnops.heal._steps import poll_delay, poll_until
from cfnops.heal.errors import InvalidHealEvent


def test_sub_second_intervals_are_accepted_from_arguments_and_the_event() -> None:
    settings = load_settings(heal={"drift_poll_seconds": 0.25, "busy_poll_seconds": 0.1})
    assert (settings.heal.drift_poll_seconds, settings.heal.busy_poll_seconds) == (0.25, 0.1)
    _, heal = parse_event({"StackName": "web", "Settings": {"changeset_poll_seconds": 0.5}})
    assert heal is not None and heal.changeset_poll_seconds == 0.5


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (0.05, f"greater than or equal to {MIN_POLL_SECONDS}"),
        (0, "greater than or equal to"),
        (-1, "greater than or equal to"),
        (1.5, "whole seconds"),
    ],
)
def test_out_of_range_intervals_are_refused(value: float, reason: str) -> None:
    with pytest.raises(InvalidSettings, match=f"execute_poll_seconds: .*{reason}"):
        validated(HealSettings, {"execute_poll_seconds": value})


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"execute_poll_seconds": 2.5}, "Settings.execute_poll_seconds: 2.5 s: from 1 s up"),
        ({"drift_max_attempts": 0}, "Settings.drift_max_attempts: must be a whole number"),
        ({"ignore": [{"resource_type": "AWS::S3::Bucket"}]}, "Settings.ignore.0.property_path"),
        ({"bogus": 1}, "Settings.bogus: unknown setting"),
    ],
)
def test_bad_settings_in_a_heal_event_name_the_setting(
    settings: dict[str, object], message: str
) -> None:
    with pytest.raises(InvalidHealEvent, match=re.escape(message)):
        parse_event({"StackName": "web", "Settings": settings})


def test_the_default_intervals_are_unchanged() -> None:
    heal = HealSettings()
    assert (
        heal.busy_poll_seconds,
        heal.drift_poll_seconds,
        heal.changeset_poll_seconds,
        heal.execute_poll_seconds,
    ) == (30, 30, 30, 60)


@pytest.mark.parametrize(("seconds", "expected"), [(0.1, 0.1), (0.5, 0.5), (1, 1), (30.0, 30)])
def test_poll_delay_keeps_a_fraction_and_whole_seconds_as_the_sdk_makes_them(
    seconds: float, expected: float
) -> None:
    delay = poll_delay(seconds)
    assert delay.to_seconds() == expected
    if seconds >= 1:
        assert delay == Duration.from_seconds(seconds)


def test_poll_until_waits_the_configured_fraction_until_done_or_out_of_attempts() -> None:
    strategy = poll_until(lambda s: s["done"], 0.2, max_attempts=3)
    waiting = strategy({"done": False}, 1)
    assert waiting.should_continue and waiting.delay_seconds == 0.2
    assert not strategy({"done": True}, 1).should_continue
    assert not strategy({"done": False}, 3).should_continue
