"""Business calendars: open and closed days, and the day rules schedules apply with them.

A calendar is a TOML file::

    # calendars/tokyo-office.toml
    timezone = "Asia/Tokyo"          # optional: the time zone schedules judge days in
    closed_weekdays = ["SAT", "SUN"] # the weekly rule
    closed = [2026-01-01, 2026-01-02, 2026-12-31]   # TOML dates (or "YYYY-MM-DD" strings)
    open = [2026-12-26]              # open although the weekly rule closes it

A day is open when it is listed in ``open``, else closed when listed in ``closed`` or its
weekday is in ``closed_weekdays``. A date in both lists is an error.

Day rules (a schedule's ``--day-rule``), applied to the cron's fire times in the
schedule's time zone:

- ``open``: fire only on open days (a fire time on a closed day is skipped);
- ``next-open`` / ``previous-open``: a fire time on a closed day moves to the same local
  time on the next / previous open day (several landing on one day fire once);
- ``nth-open:N``: on the N-th open day of each month (``nth-open:-1`` the last, ``-2`` the
  one before), at the cron's hours and minutes, in the cron's months and years;
- ``last-open``: the same as ``nth-open:-1``.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from cfnops.jobs.errors import InvalidCalendar, InvalidSchedule
from cfnops.schedules import Schedule

__all__ = ["Calendar", "CalendarSchedule", "DayRule", "load_calendar", "parse_day_rule"]

_WEEKDAYS = {d: i for i, d in enumerate(["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"])}
_KEYS = {"name", "timezone", "closed_weekdays", "closed", "open", "comment"}
_HORIZON_DAYS = 366 * 5


@dataclass(frozen=True)
class Calendar:
    """Open and closed days (pure; see the module docstring)."""

    name: str
    closed_weekdays: frozenset[int] = frozenset()
    closed: frozenset[date] = frozenset()
    open: frozenset[date] = frozenset()
    timezone: str | None = None

    def is_open(self, day: date) -> bool:
        if day in self.open:
            return True
        return day not in self.closed and day.weekday() not in self.closed_weekdays

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "timezone": self.timezone,
            "closed_weekdays": sorted(k for k, v in _WEEKDAYS.items() if v in self.closed_weekdays),
            "closed": sorted(d.isoformat() for d in self.closed),
            "open": sorted(d.isoformat() for d in self.open),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "(stored)") -> Calendar:
        return _build(dict(data), where, str(data.get("name") or "calendar"))


def _dates(value: Any, where: str, key: str) -> frozenset[date]:
    if not isinstance(value, list):
        raise InvalidCalendar(where, f"'{key}' must be a list of dates")
    out: set[date] = set()
    for i, item in enumerate(value):
        if isinstance(item, datetime):
            raise InvalidCalendar(where, f"{key}[{i}] = {item}: a date, not a date and time")
        if isinstance(item, date):
            out.add(item)
            continue
        try:
            out.add(date.fromisoformat(str(item)))
        except ValueError:
            raise InvalidCalendar(where, f"{key}[{i}] = {item!r} is not a valid date") from None
    return frozenset(out)


def _build(data: dict[str, Any], where: str, name: str) -> Calendar:
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise InvalidCalendar(where, f"unknown key(s) {', '.join(unknown)}; use {sorted(_KEYS)}")
    weekdays: set[int] = set()
    raw_days = data.get("closed_weekdays", [])
    if not isinstance(raw_days, list):
        raise InvalidCalendar(where, '\'closed_weekdays\' must be a list such as ["SAT", "SUN"]')
    for i, day in enumerate(raw_days):
        if str(day).upper()[:3] not in _WEEKDAYS:
            raise InvalidCalendar(where, f"closed_weekdays[{i}] = {day!r} is not MON..SUN")
        weekdays.add(_WEEKDAYS[str(day).upper()[:3]])
    closed = _dates(data.get("closed", []), where, "closed")
    opened = _dates(data.get("open", []), where, "open")
    both = sorted(closed & opened)
    if both:
        raise InvalidCalendar(where, f"{both[0].isoformat()} is both open and closed")
    tz = data.get("timezone")
    if tz is not None:
        try:
            ZoneInfo(str(tz))
        except (ZoneInfoNotFoundError, ValueError):
            raise InvalidCalendar(where, f"unknown time zone {tz!r}") from None
    return Calendar(
        str(data.get("name") or name), frozenset(weekdays), closed, opened,
        None if tz is None else str(tz),
    )  # fmt: skip


def load_calendar(path: str | Path) -> Calendar:
    """Read a calendar file; :class:`InvalidCalendar` names the file, key and value."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidCalendar(str(p), exc.strerror or str(exc)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidCalendar(str(p), str(exc)) from None
    return _build(data, str(p), p.name.split(".")[0])


