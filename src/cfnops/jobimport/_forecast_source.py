"""Run dates under the *source's* rules, evaluated straight from the vendors' manuals.

This is the reference side of the forecast (:mod:`cfnops.jobimport._forecast`): it reads
the parsed criteria, not the schedules the importer made from them, so a translation
mistake shows up as a difference.

Control-M (BMC, DAYS / WDAYS / CONFCAL basic scheduling parameters,
https://documents.bmc.com/supportu/INC/help/Main_help/en-US/71319.htm and
https://documents.bmc.com/supportu/INC/help/Main_help/en-US/77014.htm; exception policy,
https://documents.bmc.com/supportu/ctrlm9/help/Main_help/en-US/3821.htm):

- DAYS ``n`` day n, ``Ln`` the n-th day from the month's end, ``Dn`` the n-th day; with a
  days calendar (DCAL) a day must be in both, and ``Dn`` / ``Ln`` count the calendar's
  working days; DCAL alone: its days. WDAYS likewise with WCAL. AND: both (a missing one
  is ALL), OR: either. MONTHS limit both; DATES (MMDD) add days. No day criteria at all:
  every day (Control-M's "Everyday").
- CONFCAL: a day that is not a working day is dropped (Do not order), moved to the next /
  previous working day, or kept (Order anyway); then SHIFTNUM moves it by that many
  working days of the CONFCAL.
- Other day forms (``+n``, ``-n``, ``>n``, ``<n``, periodic ``DnPi``) are not evaluated:
  :class:`NotEvaluated` names them.

JP1/AJS3 (Command Reference 5.2.3 jobnet definition ``sd``/``st``/``cy``/``sh``/``shd``,
https://itpfdoc.hitachi.co.jp/manuals/3021/30213D2810/AJSO0219.HTM):

- ``sd=[yyyy/][mm/]dd``, ``b`` (last day), ``b-DD``, ``*dd`` / ``*b`` (open days of the job
  group's calendar), ``@dd`` / ``@b`` (closed days), ``su``…``sa[:n|b]`` (the n-th / last
  such week day); without the year the rule holds every year, without the month every
  month; with a full start date ``cy=(n,d|w|m|y)`` repeats it every n days, weeks,
  months (the day form evaluated in each month) or years;
- ``st`` the time (``+`` ignored; 24:00 and later is the next day);
- a closed day: ``sh=be`` the open day before, ``af`` after (at most ``shd`` days, 2 when
  omitted), ``ca`` none, ``no`` the closed day itself;
- ``ejn=OTHER``: not on a day OTHER runs (applied by the forecast).
"""

from __future__ import annotations

import calendar as _cal
import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import date, timedelta

from cfnops.jobimport._controlm_when import CtmWhen
from cfnops.jobimport._model import CalendarSpec

__all__ = ["NotEvaluated", "ctm_runs", "jp1_runs"]

Run = tuple[date, str]  # local day, "HH:MM"
_WEEK = ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"]
_JP1_WEEK = {"mo": 0, "tu": 1, "we": 2, "th": 3, "fr": 4, "sa": 5, "su": 6}


class NotEvaluated(Exception):
    """A source form this forecast does not evaluate (the message names it)."""


def _open(cal: CalendarSpec | None, d: date) -> bool:
    if cal is None:
        return True
    if d in cal.open:
        return True
    return d not in cal.closed and _WEEK[d.weekday()] not in cal.closed_weekdays


def _span(start: date, end: date, margin: int = 70) -> list[date]:
    first = start - timedelta(days=margin)
    return [first + timedelta(days=i) for i in range((end - first).days + margin + 1)]


def _month_days(d: date) -> list[date]:
    n = _cal.monthrange(d.year, d.month)[1]
    return [d.replace(day=i) for i in range(1, n + 1)]


def _hhmm(text: str | None) -> str:
    t = (text or "0000").replace(":", "").zfill(4)
    return f"{t[:2]}:{t[2:4]}"


