"""Control-M Automation API ``When`` objects (JSON) → :class:`CtmWhen`.

Fields (BMC Control-M Automation API, Code Reference, job properties "When"): WeekDays,
MonthDays, Months, FromTime, ToTime, DaysRelation, MonthDaysCalendar, WeekDaysCalendar,
ConfirmationCalendars (Calendar, ExceptionPolicy, ShiftBy), SpecificDates (MMDD),
RuleBasedCalendars / Calendars (Included, Excluded), Schedule, TimeZone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from cfnops.jobimport._controlm_common import timezone_of
from cfnops.jobimport._controlm_when import CtmWhen, month_numbers, policy_of
from cfnops.jobimport._model import ImportModel

__all__ = ["json_when", "rule_calendars"]

_WEEK = {
    "SUN": "SUN",
    "MON": "MON",
    "TUE": "TUE",
    "WED": "WED",
    "THU": "THU",
    "FRI": "FRI",
    "SAT": "SAT",
    "ALL": "ALL",
}


def _list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def json_when(
    when: Mapping[str, Any], path: str, model: ImportModel, rules: dict[str, CtmWhen]
) -> CtmWhen:
    """A Control-M JSON ``When`` object (rule-based calendars it defines go to ``rules``)."""
    out = CtmWhen(source=path)
    for key, value in when.items():
        where = f"{path}.{key}"
        field = _FIELDS.get(key)
        if field is None or (key in _OBJECTS and not isinstance(value, dict)):
            model.note("keyword", where, "scheduling keyword not mapped")
        else:
            field(out, value, where, model, rules)
    return out


def _week_days(out: CtmWhen, value: Any, where: str, model: ImportModel, _: _Rules) -> None:
    # "NONE" (what Control-M writes for no week day) selects nothing: an empty list
    days = [v for v in _list(value) if str(v).strip().upper() != "NONE"]
    out.week_days = [_WEEK.get(str(v).upper()[:3], "?") for v in days]
    if "?" in out.week_days:
        model.note("value", where, f"week days {value!r}: only SUN..SAT, ALL, NONE")
        out.week_days = [d for d in out.week_days if d != "?"]


def _month_days(out: CtmWhen, value: Any, *_: Any) -> None:
    out.month_days = [str(v).strip().upper() for v in _list(value)]


def _months(out: CtmWhen, value: Any, *_: Any) -> None:
    out.months = month_numbers([str(v) for v in _list(value)])


def _from_time(out: CtmWhen, value: Any, *_: Any) -> None:
    out.from_time = str(value)


def _to_time(out: CtmWhen, value: Any, where: str, model: ImportModel, _: _Rules) -> None:
    model.note("keyword", where, "end of the submission window: not mapped")


def _days_relation(out: CtmWhen, value: Any, *_: Any) -> None:
    out.relation = str(value).upper()


def _days_calendar(out: CtmWhen, value: Any, *_: Any) -> None:
    out.days_calendar = str(value)


def _weeks_calendar(out: CtmWhen, value: Any, *_: Any) -> None:
    out.weeks_calendar = str(value)


def _confirmation(out: CtmWhen, value: Any, *_: Any) -> None:
    out.conf_calendar = str(value.get("Calendar") or "") or None
    policy = policy_of(str(value.get("ExceptionPolicy", "DoNotOrder")))
    out.policy = policy or "open"
    out.shift_by = int(str(value.get("ShiftBy", "0")).replace("+", "") or 0)


def _specific_dates(out: CtmWhen, value: Any, where: str, model: ImportModel, _: _Rules) -> None:
    for v in _list(value):
        text = str(v)
        if len(text) == 4 and text.isdigit():
            out.specific_dates.append((int(text[:2]), int(text[2:])))
        else:
            model.note("value", where, f"specific date {text!r} is not MMDD")


def _rule_based(out: CtmWhen, value: Any, where: str, model: ImportModel, rules: _Rules) -> None:
    rule_calendars(value, where, model, rules)
    out.rule_calendars = [str(v) for v in _list(value.get("Included"))]
    if value.get("Excluded"):
        model.note("calendar", where, "Excluded rule-based calendars: not mapped")


def _calendars(out: CtmWhen, value: Any, *_: Any) -> None:
    out.rule_calendars = [str(v) for v in _list(value.get("Included"))]


def _schedule(out: CtmWhen, value: Any, where: str, model: ImportModel, _: _Rules) -> None:
    if str(value).replace(" ", "").lower() == "never":
        out.never = True
    elif str(value).replace(" ", "").lower() != "everyday":
        model.note("value", where, f"Schedule {value!r} not mapped")


def _time_zone(out: CtmWhen, value: Any, where: str, model: ImportModel, _: _Rules) -> None:
    out.timezone = timezone_of(str(value), model, where)


_Rules = dict[str, CtmWhen]
_Field = Callable[[CtmWhen, Any, str, ImportModel, _Rules], None]
_FIELDS: dict[str, _Field] = {
    "WeekDays": _week_days,
    "MonthDays": _month_days,
    "Months": _months,
    "FromTime": _from_time,
    "ToTime": _to_time,
    "DaysRelation": _days_relation,
    "MonthDaysCalendar": _days_calendar,
    "WeekDaysCalendar": _weeks_calendar,
    "ConfirmationCalendars": _confirmation,
    "SpecificDates": _specific_dates,
    "RuleBasedCalendars": _rule_based,
    "Calendars": _calendars,
    "Schedule": _schedule,
    "TimeZone": _time_zone,
}
_OBJECTS = {"ConfirmationCalendars", "RuleBasedCalendars", "Calendars"}  # mapped when objects


def rule_calendars(
    value: dict[str, Any], where: str, model: ImportModel, rules: dict[str, CtmWhen]
) -> None:
    """The rule-based calendars a ``RuleBasedCalendars`` object defines."""
    for name, sub in value.items():
        if name in ("Included", "Excluded"):
            continue
        if isinstance(sub, dict) and isinstance(sub.get("When"), dict):
            rules[name] = json_when(sub["When"], f"{where}.{name}.When", model, rules)
        else:
            model.note("calendar", f"{where}.{name}", "not a rule-based calendar")


# -- folders and jobs ----------------------------------------------------------------
