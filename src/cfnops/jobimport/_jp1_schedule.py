"""JP1/AJS3 schedule rules (``sd``/``st``/``cy``/``sh``/``shd``) and exclusive schedules
(``ejn``) → cfnops schedules (JP1/AJS3 Command Reference, 5.2.3 "Jobnet definition").

- ``sd=N,dd`` / ``b`` (last day) with a monthly cycle → ``cron(m h dd * ? *)`` / ``L``;
- ``sd=N,*dd`` / ``*b`` / ``*b-DD`` (open days counted in the job group's calendar) →
  ``--day-rule nth-open:dd`` / ``nth-open:-1`` / ``nth-open:-(DD+1)``;
- a daily cycle → a daily cron; a weekly one → the start date's week day;
- ``sh=be|af|ca|no`` (closed-day substitution) → ``previous-open`` / ``next-open`` /
  ``open`` / no calendar; ``shd`` (at most N days) is reported;
- other cycles (every N days, N-th week day of the month, a start in the future) → the
  days listed in a calendar (:func:`cfnops.jobimport._days.materialise`);
- ``ejn=OTHER``: the job-net does not run on the days OTHER is scheduled: its days are
  listed without OTHER's (computed with cfnops's own scheduler).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from cfnops.jobimport._days import ALL_WEEKDAYS, cron, jobs_schedule, materialise
from cfnops.jobimport._jp1_lexer import Unit, unquote
from cfnops.jobimport._model import CalendarSpec, ImportModel, JobNet, ScheduleSpec

__all__ = ["ScheduleRules"]

_WEEK = {"su": "SUN", "mo": "MON", "tu": "TUE", "we": "WED", "th": "THU", "fr": "FRI", "sa": "SAT"}
_RULE = re.compile(r"^(?:(\d+),)?(.*)$")
_DAY = re.compile(r"(?:(\d{4})/)?(?:(\d{1,2})/)?([*@+]?)(\d{1,2}|b)(?:-(\d{1,2}))?")
_WEEKDAY = re.compile(r"(su|mo|tu|we|th|fr|sa)(?::(\d|b))?")
_SHIFT = {"be": "previous-open", "af": "next-open", "ca": "open", "no": None}


@dataclass(frozen=True)
class _Rule:
    """One schedule rule, read: the parts every start-day form (``sd``) needs."""

    net: JobNet
    name: str
    sd: str
    hhmm: str
    where: str
    cy: str
    every: str
    unit: str
    group_calendar: str | None
    calendar: str | None
    day_rule: str | None

    def spec(self, expression: str) -> ScheduleSpec:
        """A schedule firing on ``expression``, with the rule's closed-day shift."""
        return ScheduleSpec(
            self.name,
            expression,
            self.net.timezone,
            self.calendar,
            self.day_rule if self.calendar else None,
            (),
            self.where,
        )


