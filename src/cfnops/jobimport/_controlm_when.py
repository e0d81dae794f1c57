"""Control-M scheduling criteria (JSON ``When`` and XML job attributes) → cfnops schedules.

The same criteria come from both export formats (BMC Control-M Automation API, "Job
scheduling: When"; Control-M XML scheduling parameters DAYS, WEEKDAYS, MONTHS, DAYSCAL,
WEEKSCAL, CONFCAL, SHIFT, TIMEFROM, see docs/migrate.md for the manual pages):

- week days only, month days only (numbers, ``L1`` = last day), or all days: one
  ``cron(...)``; week days OR month days: two schedules (EventBridge cron takes one of
  the two day fields);
- a confirmation calendar (``CONFCAL`` / ``ConfirmationCalendars``) with its exception
  policy: do not order → ``--day-rule open``, next / previous confirmed day →
  ``next-open`` / ``previous-open``, order anyway → no calendar;
- ``Dn`` / ``Ln`` days with a working-days calendar → ``nth-open:n`` / ``nth-open:-n``;
- a days calendar (``DAYSCAL`` / ``MonthDaysCalendar``) alone → its days are the open days;
- anything else (AND of week and month days, specific dates, ``Ln`` with n > 1 and no
  calendar, a shift by N days, a days calendar with a confirmation calendar) →
  materialised days (:mod:`cfnops.jobimport._days`), reported as approximate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

from cfnops.jobimport._days import ALL_WEEKDAYS, cron, materialise, valid_time
from cfnops.jobimport._model import CalendarSpec, ImportModel, ScheduleSpec

__all__ = ["CtmWhen", "translate_when"]

_MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
_POLICIES = {
    "DONOTORDER": "open",
    "ORDERONNEXTCONFIRMEDDAY": "next-open",
    "ORDERONPREVIOUSCONFIRMEDDAY": "previous-open",
    "ORDERANYWAY": "anyway",
    ">": "next-open",  # XML SHIFT (older exports)
    "<": "previous-open",
    "@": "anyway",
    "": "open",
    "IGNORE JOB": "open",  # XML SHIFT (9.0.18 and later exports)
    "NEXT DAY": "next-open",
    "PREV DAY": "previous-open",
    "NO CONFCAL": "anyway",
}


@dataclass
class CtmWhen:
    """Scheduling criteria, normalised (``week_days`` MON..SUN, ``months`` 1..12)."""

    week_days: list[str] = field(default_factory=list)
    month_days: list[str] = field(default_factory=list)
    months: list[int] = field(default_factory=list)  # empty = every month
    from_time: str | None = None
    relation: str = "OR"
    days_calendar: str | None = None
    weeks_calendar: str | None = None
    conf_calendar: str | None = None
    policy: str = "open"
    shift_by: int = 0
    specific_dates: list[tuple[int, int]] = field(default_factory=list)  # (month, day)
    rule_calendars: list[str] = field(default_factory=list)
    timezone: str | None = None
    never: bool = False  # Schedule "Never": ordered by hand only
    source: str = ""

    @property
    def has_days(self) -> bool:
        return bool(self.week_days or self.month_days or self.specific_dates)


def policy_of(text: str) -> str | None:
    return _POLICIES.get(text.strip().upper())


def month_numbers(values: list[str]) -> list[int]:
    out: set[int] = set()
    for v in values:
        t = v.strip().upper()
        if t == "ALL":
            return []
        if t[:3] in _MONTHS:
            out.add(_MONTHS.index(t[:3]) + 1)
        elif t.isdigit() and 1 <= int(t) <= 12:
            out.add(int(t))
    return sorted(out)


def _cron_months(months: list[int]) -> str:
    return ",".join(_MONTHS[m - 1] for m in months) if months else "*"


def _plain_dom(tokens: list[str]) -> list[str] | None:
    """Month-day tokens a cron day-of-month field takes (numbers, L1), else None."""
    out = []
    for t in tokens:
        t = t.strip().upper()
        if t.isdigit() and 1 <= int(t) <= 31:
            out.append(str(int(t)))
        elif t == "L1":
            out.append("L")
        else:
            return None
    if "L" in out and len(out) > 1:
        return None  # EventBridge takes L alone in the field
    return out


def _nth(tokens: list[str]) -> int | None:
    if len(tokens) != 1:
        return None
    m = re.fullmatch(r"([DL])(\d{1,2})", tokens[0].strip().upper())
    if not m or not 1 <= int(m.group(2)) <= 23:
        return None
    return int(m.group(2)) * (1 if m.group(1) == "D" else -1)


def _is_all(tokens: list[str]) -> bool:
    return not tokens or [t.strip().upper() for t in tokens] == ["ALL"]


def translate_when(
    name: str, when: CtmWhen, model: ImportModel, rules: dict[str, CtmWhen], tz: str, today: date
) -> list[ScheduleSpec]:
    """The schedules of one job-net (``name`` names them); what cannot be mapped is noted."""
    tz = when.timezone or tz
    if when.never:
        model.note("schedule", when.source, 'Schedule "Never": ordered by hand; none made')
        return []
    if when.from_time is not None and not valid_time(when.from_time):
        model.note("value", when.source, f"start time {when.from_time!r} is not HHMM: 00:00 used")
    if when.rule_calendars:
        return _by_rule_calendars(name, when, model, rules, tz, today)
    week = [] if _is_all(when.week_days) else [d for d in when.week_days if d in ALL_WEEKDAYS]
    dom_tokens = [] if _is_all(when.month_days) else [t for t in when.month_days if t != "NONE"]
    if [t.upper() for t in when.month_days] == ["NONE"] and not week:
        model.note("schedule", when.source, "no day selected (MonthDays NONE): no schedule made")
        return []
    cal_name, rule = _calendar_rule(when, model)
    if cal_name == "?":
        return []
    months = _cron_months(when.months)
    nth = _nth(dom_tokens)
    if nth is not None and not week and (cal_name or when.days_calendar):
        cal = cal_name or when.days_calendar
        if cal and not _known(model, cal, when):
            return []
        rule = f"nth-open:{nth}"
        return [
            ScheduleSpec(name, cron(when.from_time, "*", months), tz, cal, rule, (), when.source)
        ]
    dom = _plain_dom(dom_tokens) if dom_tokens else []
    simple = (
        dom is not None
        and not when.specific_dates
        and not when.weeks_calendar
        and when.shift_by == 0
        and not (week and dom and when.relation == "AND")
        and not (when.days_calendar and cal_name)
    )
    if when.days_calendar and simple and not week and not dom:
        if not _known(model, when.days_calendar, when):
            return []
        return [
            ScheduleSpec(
                name, cron(when.from_time), tz, when.days_calendar, "open", (), when.source
            )
        ]
    if not simple or when.days_calendar:
        return _materialised(name, when, model, tz, today, week, dom_tokens)
    assert dom is not None
    return _crons(name, when, tz, cal_name, rule, months, dom, week)


def _by_rule_calendars(
    name: str, when: CtmWhen, model: ImportModel, rules: dict[str, CtmWhen], tz: str, today: date
) -> list[ScheduleSpec]:
    """The schedules of the rule-based calendars ``when`` names, at its start time."""
    out = []
    for rc in when.rule_calendars:
        rbc = rules.get(rc)
        if rbc is None:
            model.note(
                "schedule",
                when.source,
                f"rule-based calendar {rc!r} is not in the export: no schedule made; "
                "export it with the folder (or add a schedule by hand)",
            )
            continue
        merged = replace(rbc, from_time=when.from_time or rbc.from_time, rule_calendars=[])
        out.extend(translate_when(f"{name}-{rc}", merged, model, rules, tz, today))
    return out


def _crons(
    name: str,
    when: CtmWhen,
    tz: str,
    cal_name: str | None,
    rule: str | None,
    months: str,
    dom: list[str],
    week: list[str],
) -> list[ScheduleSpec]:
    """One cron for the month days and one for the week days (every day: neither)."""
    specs = []
    if dom:
        specs.append(cron(when.from_time, ",".join(dom), months, "?"))
    if week:
        specs.append(cron(when.from_time, "?", months, ",".join(week)))
    if not specs:
        specs.append(cron(when.from_time, "*", months, "?"))
    names = [name] if len(specs) == 1 else [f"{name}-{i + 1}" for i in range(len(specs))]
    return [
        ScheduleSpec(n, c, tz, cal_name, rule, (), when.source)
        for n, c in zip(names, specs, strict=True)
    ]


def _known(model: ImportModel, cal: str, when: CtmWhen) -> bool:
    if cal in model.calendars:
        return True
    model.note(
        "calendar",
        when.source,
        f"calendar {cal!r} is not in the export: no schedule made; export the calendar "
        "(or write a cfnops calendar file) and import again",
    )
    return False


def _calendar_rule(when: CtmWhen, model: ImportModel) -> tuple[str | None, str | None]:
    if not when.conf_calendar or when.policy == "anyway":
        return None, None
    if not _known(model, when.conf_calendar, when):
        return "?", None
    return when.conf_calendar, when.policy


def _day_matches(
    when: CtmWhen, day: date, week: list[str], dom: list[str], cals: dict[str, CalendarSpec]
) -> bool:
    if when.months and day.month not in when.months:
        return False
    if (day.month, day.day) in when.specific_dates:
        return True
    last = (day.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)
    dom_hit = False
    for t in dom:
        t = t.upper()
        if (t.isdigit() and int(t) == day.day) or (
            t.startswith("L") and t[1:].isdigit() and last.day - int(t[1:]) + 1 == day.day
        ):
            dom_hit = True
    week_hit = ALL_WEEKDAYS[day.weekday()] in week
    if when.weeks_calendar:
        cal = when.weeks_calendar
        week_hit = week_hit and cal in cals and _is_open(cals[cal], day)
    if not dom and not week:
        hit = not when.specific_dates
    elif dom and week:
        hit = (dom_hit and week_hit) if when.relation == "AND" else (dom_hit or week_hit)
    else:
        hit = dom_hit or week_hit
    if hit and when.days_calendar:
        cal_days = cals.get(when.days_calendar)
        hit = cal_days is not None and _is_open(cal_days, day)
    return hit


def _is_open(cal: CalendarSpec, day: date) -> bool:
    if day in cal.open:
        return True
    return day not in cal.closed and ALL_WEEKDAYS[day.weekday()] not in cal.closed_weekdays


def _materialised(
    name: str,
    when: CtmWhen,
    model: ImportModel,
    tz: str,
    today: date,
    week: list[str],
    dom: list[str],
) -> list[ScheduleSpec]:
    for cal in (when.days_calendar, when.weeks_calendar, when.conf_calendar):
        if cal and not _known(model, cal, when):
            return []
    conf = model.calendars.get(when.conf_calendar or "") if when.policy != "anyway" else None

    def fires(day: date) -> bool:
        return day in days

    base = [d for d in _span(today) if _day_matches(when, d, week, dom, model.calendars)]
    days: set[date] = set()
    for d in base:
        moved = _confirm(d, conf, when.policy, when.shift_by)
        if moved is not None:
            days.add(moved)
    if not any(d >= today for d in days):
        model.note(
            "schedule",
            when.source,
            f"no day from {today} on matches {', '.join(dom + week) or 'the criteria'} "
            "(forms such as +n, -n, Dn without a calendar are not mapped): no schedule made",
        )
        return []
    cal_name = f"{name}-days"
    model.calendars[cal_name] = materialise(cal_name, today, fires, tz, when.source)
    model.note(
        "schedule",
        when.source,
        f"no cron/day-rule equivalent: the days it runs on are listed in calendar {cal_name} "
        f"up to {today.year + 1}-12-31; import again before then",
    )
    return [ScheduleSpec(name, cron(when.from_time), tz, cal_name, "open", (), when.source)]


def _span(today: date) -> list[date]:
    start, end = today - timedelta(days=40), date(today.year + 2, 1, 31)
    return [start + timedelta(days=i) for i in range((end - start).days + 1)]


def _confirm(day: date, conf: CalendarSpec | None, policy: str, shift_by: int) -> date | None:
    if conf is None:
        return day + timedelta(days=shift_by)
    if not _is_open(conf, day):
        if policy == "open":
            return None
        step = timedelta(days=1 if policy == "next-open" else -1)
        for _ in range(366):
            day += step
            if _is_open(conf, day):
                break
    step = timedelta(days=1 if shift_by > 0 else -1)
    for _ in range(abs(shift_by)):
        day += step
        while not _is_open(conf, day):
            day += step
    return day
