"""Day sets: cron strings, materialised calendars, and calendar TOML files.

Where a source rule has no cron/day-rule equivalent (Control-M rule-based calendars
combining week and month days with AND, JP1 every-N-days cycles, exclusive schedules),
the importer lists the days it fires on — from the import day to the end of the next
year — as the open days of a calendar whose weekly rule closes every day. The schedule
then fires on exactly those days; the report says to import again before they run out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import date, timedelta
from typing import TYPE_CHECKING

from cfnops.jobimport._model import CalendarSpec, ScheduleSpec

if TYPE_CHECKING:
    from cfnops.jobs import CalendarSchedule, Schedule

__all__ = [
    "ALL_WEEKDAYS",
    "calendar_toml",
    "cron",
    "horizon",
    "jobs_schedule",
    "materialise",
]

ALL_WEEKDAYS = ("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN")


def horizon(today: date) -> Iterator[date]:
    """Every day from ``today`` to the end of the next year."""
    day, end = today, date(today.year + 1, 12, 31)
    while day <= end:
        yield day
        day += timedelta(days=1)


def cron(hhmm: str | None, dom: str = "*", months: str = "*", dow: str = "?") -> str:
    """``cron(m h dom month dow *)`` at ``HHMM`` (midnight when absent)."""
    hour, minute = _time(hhmm)
    if dom != "?" and dow != "?":
        dow = "?"
    if dom == "?" and dow == "?":
        dom = "*"
    return f"cron({minute} {hour} {dom} {months} {dow} *)"


def _time(hhmm: str | None) -> tuple[int, int]:
    text = (hhmm or "0000").replace(":", "").strip()
    if not text.isdigit() or len(text) not in (3, 4):
        return 0, 0
    text = text.zfill(4)
    hour, minute = int(text[:2]), int(text[2:])
    return (hour % 24, minute) if minute < 60 else (0, 0)


def valid_time(hhmm: str | None) -> bool:
    text = (hhmm or "").replace(":", "").strip()
    return text.isdigit() and len(text) in (3, 4) and int(text.zfill(4)[2:]) < 60


def materialise(
    name: str, today: date, fires: Callable[[date], bool], timezone: str | None, source: str
) -> CalendarSpec:
    """A calendar open exactly on the days ``fires`` selects within :func:`horizon`."""
    days = {d for d in horizon(today) if fires(d)}
    return CalendarSpec(
        name,
        closed_weekdays=set(ALL_WEEKDAYS),
        open=days,
        timezone=timezone,
        comment=f"days listed up to {today.year + 1}-12-31: import again before then",
        source=source,
    )


def jobs_schedule(
    calendars: Mapping[str, CalendarSpec], spec: ScheduleSpec
) -> Schedule | CalendarSchedule:
    """The cfnops.jobs schedule an imported cron schedule runs as: its cron in its time
    zone, through its calendar and day rule when it names one (``next_after`` fires)."""
    from cfnops.jobs import Calendar, CalendarSchedule, parse_day_rule, parse_schedule

    sched = parse_schedule(spec.cron or "", spec.timezone)
    if not spec.calendar:
        return sched
    c = calendars[spec.calendar]
    cal = Calendar(
        c.name,
        frozenset(ALL_WEEKDAYS.index(d) for d in c.closed_weekdays),
        frozenset(c.closed),
        frozenset(c.open),
        c.timezone,
    )
    return CalendarSchedule(sched, cal, parse_day_rule(spec.day_rule or "open"))


def _dates(values: Iterable[date]) -> str:
    return "[" + ", ".join(d.isoformat() for d in sorted(values)) + "]"


def calendar_toml(cal: CalendarSpec) -> str:
    """The calendar as a cfnops calendar file (``cfnops job calendar show`` reads it)."""
    lines = [f"# {cal.comment}" if cal.comment else "", f"# source: {cal.source}"]
    lines.append(f"name = {_quote(cal.name)}")
    if cal.timezone:
        lines.append(f"timezone = {_quote(cal.timezone)}")
    order = [d for d in ALL_WEEKDAYS if d in cal.closed_weekdays]
    lines.append("closed_weekdays = [" + ", ".join(_quote(d) for d in order) + "]")
    both = cal.closed & cal.open
    lines.append(f"closed = {_dates(cal.closed - both)}")
    lines.append(f"open = {_dates(cal.open)}")
    return "\n".join(line for line in lines if line) + "\n"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
