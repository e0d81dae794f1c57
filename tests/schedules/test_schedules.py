"""EventBridge cron/rate expressions with time zones (pure)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from cfnops.schedules import InvalidSchedule, parse_schedule

T0 = datetime(2026, 11, 20, 12, 30, tzinfo=UTC)  # a Friday


@pytest.mark.parametrize(
    ("expression", "timezone", "expected"),
    [
        ("cron(0 2 * * ? *)", "Asia/Tokyo", datetime(2026, 11, 20, 17, 0, tzinfo=UTC)),
        ("cron(0/15 * * * ? *)", "UTC", datetime(2026, 11, 20, 12, 45, tzinfo=UTC)),
        ("cron(0 9 ? * MON-FRI *)", "UTC", datetime(2026, 11, 23, 9, 0, tzinfo=UTC)),
        ("cron(0 9 ? * 2 *)", "UTC", datetime(2026, 11, 23, 9, 0, tzinfo=UTC)),  # 2 = MON
        ("cron(30 23 L * ? *)", "UTC", datetime(2026, 11, 30, 23, 30, tzinfo=UTC)),
        ("cron(0 0 1 JAN ? 2027)", "UTC", datetime(2027, 1, 1, 0, 0, tzinfo=UTC)),
        ("rate(5 minutes)", "UTC", T0 + timedelta(minutes=5)),
        ("rate(1 day)", "Asia/Tokyo", T0 + timedelta(days=1)),
    ],
    ids=[
        "tokyo-02",
        "every-15-min",
        "weekdays",
        "numeric-dow",
        "last-day",
        "year",
        "rate-minutes",
        "rate-day",
    ],
)
def test_next_fire_time(expression: str, timezone: str, expected: datetime) -> None:
    assert parse_schedule(expression, timezone).next_after(T0) == expected


def test_daylight_saving_time_is_followed() -> None:
    # 09:00 in New York is 14:00 UTC in winter and 13:00 UTC in summer.
    schedule = parse_schedule("cron(0 9 * * ? *)", "America/New_York")
    assert schedule.next_after(datetime(2026, 1, 10, tzinfo=UTC)).hour == 14
    assert schedule.next_after(datetime(2026, 7, 10, tzinfo=UTC)).hour == 13


@pytest.mark.parametrize(
    "expression",
    [
        "cron(0 9 * * * *)",
        "cron(0 9 ? * ? *)",
        "cron(0 9 * *)",
        "cron(61 9 * * ? *)",
        "rate(1 minutes)",
        "rate(5 minute)",
        "rate(0 hours)",
        "every day",
        "cron(0 9 ? * 2#1 *)",
    ],
)
def test_invalid_expressions_are_refused(expression: str) -> None:
    with pytest.raises(InvalidSchedule):
        parse_schedule(expression)


def test_unknown_time_zone() -> None:
    with pytest.raises(InvalidSchedule, match="time zone"):
        parse_schedule("rate(1 hour)", "Mars/Olympus")