# -- Control-M ---------------------------------------------------------------------------
def ctm_runs(
    when: CtmWhen,
    rules: Mapping[str, CtmWhen],
    cals: Mapping[str, CalendarSpec],
    start: date,
    end: date,
) -> list[Run]:
    """The (day, time) runs of one set of Control-M criteria between start and end."""
    if when.never:
        return []
    if when.rule_calendars:
        out: set[Run] = set()
        for rc in when.rule_calendars:
            if rc not in rules:
                raise NotEvaluated(f"rule-based calendar {rc!r} is not in the export")
            rule = rules[rc]
            merged = replace(rule, from_time=when.from_time or rule.from_time, rule_calendars=[])
            out |= set(ctm_runs(merged, rules, cals, start, end))
        return sorted(out)
    for cal_name in (when.days_calendar, when.weeks_calendar, when.conf_calendar):
        if cal_name and cal_name not in cals:
            raise NotEvaluated(f"calendar {cal_name!r} is not in the export")
    days = {d for d in _span(start, end) if _ctm_day(when, d, cals)}
    conf = cals.get(when.conf_calendar or "") if when.policy != "anyway" else None
    moved = {m for d in days if (m := _confirm(d, conf, when.policy, when.shift_by)) is not None}
    at = _hhmm(when.from_time)
    return sorted((d, at) for d in moved if start <= d <= end)


def _ctm_day(when: CtmWhen, d: date, cals: Mapping[str, CalendarSpec]) -> bool:
    if (d.month, d.day) in when.specific_dates:
        return True
    if when.months and d.month not in when.months:
        return False
    tokens = [t.strip().upper() for t in when.month_days if t.strip()]
    dcal = cals.get(when.days_calendar or "")
    wcal = cals.get(when.weeks_calendar or "")
    has_dom = (bool(tokens) and tokens != ["NONE"]) or dcal is not None
    has_dow = bool(when.week_days) or wcal is not None
    if when.specific_dates and not has_dom and not has_dow:
        return False
    dom = _dom_hit(tokens, d, dcal) if has_dom else None
    dow = _dow_hit(when.week_days, d, wcal) if has_dow else None
    if dom is None and dow is None:
        return tokens != ["NONE"]  # no day criteria: every day
    if when.relation == "AND":
        return (dom is not False) and (dow is not False)
    return bool(dom) or bool(dow)


def _dom_hit(tokens: list[str], d: date, dcal: CalendarSpec | None) -> bool:
    month = _month_days(d)
    working = [x for x in month if _open(dcal, x)]
    if not tokens or tokens == ["NONE"]:
        return dcal is not None and _open(dcal, d)
    for t in tokens:
        if t == "ALL":
            if _open(dcal, d):
                return True
        elif t.isdigit():
            if d.day == int(t) and _open(dcal, d):
                return True
        elif re.fullmatch(r"[DL]\d{1,2}", t):
            n = int(t[1:])
            pool = working if dcal is not None else month
            if 1 <= n <= len(pool) and d == (pool[n - 1] if t[0] == "D" else pool[-n]):
                return True
        elif t != "NONE":
            raise NotEvaluated(f"DAYS form {t!r}")
    return False


def _dow_hit(week: list[str], d: date, wcal: CalendarSpec | None) -> bool:
    names = {w.upper()[:3] for w in week}
    if not names:
        return wcal is not None and _open(wcal, d)
    return ("ALL" in names or _WEEK[d.weekday()] in names) and _open(wcal, d)


def _confirm(d: date, conf: CalendarSpec | None, policy: str, shift_by: int) -> date | None:
    if conf is None:
        return d
    if not _open(conf, d):
        if policy == "open":
            return None
        step = timedelta(days=1 if policy == "next-open" else -1)
        for _ in range(366):
            d += step
            if _open(conf, d):
                break
    for _ in range(abs(shift_by)):
        d += timedelta(days=1 if shift_by > 0 else -1)
        while not _open(conf, d):
            d += timedelta(days=1 if shift_by > 0 else -1)
    return d


