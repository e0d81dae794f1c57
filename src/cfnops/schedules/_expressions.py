"""EventBridge Scheduler expressions: ``cron(…)`` and ``rate(…)`` with a time zone.

Follows "Schedule types on EventBridge Scheduler"
(https://docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html): six cron
fields ``minutes hours day-of-month month day-of-week year``, one of day-of-month and
day-of-week must be ``?``; day-of-week 1-7 is SUN-SAT; ``L`` (last day of the month) is
supported, ``W`` and ``#`` are not (they are refused, not misread).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from cfnops.schedules.errors import InvalidSchedule

__all__ = ["Schedule", "parse_schedule"]

_MONTH_NAMES = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_MONTHS = {m: i for i, m in enumerate(_MONTH_NAMES, start=1)}
_DAYS = {d: i for i, d in enumerate(["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"], start=1)}
_RATE = re.compile(r"^rate\((\d+)\s+(minute|minutes|hour|hours|day|days)\)$")
_CRON = re.compile(r"^cron\((.+)\)$")


@dataclass(frozen=True)
class Schedule:
    expression: str
    timezone: str
    rate: timedelta | None = None
    fields: tuple[frozenset[int] | None, ...] = ()
    last_day: bool = False

    def next_after(self, after: datetime) -> datetime:
        """The first fire time strictly after ``after`` (aware, UTC)."""
        if self.rate is not None:
            return (after + self.rate).astimezone(UTC)
        tz = ZoneInfo(self.timezone)
        local = after.astimezone(tz)
        minutes, hours, doms, months, dows, years = self.fields
        day = local.date()
        for _ in range(366 * 5):
            if self._day_ok(day, doms, months, dows, years):
                for hour in sorted(hours or range(24)):
                    for minute in sorted(minutes or range(60)):
                        cand = datetime(day.year, day.month, day.day, hour, minute, tzinfo=tz)
                        if cand > local:
                            return cand.astimezone(UTC)
            day += timedelta(days=1)
        raise InvalidSchedule(self.expression, "it never fires in the next five years")

    def _day_ok(
        self,
        day: date,
        doms: frozenset[int] | None,
        months: frozenset[int] | None,
        dows: frozenset[int] | None,
        years: frozenset[int] | None,
    ) -> bool:
        if years is not None and day.year not in years:
            return False
        if months is not None and day.month not in months:
            return False
        if self.last_day:
            return (day + timedelta(days=1)).month != day.month
        if doms is not None and day.day not in doms:
            return False
        return dows is None or (day.isoweekday() % 7 + 1) in dows


def _field(text: str, lo: int, hi: int, names: dict[str, int], expr: str) -> frozenset[int] | None:
    if text in ("*", "?"):
        return None
    out: set[int] = set()
    for part in text.split(","):
        step = 1
        if "/" in part:
            part, step_text = part.split("/", 1)
            if not step_text.isdigit() or int(step_text) < 1:
                raise InvalidSchedule(expr, f"bad increment in {text!r}")
            step = int(step_text)
        if part == "*":
            start, end = lo, hi
        elif "-" in part:
            a, b = part.split("-", 1)
            start, end = _value(a, names, expr), _value(b, names, expr)
        else:
            start = _value(part, names, expr)
            end = hi if step > 1 else start
        if not (lo <= start <= hi and lo <= end <= hi):
            raise InvalidSchedule(expr, f"{text!r} is outside {lo}-{hi}")
        out.update(range(start, end + 1, step))
    return frozenset(out)


def _value(text: str, names: dict[str, int], expr: str) -> int:
    if text.upper() in names:
        return names[text.upper()]
    if not text.isdigit():
        raise InvalidSchedule(expr, f"{text!r} is not a number or a name")
    return int(text)


def parse_schedule(expression: str, timezone: str = "UTC") -> Schedule:
    """Parse ``cron(0 9 ? * MON-FRI *)`` or ``rate(5 minutes)`` for ``timezone``."""
    try:
        ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidSchedule(expression, f"unknown time zone {timezone!r}") from None
    expr = expression.strip()
    rate = _RATE.match(expr)
    if rate:
        value, unit = int(rate.group(1)), rate.group(2)
        if value < 1 or (value == 1) != (not unit.endswith("s")):
            raise InvalidSchedule(expr, "use 'rate(1 minute)' or 'rate(N minutes)' (N > 1)")
        seconds = {"minute": 60, "hour": 3600, "day": 86400}[unit.rstrip("s")]
        return Schedule(expr, timezone, rate=timedelta(seconds=value * seconds))
    cron = _CRON.match(expr)
    if not cron:
        raise InvalidSchedule(expr, "not a cron(...) or rate(...) expression")
    parts = cron.group(1).split()
    if len(parts) != 6:
        raise InvalidSchedule(expr, "cron needs six fields")
    minute, hour, dom, month, dow, year = parts
    if (dom == "?") == (dow == "?"):
        raise InvalidSchedule(expr, "exactly one of day-of-month and day-of-week must be '?'")
    if "W" in dom.upper() or "#" in dow:
        raise InvalidSchedule(expr, "W and # are not supported by cfnops schedules")
    last = dom.upper() == "L"
    fields = (
        _field(minute, 0, 59, {}, expr),
        _field(hour, 0, 23, {}, expr),
        None if last else _field(dom, 1, 31, {}, expr),
        _field(month, 1, 12, _MONTHS, expr),
        _field(dow, 1, 7, _DAYS, expr),
        _field(year, 1970, 2199, {}, expr),
    )
    return Schedule(expr, timezone, fields=fields, last_day=last)
