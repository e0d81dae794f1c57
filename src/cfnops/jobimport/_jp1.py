"""JP1/AJS3 units → :class:`ImportModel` (JP1/AJS3 Command Reference, 5.2 "Information
definition formats": jobnet definition ``sd``/``st``/``cy``/``sh``/``shd``/``ejn``,
Unix/PC job definition ``sc``/``te``/``prm``/``un``/``ha``/``abr``/``rec``/``rei``).

Each root jobnet (a ``ty=n`` unit not inside another jobnet) is a job-net; nested
jobnets are flattened into it, and relations ``ar=(f=A,t=B)`` between nested units
connect the last jobs of A to the first jobs of B. Recovery units (``rj``, ``rn`` …) run
only when a unit fails: they are reported, not laid out.
"""

from __future__ import annotations

import re
from datetime import date, datetime

from cfnops.jobimport import _model
from cfnops.jobimport._jp1_job import JOB_KEYS, UNIT_TYPES, job_command
from cfnops.jobimport._jp1_lexer import Unit, parse_units, unquote
from cfnops.jobimport._jp1_schedule import ScheduleRules
from cfnops.jobimport.errors import ImportInputError

__all__ = ["read_jp1"]

_JOBS = {"j": "unix", "pj": "pc", "qj": "unix", "cj": "unix", "cpj": "pc", "fxj": "unix"}
_DUMMY = {
    "jdj": "judgment job: its dependent units run whatever the judgment",
    "orj": "OR job: waits for all its predecessors (AND)",
}
_EVENTS = {
    "flwj",
    "tmwj",
    "evwj",
    "mlwj",
    "mqwj",
    "mswj",
    "lfwj",
    "ntwj",
    "evsj",
    "mlsj",
    "mqsj",
    "mssj",
    "cmsj",
    "pwlj",
    "pwrj",
    "htpj",
}
_USED = {
    "ty",
    "el",
    "ar",
    "sz",
    "cm",
    "sd",
    "st",
    "cy",
    "sh",
    "shd",
    "ln",
    "ejn",
    "jc",
    "sc",
    "te",
    "prm",
    "un",
    "ha",
    "abr",
    "rec",
    "rei",
    "rjs",
    "rje",
    "ex",
    "flwf",
    "flwi",
    "tmitv",
    "op",
    "cl",
    "eu",
    "ncn",
    "ncl",
    "evid",
    "evhst",
    "mp",
    "ms",
    "mm",
    "eun",
}
_QUIET = {
    "jty",
    "ets",
    "top1",
    "top2",
    "top3",
    "top4",
    "rg",
    "ni",
    "mm",
    "nmg",
    "ncs",
    "ncex",
    "ncn_",
    "md",
    "sdd",
    "ha_",
}
_WEEK = {"su": "SUN", "mo": "MON", "tu": "TUE", "we": "WED", "th": "THU", "fr": "FRI", "sa": "SAT"}
_RULE = re.compile(r"^(?:(\d+),)?(.*)$")


def read_jp1(text: str, source: str, tz: str, today: date) -> _model.ImportModel:
    units = parse_units(text, source)
    reader = _Jp1(source, tz, today)
    for unit in units:
        reader.walk(unit)
    if not reader.model.jobnets:
        raise ImportInputError(
            source,
            f"line {units[0].line}",
            "no jobnet (ty=n) in the file",
            "print a root jobnet (or its job group) with ajsprint -a",
        )
    reader.finish()
    return reader.model


_RELATION = re.compile(r"\(\s*f=([^,]+),\s*t=([^,)]+)(?:,\s*(\w+))?\s*\)")


