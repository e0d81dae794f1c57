"""Business calendars and day rules (pure): month ends, year end, a leap day, in Tokyo."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from cfnops.cli.main import run
from cfnops.durable import Engine
from cfnops.jobs import JobStore
from cfnops.jobs._calendar import (
    Calendar,
    CalendarSchedule,
    load_calendar,
    parse_day_rule,
)
from cfnops.jobs.errors import InvalidCalendar, InvalidSchedule
from cfnops.schedules import parse_schedule

TOKYO = ZoneInfo("Asia/Tokyo")
CALENDAR = """
timezone = "Asia/Tokyo"
closed_weekdays = ["SAT", "SUN"]
# a Monday at a month end, New Year's Eve (Fri), a Monday after New Year, the leap day (Tue)
closed = [2026-11-30, 2027-12-31, "2028-01-03", 2028-02-29]
open = [2028-01-01]   # a Saturday worked
"""


@pytest.fixture
def calendar(tmp_path: Path) -> Calendar:
    path = tmp_path / "tokyo-office.toml"
    path.write_text(CALENDAR)
    return load_calendar(path)


def _tokyo(y: int, m: int, d: int, h: int = 9, minute: int = 0) -> datetime:
    return datetime(y, m, d, h, minute, tzinfo=TOKYO)


def _fires(cal: Calendar, cron: str, rule: str, after: datetime, n: int) -> list[datetime]:
    sched = CalendarSchedule(parse_schedule(cron, "Asia/Tokyo"), cal, parse_day_rule(rule))
    out = []
    for _ in range(n):
        after = sched.next_after(after)
        out.append(after.astimezone(TOKYO))
    return out


def test_the_calendar_file(calendar: Calendar) -> None:
    assert calendar.name == "tokyo-office"
    assert calendar.timezone == "Asia/Tokyo"
    assert not calendar.is_open(date(2028, 2, 29))
    assert calendar.is_open(date(2028, 1, 1))  # a Saturday, listed open
    assert not calendar.is_open(date(2028, 1, 8))  # a Saturday
    assert Calendar.from_json(calendar.to_json()) == calendar


def test_open_days_only_across_the_year_end_judged_in_tokyo(calendar: Calendar) -> None:
    # 2027-12-30T15:30Z is already Friday 31 December in Tokyo (closed)
    after = datetime(2027, 12, 30, 15, 30, tzinfo=UTC)
    fires = _fires(calendar, "cron(0 9 * * ? *)", "open", after, 3)
    assert fires == [_tokyo(2028, 1, 1), _tokyo(2028, 1, 4), _tokyo(2028, 1, 5)]
    assert fires[0].astimezone(UTC) == datetime(2028, 1, 1, 0, 0, tzinfo=UTC)


def test_next_open_day_across_a_month_end_and_several_closed_days_fire_once(
    calendar: Calendar,
) -> None:
    monthly = _fires(calendar, "cron(0 9 30 * ? *)", "next-open", _tokyo(2026, 11, 1), 4)
    # Nov 30 (closed Monday) → Tue Dec 1; Dec 30 (Wed); Jan 30 2027 (Sat) → Mon Feb 1;
    # February has no 30th; Mar 30 (Tue)
    assert monthly == [_tokyo(2026, 12, 1), _tokyo(2026, 12, 30), _tokyo(2027, 2, 1),
                       _tokyo(2027, 3, 30)]  # fmt: skip
    daily = _fires(calendar, "cron(0 9 * * ? *)", "next-open", _tokyo(2027, 12, 30), 3)
    # Dec 31 (closed) and Jan 1 (open) both fire on Jan 1, once; Jan 2, 3 and 4 on the 4th
    assert daily == [_tokyo(2028, 1, 1), _tokyo(2028, 1, 4), _tokyo(2028, 1, 5)]


def test_a_closed_day_before_now_shifts_past_now(calendar: Calendar) -> None:
    # Saturday 9:00 moved to Monday 9:00: asked on Sunday, the next fire is Monday
    fires = _fires(calendar, "cron(0 9 ? * SAT *)", "next-open", _tokyo(2026, 11, 22, 12), 1)
    assert fires == [_tokyo(2026, 11, 23)]


def test_previous_open_day_across_the_year_end(calendar: Calendar) -> None:
    fires = _fires(calendar, "cron(0 9 31 12 ? *)", "previous-open", _tokyo(2027, 12, 1), 2)
    assert fires == [_tokyo(2027, 12, 30), _tokyo(2028, 12, 29)]  # 2028-12-31 is a Sunday


def test_the_leap_day(calendar: Calendar) -> None:
    fires = _fires(calendar, "cron(0 9 29 2 ? *)", "next-open", _tokyo(2026, 3, 1), 2)
    # only leap years have a 29 February; 2028's is closed → Wed 1 March
    assert fires == [_tokyo(2028, 3, 1), _tokyo(2032, 3, 1)]  # 2032-02-29 is a Sunday


@pytest.mark.parametrize(
    ("rule", "after", "expected"),
    [
        ("nth-open:1", _tokyo(2027, 12, 31), _tokyo(2028, 1, 1)),  # the worked Saturday
        ("nth-open:2", _tokyo(2027, 12, 31), _tokyo(2028, 1, 4)),  # Jan 3 is closed
        ("last-open", _tokyo(2028, 2, 1), _tokyo(2028, 2, 28)),  # leap day closed
        ("nth-open:-2", _tokyo(2028, 2, 1), _tokyo(2028, 2, 25)),
        ("last-open", _tokyo(2027, 12, 1), _tokyo(2027, 12, 30)),  # New Year's Eve closed
        ("last-open", _tokyo(2026, 11, 1), _tokyo(2026, 11, 27)),  # Nov 30 closed, 28-29 w/e
        ("nth-open:1", _tokyo(2028, 1, 1, 9, 0), _tokyo(2028, 2, 1)),  # strictly after
    ],
    ids=[
        "first-jan",
        "second-jan",
        "last-feb-leap",
        "second-last-feb",
        "last-dec",
        "last-nov",
        "strictly-after",
    ],
)
def test_nth_and_last_open_day_of_the_month(
    calendar: Calendar, rule: str, after: datetime, expected: datetime
) -> None:
    assert _fires(calendar, "cron(0 9 * * ? *)", rule, after, 1) == [expected]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('closed = ["2026-02-30"]', r"closed\[0\] = '2026-02-30' is not a valid date"),
        ("closed = [2026-02-30]", "tokyo-office.toml"),
        ('open = ["2027-01-04"]\nclosed = [2027-01-04]', "2027-01-04 is both open and closed"),
        ('closed_weekdays = ["SAT", "HOL"]', r"closed_weekdays\[1\] = 'HOL'"),
        ('timezone = "Mars/Olympus"', "unknown time zone 'Mars/Olympus'"),
        ("holidays = []", "unknown key"),
        ("closed = [2026-01-01T09:00:00]", "not a date and time"),
    ],
    ids=["impossible-date", "toml-date", "both", "weekday", "timezone", "key", "datetime"],
)
def test_bad_calendar_files_name_the_file_and_the_value(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "tokyo-office.toml"
    path.write_text(text + "\n")
    with pytest.raises(InvalidCalendar, match=message) as info:
        load_calendar(path)
    assert "tokyo-office.toml" in str(info.value)


@pytest.mark.parametrize("rule", ["nth-open:0", "nth-open:24", "first-open", "nth-open:x"])
def test_bad_day_rules(rule: str) -> None:
    with pytest.raises(InvalidSchedule, match="day rules"):
        parse_day_rule(rule)


def test_a_calendar_needs_a_cron_schedule(calendar: Calendar) -> None:
    with pytest.raises(InvalidSchedule, match="needs a cron"):
        CalendarSchedule(parse_schedule("rate(1 day)"), calendar, parse_day_rule("open"))


def test_a_calendar_that_is_never_open_is_refused() -> None:
    closed = Calendar("closed", frozenset(range(7)))
    sched = CalendarSchedule(parse_schedule("cron(0 9 * * ? *)"), closed, parse_day_rule("open"))
    with pytest.raises(InvalidSchedule, match="never fires"):
        sched.next_after(datetime(2026, 1, 1, tzinfo=UTC))


def test_schedule_add_with_a_calendar_and_refusals_change_nothing(
    job_engine: Engine,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("CFNOPS_DATABASE_URL", job_engine.settings.database_url)
    definition = tmp_path / "month-end.asl.json"
    definition.write_text(
        json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
    )
    good = tmp_path / "tokyo-office.toml"
    good.write_text(CALENDAR)
    bad = tmp_path / "bad.toml"
    bad.write_text('closed = ["2026-02-30"]\n')

    def cfnops(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = run(["-o", "json", "job", "schedule", *args])
        got = capsys.readouterr()
        return code, got.out, got.err

    add = ["add", "cal-month-end", str(definition), "--cron", "cron(0 9 * * ? *)"]
    code, out, _ = cfnops(*add, "--calendar", str(good), "--day-rule", "last-open")
    assert code == 0, out
    (row,) = json.loads(out)
    assert row["calendar"] == "tokyo-office" and row["dayRule"] == "nth-open:-1"
    assert row["timezone"] == "Asia/Tokyo"  # the calendar's
    fire = datetime.fromisoformat(row["nextFire"]).astimezone(TOKYO)
    assert fire.hour == 9 and calendar_open_last(fire.date())
    before = JobStore(job_engine.runtime.database).list_schedules("schedule")
    for extra, message in (
        (["--calendar", str(bad)], "closed[0] = '2026-02-30' is not a valid date"),
        (["--calendar", str(good), "--day-rule", "first-open"], "day rules"),
        (["--day-rule", "open"], "needs --calendar"),
    ):
        code, out, err = cfnops(*add[:1], "cal-other", *add[2:], *extra)
        assert code == 2
        assert message in " ".join((out + err).split())
    assert JobStore(job_engine.runtime.database).list_schedules("schedule") == before


def calendar_open_last(day: date) -> bool:
    """True when ``day`` is the last weekday of its month that the test calendar keeps open."""
    cal = Calendar.from_json(
        {"closed_weekdays": ["SAT", "SUN"],
         "closed": ["2026-11-30", "2027-12-31", "2028-01-03", "2028-02-29"],
         "open": ["2028-01-01"]}
    )  # fmt: skip
    later = [date(day.year, day.month, d) for d in range(day.day + 1, 32) if _valid(day, d)]
    return cal.is_open(day) and not any(cal.is_open(d) for d in later)


def _valid(day: date, d: int) -> bool:
    try:
        date(day.year, day.month, d)
    except ValueError:
        return False
    return True


def test_calendar_cli_show_and_next(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "tokyo-office.toml"
    path.write_text(CALENDAR)

    def cfnops(*args: str) -> tuple[int, str]:
        capsys.readouterr()
        code = run(["-o", "json", "job", "calendar", *args])
        return code, capsys.readouterr().out

    code, out = cfnops("show", str(path), "--month", "2028-02")
    assert code == 0
    days = json.loads(out)["days"]
    assert len(days) == 29 and days[-1] == {"date": "2028-02-29", "weekday": "Tue", "open": False}
    code, out = cfnops(
        "next",
        str(path),
        "--cron",
        "cron(0 9 * * ? *)",
        "--day-rule",
        "last-open",
        "--after",
        "2027-12-01T00:00",
        "--count",
        "3",
    )
    assert code == 0
    assert json.loads(out)["fires"] == [
        "2027-12-30T09:00:00+09:00",
        "2028-01-31T09:00:00+09:00",
        "2028-02-28T09:00:00+09:00",
    ]
    bad = tmp_path / "bad.toml"
    bad.write_text('closed = ["2027-13-01"]\n')
    assert cfnops("show", str(bad))[0] == 2
    assert cfnops("show", str(path), "--month", "2028-13")[0] == 2
