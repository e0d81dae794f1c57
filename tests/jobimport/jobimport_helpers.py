from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"


def fire_days(out: Path, schedule: dict[str, Any], year: int) -> list[date]:
    """Days a produced schedule fires on in ``year``, computed by cfnops's own scheduler."""
    from zoneinfo import ZoneInfo

    from cfnops.jobs import CalendarSchedule, load_calendar, parse_day_rule, parse_schedule

    tz = schedule["timezone"]
    sched = parse_schedule(schedule["cron"], tz)
    if schedule["calendar"]:
        cal = load_calendar(out / schedule["calendar"])
        sched = CalendarSchedule(sched, cal, parse_day_rule(schedule["dayRule"]))
    at = datetime(year, 1, 1, tzinfo=ZoneInfo(tz)) - timedelta(seconds=1)
    days: list[date] = []
    while True:
        try:
            at = sched.next_after(at)
        except Exception:
            break
        local = at.astimezone(ZoneInfo(tz)).date()
        if local.year != year:
            break
        days.append(local)
    return days


def report(out: Path) -> dict[str, Any]:
    return json.loads((out / "report.json").read_text())
