"""When a schedule fires: its cron/rate expression, with a business calendar if it names one."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from cfnops.jobs._calendar import Calendar, CalendarSchedule, parse_day_rule
from cfnops.schedules import Schedule, parse_schedule

__all__ = ["schedule_of", "timing_options"]


def timing_options(calendar: Calendar | None, day_rule: str | None) -> dict[str, Any]:
    """The schedule options that store a calendar and its day rule (validated)."""
    if calendar is None:
        if day_rule is not None:
            parse_day_rule(day_rule)
            from cfnops.jobs.errors import InvalidSchedule

            raise InvalidSchedule(day_rule, "a day rule needs --calendar")
        return {}
    rule = parse_day_rule(day_rule or "open")
    return {"calendar": calendar.to_json(), "dayRule": str(rule)}


def schedule_of(row: Mapping[str, Any]) -> Schedule | CalendarSchedule:
    """The schedule of a stored row (kind ``schedule``)."""
    options = json.loads(row.get("options") or "{}")
    schedule = parse_schedule(row["expression"], row["timezone"])
    calendar = options.get("calendar")
    if not calendar:
        return schedule
    return CalendarSchedule(
        schedule, Calendar.from_json(calendar), parse_day_rule(options.get("dayRule") or "open")
    )