class ScheduleRules:
    """Mixed into the JP1 reader: its model, today, nets and ``where``."""

    model: ImportModel
    today: date
    tz: str
    nets: dict[str, JobNet]

    def where(self, unit: Unit, line: int | None = None) -> str:
        return f"line {line or unit.line} ({unit.path})"

    def _group_calendar(self, unit: Unit) -> str | None:
        ref = unit.get("jc")
        if ref:
            name = unquote(ref).strip("/").replace("/", "-")
            return name if name in self.model.calendars else None
        node = unit.parent
        while node is not None:
            name = node.path.strip("/").replace("/", "-")
            if name in self.model.calendars:
                return name
            node = node.parent
        return None

    # -- rules -----------------------------------------------------------------------
    def _schedules(self, net: JobNet, unit: Unit) -> None:
        rules: dict[str, dict[str, tuple[str, int]]] = {}
        for key in ("sd", "st", "cy", "sh", "shd"):
            for value, line in unit.all(key):
                m = _RULE.match(value)
                assert m is not None
                rules.setdefault(m.group(1) or "1", {})[key] = (m.group(2).strip(), line)
        if not rules:
            self.model.note(
                "schedule",
                self.where(unit),
                "no schedule rule (sd; JP1 assumes 1,en: the day it is registered): none made",
            )
        cal = self._group_calendar(unit)
        net.rules = [{k: v for k, (v, _) in rule.items()} for _, rule in sorted(rules.items())]
        net.rule_calendar = cal
        for number, rule in sorted(rules.items()):
            name = net.name if len(rules) == 1 else f"{net.name}-{number}"
            spec = self._rule(net, unit, name, rule, cal)
            if spec is not None:
                net.schedules.append(spec)

    def _rule(
        self, net: JobNet, unit: Unit, name: str, rule: dict[str, tuple[str, int]], cal: str | None
    ) -> ScheduleSpec | None:
        r = self._rule_parts(net, unit, name, rule, cal)
        sd_l = r.sd.lower()
        if sd_l in ("ud", "en"):
            if sd_l == "en" and r.cy == "1,d":
                return r.spec(cron(r.hhmm))
            self.model.note(
                "schedule",
                r.where,
                f"sd={r.sd}: started by hand or on registration: no schedule made",
            )
            return None
        m = _DAY.fullmatch(sd_l)
        if m:
            return self._day_of_month(r, *m.groups())
        wm = _WEEKDAY.fullmatch(sd_l)
        if wm:
            return self._week_day(r, _WEEK[wm.group(1)], wm.group(2))
        self._unmapped(r)
        return None

    def _rule_parts(
        self, net: JobNet, unit: Unit, name: str, rule: dict[str, tuple[str, int]], cal: str | None
    ) -> _Rule:
        """Read the start time, cycle and closed-day shift of one rule (noting what cfnops
        does differently) and pick the calendar its schedule is checked against."""
        sd, line = rule.get("sd", ("ud", unit.line))
        where = self.where(unit, line)
        st_raw = rule.get("st", ("00:00", 0))[0]
        st = st_raw.lstrip("+")
        if st_raw.startswith("+"):
            # Command Reference, 5.2.4 "Jobnet definition" (itpfdoc.hitachi.co.jp/manuals/
            # 3021/30213D2830e/AJSO0215.HTM): st=[N,][+]hh:mm, '+' marks a relative start
            # time. What it is counted from (the base time of the day, or the upper-level
            # jobnet's start) was not confirmed from that page, so the time is taken from
            # the start of the day and reported.
            self.model.note(
                "schedule",
                where,
                f"st=+{st}: a relative start time (JP1 counts it from a reference time, "
                f"the base time or the upper-level jobnet's start); started at {st} from "
                "the start of the day here: check the time against JP1's schedule display",
            )
        hhmm = st.replace(":", "").zfill(4)
        if int(hhmm[:2]) >= 24:
            self.model.note("schedule", where, f"start time {st} (after 24:00): taken modulo 24")
        cy = rule.get("cy", ("", 0))[0].strip("()").replace(" ", "")
        every, _, unit_ = cy.partition(",")
        sh = rule.get("sh", ("ca", 0))[0]
        day_rule = _SHIFT.get(sh, "open")
        if "shd" in rule and day_rule in ("previous-open", "next-open"):
            self.model.note(
                "schedule",
                where,
                f"JP1 shifts at most {rule['shd'][0]} days; cfnops shifts to the nearest open day",
            )
        calendar = cal if day_rule else None
        if calendar is None and day_rule and sh != "ca":
            calendar = self._all_open()
        return _Rule(net, name, sd, hhmm, where, cy, every, unit_, cal, calendar, day_rule)

    def _day_of_month(
        self, r: _Rule, year: str | None, month: str | None, mark: str, day: str, back: str | None
    ) -> ScheduleSpec | None:
        """``sd=[[yyyy/]mm/][*@+]dd|b[-DD]``: a day of the month, counted in calendar days
        or (``*``) in open days, or the last day (``b``) less DD days."""
        monthly = (r.unit == "m" and r.every == "1") or (not r.cy and not month)
        if mark == "*" and monthly:
            nth = -(int(back or 0) + 1) if day == "b" else int(day)
            return ScheduleSpec(
                r.name,
                cron(r.hhmm),
                r.net.timezone,
                r.group_calendar or self._all_open(),
                f"nth-open:{nth}",
                (),
                r.where,
            )
        if mark == "" and monthly and not back:
            return r.spec(cron(r.hhmm, "L" if day == "b" else str(int(day))))
        if mark == "" and day == "b" and back and monthly:  # DD days before the last
            days_back = int(back)

            def before_last(d: date) -> bool:
                return (d + timedelta(days=days_back + 1)).day == 1

            return self._listed_by(r, before_last)
        if mark == "" and day != "b" and month and not year and not r.cy:  # every year
            mm, dd = int(month), int(day)

            def on_day(d: date) -> bool:
                return (d.month, d.day) == (mm, dd)  # 02/29: leap years only

            return self._listed_by(r, on_day)
        if mark == "" and day != "b" and (r.unit in ("d", "w", "y", "m") or not r.cy):
            start = date(int(year or self.today.year), int(month or self.today.month), int(day))
            if r.unit == "d" and r.every == "1" and start <= self.today:
                return r.spec(cron(r.hhmm))
            if r.unit == "w" and r.every == "1" and year and month:
                return r.spec(cron(r.hhmm, "?", "*", ALL_WEEKDAYS[start.weekday()]))
            return self._cycle(
                r.net, r.name, start, r.every, r.unit, r.hhmm, r.calendar, r.day_rule, r.where
            )
        self._unmapped(r)
        return None

    def _week_day(self, r: _Rule, dow: str, which: str | None) -> ScheduleSpec | None:
        """``sd=su`` with a weekly cycle, or ``sd=su:N`` / ``su:b`` (the N-th or last
        week day of the month)."""
        if which is None:
            if r.cy == "1,w":  # every week on that day
                return r.spec(cron(r.hhmm, "?", "*", dow))
            self._unmapped(r)
            return None

        def fires(d: date) -> bool:
            if ALL_WEEKDAYS[d.weekday()] != dow:
                return False
            if which == "b":
                return (d + timedelta(days=7)).month != d.month
            return (d.day - 1) // 7 + 1 == int(which)

        return self._listed_by(r, fires)

    def _listed_by(self, r: _Rule, fires: Callable[[date], bool]) -> ScheduleSpec:
        return self._listed(r.net, r.name, fires, r.hhmm, r.where, r.calendar, r.day_rule)

    def _unmapped(self, r: _Rule) -> None:
        self.model.note(
            "schedule", r.where, f"sd={r.sd}: start day form not mapped; no schedule made"
        )

    def _all_open(self) -> str:
        if "jp1-all-open" not in self.model.calendars:
            self.model.calendars["jp1-all-open"] = CalendarSpec(
                "jp1-all-open",
                timezone=self.tz,
                comment="no JP1 calendar: every day is open",
                source="(default)",
            )
            self.model.note(
                "calendar",
                "jp1-all-open",
                "the file defines no open/closed days (job group op=/cl=): every day is open; "
                "export the calendar and edit calendars/jp1-all-open.toml",
            )
        return "jp1-all-open"

    def _cycle(
        self,
        net: JobNet,
        name: str,
        start: date,
        every: str,
        unit_: str,
        hhmm: str,
        calendar: str | None,
        day_rule: str | None,
        where: str,
    ) -> ScheduleSpec:
        n = int(every or 1)
        step = {"d": 1, "w": 7}.get(unit_ or "d", 0)

        def fires(d: date) -> bool:
            if d < start:
                return False
            if not unit_:
                return d == start
            if step:
                return (d - start).days % (n * step) == 0
            months = (d.year - start.year) * 12 + d.month - start.month
            if unit_ == "y":
                return (
                    d.day == start.day and d.month == start.month and (d.year - start.year) % n == 0
                )
            return d.day == start.day and months % n == 0

        return self._listed(net, name, fires, hhmm, where, calendar, day_rule)

    def _listed(
        self,
        net: JobNet,
        name: str,
        fires: Callable[[date], bool],
        hhmm: str,
        where: str,
        calendar: str | None = None,
        day_rule: str | None = None,
    ) -> ScheduleSpec:
        cal_name = f"{name}-days"
        listed = materialise(cal_name, self.today, fires, net.timezone, where)
        if calendar and day_rule:
            base = self.model.calendars[calendar]
            listed.open = {m for d in listed.open if (m := _shift(base, d, day_rule)) is not None}
        self.model.calendars[cal_name] = listed
        self.model.note(
            "schedule",
            where,
            f"no cron/day-rule equivalent: days listed in calendar "
            f"{cal_name} up to {self.today.year + 1}-12-31; import again before then",
        )
        return ScheduleSpec(name, cron(hhmm), net.timezone, cal_name, "open", (), where)

    def _exclude(self, net: JobNet, other: str, where: str) -> None:
        target = self.nets.get(other.rsplit("/", 1)[-1])
        if target is None:
            self.model.note(
                "schedule",
                where,
                f"exclusive schedule with {other}, which is not in the file: not applied",
            )
            return
        busy = self._fire_days(target)
        out = []
        for spec in net.schedules:
            if spec.cron is None:
                out.append(spec)
                continue
            days = self._fire_days_of(spec) - busy
            cal_name = f"{spec.name}-excl"
            self.model.calendars[cal_name] = CalendarSpec(
                cal_name,
                closed_weekdays=set(ALL_WEEKDAYS),
                open=days,
                timezone=spec.timezone,
                comment=f"days of {spec.name} without those of {other}, up to "
                f"{self.today.year + 1}-12-31",
                source=where,
            )
            out.append(
                ScheduleSpec(
                    spec.name,
                    cron(_hhmm(spec.cron)),
                    spec.timezone,
                    cal_name,
                    "open",
                    (),
                    spec.source,
                )
            )
        net.schedules = out
        self.model.note(
            "schedule",
            where,
            f"exclusive schedule: {net.name} does not run on "
            f"the days {other} runs (days listed up to {self.today.year + 1}-12-31)",
        )

    def _fire_days(self, net: JobNet) -> set[date]:
        out: set[date] = set()
        for spec in net.schedules:
            if spec.cron is not None:
                out |= self._fire_days_of(spec)
        return out

    def _fire_days_of(self, spec: ScheduleSpec) -> set[date]:
        tz = ZoneInfo(spec.timezone)
        sched = jobs_schedule(self.model.calendars, spec)
        at = datetime.combine(self.today, time(0), tz).astimezone(UTC)
        end = date(self.today.year + 1, 12, 31)
        days: set[date] = set()
        for _ in range(800):
            try:
                at = sched.next_after(at)
            except Exception:
                break
            local = at.astimezone(tz).date()
            if local > end:
                break
            days.add(local)
        return days


def _open(cal: CalendarSpec, d: date) -> bool:
    if d in cal.open:
        return True
    return d not in cal.closed and ALL_WEEKDAYS[d.weekday()] not in cal.closed_weekdays


def _shift(cal: CalendarSpec, d: date, rule: str) -> date | None:
    if _open(cal, d):
        return d
    if rule not in ("next-open", "previous-open"):
        return None
    step = timedelta(days=1 if rule == "next-open" else -1)
    for _ in range(366):
        d += step
        if _open(cal, d):
            return d
    return None


def _hhmm(expr: str) -> str:
    parts = expr[5:-1].split()
    return f"{int(parts[1]):02d}{int(parts[0]):02d}"