# -- JP1/AJS3 ----------------------------------------------------------------------------
_SD = re.compile(
    r"^(?:(?P<y>\d{4})/)?(?:(?P<m>\d{1,2})/)?"
    r"(?:(?P<mark>[*@+]?)(?P<day>\d{1,2}|b)(?:-(?P<back>\d{1,2}))?"
    r"|(?P<wd>su|mo|tu|we|th|fr|sa)(?::(?P<nth>\d|b))?)$"
)


def jp1_runs(
    rule: Mapping[str, str], cal: CalendarSpec | None, start: date, end: date
) -> list[Run]:
    """The (day, time) runs of one JP1 schedule rule (``sd``, ``st``, ``cy``, ``sh``, ``shd``)."""
    sd = rule.get("sd", "ud").lower()
    st = rule.get("st", "00:00").lstrip("+")
    hh, _, mm = st.partition(":")
    extra, hour = divmod(int(hh or 0), 24)
    at = f"{hour:02d}:{int(mm or 0):02d}"
    cy = rule.get("cy", "").strip("()").replace(" ", "")
    every_s, _, unit = cy.partition(",")
    every = int(every_s) if every_s.isdigit() else 1
    base = _jp1_base(sd, cy, every, unit, cal, start, end)
    sh = rule.get("sh", "ca")
    limit = int(rule.get("shd", "2"))
    out: set[Run] = set()
    for d in base:
        moved = _jp1_shift(d, cal, sh, limit)
        if moved is not None:
            day = moved + timedelta(days=extra)
            if start <= day <= end:
                out.add((day, at))
    return sorted(out)


def _jp1_base(
    sd: str, cy: str, every: int, unit: str, cal: CalendarSpec | None, start: date, end: date
) -> list[date]:
    span = _span(start, end)
    if sd == "en" and unit == "d" and every == 1:
        return span
    m = _SD.match(sd)
    if m is None:
        raise NotEvaluated(f"sd={sd}")
    y, mo = m.group("y"), m.group("m")
    if unit in ("d", "w"):
        if not (y and mo) or m.group("wd") or m.group("mark") or m.group("day") == "b":
            raise NotEvaluated(f"sd={sd} with cy=({cy})")
        first = date(int(y), int(mo), int(m.group("day")))
        step = every * (7 if unit == "w" else 1)
        return [d for d in span if d >= first and (d - first).days % step == 0]
    months = sorted({d.replace(day=1) for d in span})
    if y and mo:  # a start month, repeated by a month/year cycle (or once)
        first = date(int(y), int(mo), 1)
        step = every * (12 if unit == "y" else 1) if unit in ("m", "y") else 0
        months = [
            x for x in months
            if x >= first and (x == first if step == 0 else _months(first, x) % step == 0)
        ]  # fmt: skip
    elif mo:
        months = [x for x in months if x.month == int(mo)]
    elif y:
        raise NotEvaluated(f"sd={sd}")
    return [d for x in months if (d := _day_in(m, x, cal)) is not None]


def _months(a: date, b: date) -> int:
    return (b.year - a.year) * 12 + b.month - a.month


def _day_in(m: re.Match[str], month: date, cal: CalendarSpec | None) -> date | None:
    days = _month_days(month)
    if m.group("wd"):
        same = [d for d in days if d.weekday() == _JP1_WEEK[m.group("wd")]]
        nth = m.group("nth") or "1"
        if nth == "b":
            return same[-1]
        return same[int(nth) - 1] if int(nth) <= len(same) else None
    mark, day, back = m.group("mark"), m.group("day"), int(m.group("back") or 0)
    pool = days
    if mark == "*":
        pool = [d for d in days if _open(cal, d)]
    elif mark == "@":
        pool = [d for d in days if not _open(cal, d)]
    if day == "b":
        return pool[-(back + 1)] if back + 1 <= len(pool) else None
    n = int(day)
    return pool[n - 1] if 1 <= n <= len(pool) else None


def _jp1_shift(d: date, cal: CalendarSpec | None, sh: str, limit: int) -> date | None:
    if _open(cal, d) or sh == "no":
        return d
    if sh not in ("be", "af"):
        return None
    step = timedelta(days=-1 if sh == "be" else 1)
    for i in range(1, limit + 1):
        if _open(cal, d + step * i):
            return d + step * i
    return None