@dataclass(frozen=True)
class DayRule:
    kind: str  # open | next-open | previous-open | nth-open
    nth: int = 0

    def __str__(self) -> str:
        return f"nth-open:{self.nth}" if self.kind == "nth-open" else self.kind


def parse_day_rule(text: str) -> DayRule:
    t = text.strip().lower()
    if t in ("open", "next-open", "previous-open"):
        return DayRule(t)
    if t == "last-open":
        return DayRule("nth-open", -1)
    m = re.fullmatch(r"nth-open:(-?\d+)", t)
    if m and int(m.group(1)) != 0 and abs(int(m.group(1))) <= 23:
        return DayRule("nth-open", int(m.group(1)))
    raise InvalidSchedule(
        text, "day rules: open, next-open, previous-open, nth-open:N (1..23 or -1..-23), last-open"
    )


@dataclass(frozen=True)
class CalendarSchedule:
    """A cron schedule whose days a business calendar and a day rule decide."""

    schedule: Schedule
    calendar: Calendar
    rule: DayRule

    def __post_init__(self) -> None:
        if self.schedule.rate is not None:
            raise InvalidSchedule(self.schedule.expression, "a calendar needs a cron(...) schedule")

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.schedule.timezone)

    def _times(self, day: date) -> list[tuple[int, int]]:
        minutes, hours, doms, months, dows, years = self.schedule.fields
        if not self.schedule._day_ok(day, doms, months, dows, years):
            return []
        return [(h, m) for h in sorted(hours or range(24)) for m in sorted(minutes or range(60))]

    def _shift(self, day: date) -> date | None:
        if self.calendar.is_open(day):
            return day
        if self.rule.kind == "open":
            return None
        step = timedelta(days=1 if self.rule.kind == "next-open" else -1)
        for _ in range(366):
            day += step
            if self.calendar.is_open(day):
                return day
        return None

    def next_after(self, after: datetime) -> datetime:
        """The first fire time strictly after ``after`` (aware, UTC)."""
        local = after.astimezone(self.tz)
        found = (
            self._nth_after(local) if self.rule.kind == "nth-open" else self._shifted_after(local)
        )
        if found is None:
            raise InvalidSchedule(
                self.schedule.expression,
                f"with calendar {self.calendar.name!r} and rule {self.rule} it never fires "
                "in the next five years",
            )
        return found.astimezone(UTC)

    def _at(self, day: date, hm: tuple[int, int]) -> datetime:
        return datetime(day.year, day.month, day.day, hm[0], hm[1], tzinfo=self.tz)

    def _shifted_after(self, local: datetime) -> datetime | None:
        # a shift can move an earlier fire time past `after` (and back): start before it.
        day = local.date() - timedelta(days=0 if self.rule.kind == "open" else 40)
        best: datetime | None = None
        for _ in range(_HORIZON_DAYS):
            times = self._times(day)
            target = self._shift(day) if times else None
            if target is not None:
                if best is not None and target > best.date():
                    return best
                for hm in times:
                    cand = self._at(target, hm)
                    if cand > local and (best is None or cand < best):
                        best = cand
                        break
            elif best is not None and day > best.date() + timedelta(days=40):
                return best
            day += timedelta(days=1)
        return best

    def _open_days(self, year: int, month: int) -> list[date]:
        day, out = date(year, month, 1), []
        while day.month == month:
            if self.calendar.is_open(day):
                out.append(day)
            day += timedelta(days=1)
        return out

    def _months(self, start: date) -> Iterator[tuple[int, int]]:
        y, m = start.year, start.month
        for _ in range(12 * 5 + 1):
            yield y, m
            y, m = (y + 1, 1) if m == 12 else (y, m + 1)

    def _nth_after(self, local: datetime) -> datetime | None:
        minutes, hours, _, months, _, years = self.schedule.fields
        hms = [(h, m) for h in sorted(hours or range(24)) for m in sorted(minutes or range(60))]
        for y, m in self._months(local.date()):
            if (months is not None and m not in months) or (years is not None and y not in years):
                continue
            days = self._open_days(y, m)
            n = self.rule.nth
            if not (n > 0 and len(days) >= n) and not (n < 0 and len(days) >= -n):
                continue
            day = days[n - 1] if n > 0 else days[n]
            for hm in hms:
                cand = self._at(day, hm)
                if cand > local:
                    return cand
        return None