class _Jp1(ScheduleRules):
    def __init__(self, source: str, tz: str, today: date) -> None:
        self.model = _model.ImportModel("jp1")
        self.source, self.tz, self.today = source, tz, today
        self.unknown: dict[str, list[str]] = {}  # parameter -> where each use is
        self.exclusive: list[tuple[_model.JobNet, str, str]] = []
        self.waits: list[tuple[_model.JobNet, str, str]] = []  # (net, jobnet waited for, where)
        self.nets: dict[str, _model.JobNet] = {}

    def walk(self, unit: Unit) -> None:
        if unit.type == "g":
            self._calendar(unit)
            for child in unit.children:
                self.walk(child)
        elif unit.type == "n":
            self._root(unit)
        else:
            self.model.note("job", self.where(unit), f"unit type {unit.type!r} outside a jobnet")

    def _calendar(self, group: Unit) -> None:
        days = group.all("op") + group.all("cl")
        if not days:
            return
        cal = _model.CalendarSpec(
            group.path.strip("/").replace("/", "-") or "calendar",
            source=self.where(group),
            timezone=self.tz,
        )
        for key in ("op", "cl"):
            for value, line in group.all(key):
                for item in value.split(","):
                    v = item.strip().lower()
                    if v in _WEEK:
                        if key == "cl":
                            cal.closed_weekdays.add(_WEEK[v])
                        continue
                    try:
                        d = datetime.strptime(v, "%Y/%m/%d").date()
                    except ValueError:
                        self.model.note(
                            "calendar", self.where(group, line), f"{key}={v} not a date"
                        )
                        continue
                    (cal.open if key == "op" else cal.closed).add(d)
        cal.closed -= cal.open
        self.model.calendars[cal.name] = cal

    def _root(self, unit: Unit) -> None:
        net = _model.JobNet(unit.name, self.where(unit), timezone=self.tz)
        net.description = unquote(unit.get("cm") or "")
        self.model.jobnets.append(net)
        self.nets[unit.name] = net
        self._flatten(net, unit, unit.name)
        self._schedules(net, unit)
        self._options(net, unit)
        ejn = unit.get("ejn")
        if ejn:
            self.exclusive.append((net, unquote(ejn), self.where(unit)))
            net.exclusive_of = unquote(ejn).rsplit("/", 1)[-1]

    def _options(self, net: _model.JobNet, unit: Unit) -> None:
        """Concurrent execution (``mp``, ``ms``) and wait conditions (``eun``)."""
        if unit.get("mp") == "n":  # no concurrent execution: skip or wait (ms)
            net.exclusive = "skip" if unit.get("ms") == "sch" else "queue"
        if unit.get("mm") == "or" and len(unit.all("eun")) > 1:
            self.model.note("dependency", self.where(unit), "OR of wait conditions: all waited for")
        for value, line in unit.all("eun"):
            self.waits.append((net, unquote(value).rsplit("/", 1)[-1], self.where(unit, line)))
        if unit.get("ha") in ("y", "w", "a"):
            self.model.note(
                "job",
                self.where(unit),
                f"jobnet hold (ha={unit.get('ha')}): start runs by hand or hold them with "
                "cfnops job hold",
            )

    def _attrs(self, unit: Unit) -> None:
        for key, _, line in unit.params:
            if key in ("op", "cl") and unit.type != "g":
                # open/closed days are read from job groups only (the group's calendar)
                self.unknown.setdefault(f"{key} outside a job group", []).append(
                    self.where(unit, line)
                )
                continue
            if key in _USED or key in _QUIET or key in JOB_KEYS:
                continue
            self.unknown.setdefault(key, []).append(self.where(unit, line))

    def _flatten(
        self, net: _model.JobNet, unit: Unit, prefix: str, agent: str | None = None
    ) -> list[str]:
        """Add the unit's jobs and edges; return the job paths it holds.

        ``agent``: the execution agent of the enclosing jobnets, which a job without its
        own ``ex`` uses (Operator's Guide, Define Details - [Jobnet], Exec-agent).
        """
        self._attrs(unit)
        agent = unquote(unit.get("ex") or "") or agent
        members: dict[str, list[str]] = {}  # unit name -> the job paths it holds
        recovery: dict[str, str] = {}  # recovery job name -> path
        for child in unit.children:
            self._member(net, child, f"{prefix}/{child.name}", agent, members, recovery)
        for value, line in unit.all("ar"):
            self._relation(net, unit, value, line, members, recovery)
        return [p for paths in members.values() for p in paths]

    def _member(
        self,
        net: _model.JobNet,
        child: Unit,
        path: str,
        agent: str | None,
        members: dict[str, list[str]],
        recovery: dict[str, str],
    ) -> None:
        """Add one unit of a jobnet: a job, a nested jobnet, a jobnet connector, a
        recovery job (into ``recovery``) or a start condition."""
        ty = child.type
        if ty == "rc":  # start condition (.CONDITION), not a recovery unit
            self._start_condition(child)
        elif ty.startswith("r") and ty not in ("rm",):
            if ty[1:] in _JOBS or ty[1:] in _EVENTS or ty[1:] in _DUMMY:
                recovery[child.name] = path
                net.add_job(self._job(child, path, agent))
            else:
                self.model.note(
                    "job",
                    self.where(child),
                    f"recovery unit ({ty}) runs only when a unit fails: not imported; "
                    "add a Catch by hand",
                )
        elif ty in ("n", "rm"):
            members[child.name] = self._flatten(net, child, path, agent)
            if child.get("sd") and child.get("sd") not in ("0,ud", "ud"):
                self.model.note(
                    "schedule",
                    self.where(child),
                    "nested jobnet schedule rules follow the root jobnet here",
                )
        elif ty == "nc":
            target = unquote(child.get("ncn") or child.get("ncl") or "")
            self.model.note(
                "dependency",
                self.where(child),
                f"jobnet connector to {target}: the whole job-net waits (schedule after)",
            )
            if target:
                self.waits.append((net, target.rsplit("/", 1)[-1], self.where(child)))
            members[child.name] = []
        else:
            members[child.name] = [path]
            net.add_job(self._job(child, path, agent))

    def _relation(
        self,
        net: _model.JobNet,
        unit: Unit,
        value: str,
        line: int,
        members: dict[str, list[str]],
        recovery: dict[str, str],
    ) -> None:
        """One ``ar=(f=A,t=B[,seq|con])``: B's first jobs wait for A's last ones."""
        m = _RELATION.fullmatch(value)
        if not m:
            raise ImportInputError(
                self.source,
                f"line {line}",
                f"ar={value} is not (f=UNIT,t=UNIT[,seq|con])",
                "fix the relation",
            )
        a, b = m.group(1).strip(), m.group(2).strip()
        for name in (a, b):
            if name not in members and not any(c.name == name for c in unit.children):
                raise ImportInputError(
                    self.source,
                    f"line {line} ({unit.path})",
                    f"relation names {name!r}, which is not a unit of {unit.path}",
                    "define the unit or remove the relation, then print it again",
                )
        if m.group(3) == "con":
            self.model.note(
                "dependency",
                self.where(unit, line),
                "conditional relation (judgment): mapped as an ordinary one",
            )
        if b in recovery:
            self._recovery_edge(net, unit, line, a, b, members, recovery)
            return
        if a in recovery:
            self.model.note(
                "dependency",
                self.where(unit, line),
                f"{b} follows recovery unit {a}: not laid out (a recovery path ends there)",
            )
            return
        if a not in members or b not in members:
            return  # a recovery unit that was not imported
        in_a, in_b = set(members[a]), set(members[b])
        ends = [p for p in members[a] if not any(x == p and y in in_a for x, y in net.edges)]
        starts = [p for p in members[b] if not any(y == p and x in in_b for x, y in net.edges)]
        net.edges.update((x, y) for x in ends for y in starts)

    def _start_condition(self, unit: Unit) -> None:
        """A start condition: the jobnet starts each time its event jobs are satisfied
        (Command Reference 5.2.1, ``ty=rc``); cfnops starts job-nets by triggers."""
        self._attrs(unit)
        events = ", ".join(f"{c.name} ({c.type})" for c in unit.children) or "none"
        self.model.note(
            "schedule",
            self.where(unit),
            f"start condition {unit.path} (events: {events}): not mapped; the job-net starts "
            "on its schedule only: add a cfnops job trigger (EventBridge, file arrival) for "
            "these events",
        )
        for child in unit.children:
            self._attrs(child)

    def _recovery_edge(
        self,
        net: _model.JobNet,
        unit: Unit,
        line: int,
        a: str,
        b: str,
        members: dict[str, list[str]],
        recovery: dict[str, str],
    ) -> None:
        """``a`` → recovery unit ``b``: ``b`` runs when ``a`` ends abnormally (a Catch)."""
        if a in recovery:  # a chain of recovery units
            for chain in net.recovery.values():
                if recovery[a] in chain:
                    chain.append(recovery[b])
                    return
        paths = members.get(a, [])
        if len(paths) == 1 and paths[0].endswith("/" + a):
            net.recovery.setdefault(paths[0], []).append(recovery[b])
            return
        self.model.note(
            "job",
            self.where(unit, line),
            f"recovery unit {b} after jobnet {a}: not laid out; add a Catch by hand",
        )

    def _job(self, unit: Unit, path: str, agent: str | None = None) -> _model.Job:
        self._attrs(unit)
        ty = unit.type[1:] if unit.type.startswith("r") else unit.type
        job = _model.Job(
            unit.name, path, source=self.where(unit), description=unquote(unit.get("cm") or "")
        )
        job.host = unquote(unit.get("ex") or "") or agent
        job.run_as = unquote(unit.get("un") or "") or None
        if ty in _JOBS:
            job.windows = _JOBS[ty] == "pc"
            job_command(unit, job, self.model, job.source)
        elif ty == "flwj":
            job.kind, job.watch_path = "filewatch", unquote(unit.get("flwf") or "")
            job.wait_seconds = int(unit.get("flwi") or 60)
        elif ty == "tmwj":
            job.kind, job.wait_seconds = "wait", int(unit.get("tmitv") or 1) * 60
        elif ty == "evsj":
            job.kind = "dummy"
            event = unquote(unit.get("evid") or "")
            dest = unquote(unit.get("evhst") or "") or "JP1/IM"
            self.model.notify.append(
                _model.NotifyRule(
                    path.split("/", 1)[0],
                    "reached",
                    dest,
                    f"JP1 event {event} from {path}",
                    job.source,
                )
            )
            self.model.note(
                "notify",
                job.source,
                "JP1 event sending job: a Pass state; the "
                "event becomes a notification when the job-net ends (--notify)",
            )
        elif ty in _DUMMY:
            job.kind = "dummy"
            self.model.note("job", job.source, _DUMMY[ty] + " (mapped as a Pass state)")
        else:
            job.command = f"echo 'JP1 unit type {ty} was not imported' >&2; exit 1"
            what = UNIT_TYPES.get(ty, "no equivalent known to the importer")
            self.model.note(
                "job",
                job.source,
                f"unit type {ty!r} not mapped ({what}): its Task fails until you replace it",
            )
        if unit.get("ha") == "y":
            job.confirm = True
        if unit.get("abr") == "y":
            job.rerun = _model.Rerun(int(unit.get("rec") or 1), int(unit.get("rei") or 1) * 60)
            if unit.get("rjs") or unit.get("rje"):
                self.model.note(
                    "job",
                    job.source,
                    "retry only for return codes "
                    f"{unit.get('rjs')}-{unit.get('rje')}: any failure retries",
                )
        return job

    # -- after the whole file ------------------------------------------------------------
    def finish(self) -> None:
        for key, places in sorted(self.unknown.items()):
            self.model.note(
                "keyword",
                places[0],
                f"parameter {key} ({len(places)}x): not mapped"
                + (f" (also {'; '.join(places[1:])})" if len(places) > 1 else ""),
            )
        preds: dict[str, set[str]] = {}
        for net, other, where in self.waits:  # connectors and wait conditions
            if other in self.nets and other != net.name:
                preds.setdefault(net.name, set()).add(other)
            else:
                self.model.note(
                    "dependency",
                    where,
                    f"waits for {other}, not a root jobnet of the file: add --after by hand",
                )
        for net, other, where in self.exclusive:
            self._exclude(net, other, where)
        for name, after in preds.items():
            net = self.nets[name]
            for spec in net.schedules:
                self.model.note(
                    "schedule",
                    spec.source,
                    f"{spec.name} replaced by the wait for "
                    f"{', '.join(sorted(after))} (a schedule is a cron or --after)",
                )
            net.schedules = [
                _model.ScheduleSpec(
                    f"{name}-after",
                    None,
                    net.timezone,
                    None,
                    None,
                    tuple(sorted(after)),
                    net.source,
                )
            ]
