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
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from cfnops.jobimport._days import ALL_WEEKDAYS, cron, materialise
from cfnops.jobimport._jp1_lexer import Unit, unquote
from cfnops.jobimport._model import CalendarSpec, ImportModel, JobNet, ScheduleSpec

__all__ = ["ScheduleRules"]

_WEEK = {"su": "SUN", "mo": "MON", "tu": "TUE", "we": "WED", "th": "THU", "fr": "FRI", "sa": "SAT"}
_RULE = re.compile(r"^(?:(\d+),)?(.*)$")


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
        sd, line = rule.get("sd", ("ud", unit.line))
        where = self.where(unit, line)
        st = rule.get("st", ("00:00", 0))[0].lstrip("+")
        hhmm = st.replace(":", "").zfill(4)
        if int(hhmm[:2]) >= 24:
            self.model.note("schedule", where, f"start time {st} (after 24:00): taken modulo 24")
        cy = rule.get("cy", ("", 0))[0].strip("()").replace(" ", "")
        every, _, unit_ = cy.partition(",")
        shift = {"be": "previous-open", "af": "next-open", "ca": "open", "no": None}
        sh = rule.get("sh", ("ca", 0))[0]
        day_rule = shift.get(sh, "open")
        if "shd" in rule and day_rule in ("previous-open", "next-open"):
            self.model.note(
                "schedule",
                where,
                f"JP1 shifts at most {rule['shd'][0]} days; cfnops shifts to the nearest open day",
            )
        calendar = cal if day_rule else None
        if calendar is None and day_rule and sh != "ca":
            calendar = self._all_open()
        sd_l = sd.lower()
        if sd_l in ("ud", "en"):
            if sd_l == "en" and cy == "1,d":
                return ScheduleSpec(
                    name,
                    cron(hhmm),
                    net.timezone,
                    calendar,
                    day_rule if calendar else None,
                    (),
                    where,
                )
            self.model.note(
                "schedule", where, f"sd={sd}: started by hand or on registration: no schedule made"
            )
            return None
        m = re.fullmatch(r"(?:(\d{4})/)?(?:(\d{1,2})/)?([*@+]?)(\d{1,2}|b)(?:-(\d{1,2}))?", sd_l)
        if m:
            year, month, mark, day, back = m.groups()
            monthly = (unit_ == "m" and every == "1") or (not cy and not month)
            if mark == "*" and monthly:
                nth = -(int(back or 0) + 1) if day == "b" else int(day)
                return ScheduleSpec(
                    name,
                    cron(hhmm),
                    net.timezone,
                    cal or self._all_open(),
                    f"nth-open:{nth}",
                    (),
                    where,
                )
            if mark == "" and monthly and not back:
                dom = "L" if day == "b" else str(int(day))
                return ScheduleSpec(
                    name,
                    cron(hhmm, dom),
                    net.timezone,
                    calendar,
                    day_rule if calendar else None,
                    (),
                    where,
                )
            if mark == "" and day == "b" and back and monthly:  # DD days before the last

                def before_last(d: date, back: int = int(back)) -> bool:
                    return (d + timedelta(days=back + 1)).day == 1

                return self._listed(net, name, before_last, hhmm, where, calendar, day_rule)
            if mark == "" and day != "b" and month and not year and not cy:  # every year

                def on_day(d: date, mm: int = int(month), dd: int = int(day)) -> bool:
                    return (d.month, d.day) == (mm, dd)  # 02/29: leap years only

                return self._listed(net, name, on_day, hhmm, where, calendar, day_rule)
            if mark == "" and day != "b" and (unit_ in ("d", "w", "y", "m") or not cy):
                start = date(int(year or self.today.year), int(month or self.today.month), int(day))
                if unit_ == "d" and every == "1" and start <= self.today:
                    return ScheduleSpec(
                        name,
                        cron(hhmm),
                        net.timezone,
                        calendar,
                        day_rule if calendar else None,
                        (),
                        where,
                    )
                if unit_ == "w" and every == "1" and year and month:
                    dow = ALL_WEEKDAYS[start.weekday()]
                    return ScheduleSpec(
                        name,
                        cron(hhmm, "?", "*", dow),
                        net.timezone,
                        calendar,
                        day_rule if calendar else None,
                        (),
                        where,
                    )
                return self._cycle(net, name, start, every, unit_, hhmm, calendar, day_rule, where)
        wm = re.fullmatch(r"(su|mo|tu|we|th|fr|sa)(?::(\d|b))?", sd_l)
        if wm and wm.group(2) is None and cy == "1,w":  # every week on that day
            return ScheduleSpec(
                name,
                cron(hhmm, "?", "*", _WEEK[wm.group(1)]),
                net.timezone,
                calendar,
                day_rule if calendar else None,
                (),
                where,
            )
        if wm and wm.group(2) is not None:
            dow, which = _WEEK[wm.group(1)], wm.group(2)

            def fires(d: date) -> bool:
                if ALL_WEEKDAYS[d.weekday()] != dow:
                    return False
                if which == "b":
                    return (d + timedelta(days=7)).month != d.month
                return (d.day - 1) // 7 + 1 == int(which)

            return self._listed(net, name, fires, hhmm, where, calendar, day_rule)
        self.model.note("schedule", where, f"sd={sd}: start day form not mapped; no schedule made")
        return None

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
        from cfnops.jobs import Calendar, CalendarSchedule, parse_day_rule, parse_schedule

        tz = ZoneInfo(spec.timezone)
        sched: object = parse_schedule(spec.cron or "", spec.timezone)
        if spec.calendar:
            c = self.model.calendars[spec.calendar]
            cal = Calendar(
                c.name,
                frozenset(ALL_WEEKDAYS.index(d) for d in c.closed_weekdays),
                frozenset(c.closed),
                frozenset(c.open),
                c.timezone,
            )
            sched = CalendarSchedule(sched, cal, parse_day_rule(spec.day_rule or "open"))  # type: ignore[arg-type]
        at = datetime.combine(self.today, time(0), tz).astimezone(UTC)
        end = date(self.today.year + 1, 12, 31)
        days: set[date] = set()
        for _ in range(800):
            try:
                at = sched.next_after(at)  # type: ignore[attr-defined]
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
