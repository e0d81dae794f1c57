"""Control-M Automation API "jobs-as-code" JSON → :class:`ImportModel`.

Objects by ``Type`` (BMC, Control-M Automation API Code Reference: Folder, SubFolder,
Job:Command, Job:Script, Job:EmbeddedScript, Job:Dummy, Job:FileWatcher:Create, Flow,
WaitForEvents/AddEvents/DeleteEvents, Resource:Semaphore/Pool/Mutex, If/Action:*,
Notify:*, Calendar:RuleBased/Regular). Top-level ``Defaults`` fill what a job leaves
out. Every key this reader does not know is reported with its JSON path.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from cfnops.jobimport._controlm_common import EventBook, substitute, timezone_of
from cfnops.jobimport._controlm_json_when import json_when, rule_calendars
from cfnops.jobimport._controlm_mail import Mail, add_mail, is_yes
from cfnops.jobimport._controlm_order import Entry, order_jobs
from cfnops.jobimport._controlm_when import CtmWhen
from cfnops.jobimport._model import CalendarSpec, ImportModel, Job, JobNet, NotifyRule, Rerun
from cfnops.jobimport.errors import ImportInputError

__all__ = ["read_controlm_json"]

_FOLDERS = {"Folder", "SimpleFolder"}
_QUIET = {  # organisational keys with no run-time effect
    "Type",
    "ControlmServer",
    "Application",
    "SubApplication",
    "CreatedBy",
    "Description",
    "OrderMethod",
    "SiteStandard",
    "DocumentationFile",
    "DocumentationUrl",
    "Comment",
    "ActiveRetentionPolicy",
    "DaysToKeep",
    "RunAsDummy",
    "Host",
    "RunAs",
    "Variables",
    "When",
    "Confirm",
    "TimeZone",
    "Rerun",
    "RerunLimit",
    "Command",
    "FileName",
    "FilePath",
    "Arguments",
    "PreCommand",
    "PostCommand",
    "Script",
    "Path",
    "SearchInterval",
    "Priority",
    "Critical",
    "RuleBasedCalendars",
    "Job",
    "CreatedByEmUser",
    "Description_",
}
_UNITS = {"SECONDS": 1, "MINUTES": 60, "HOURS": 3600, "DAYS": 86400}


def read_controlm_json(text: str, source: str, tz: str, today: date) -> ImportModel:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        at_end = exc.pos >= len(text.rstrip()) - 1
        raise ImportInputError(
            source,
            f"line {exc.lineno} column {exc.colno}",
            ("the file ends early (truncated?)" if at_end else exc.msg),
            "export the folder again (ctm deploy get / Automation API) and import the whole file",
        ) from None
    if not isinstance(data, dict) or not any(
        isinstance(v, dict) and v.get("Type") in _FOLDERS for v in data.values()
    ):
        raise ImportInputError(
            source,
            "$",
            'no object with "Type": "Folder" or "SimpleFolder": not a Control-M '
            "Automation API export",
            "give a jobs-as-code JSON file (or an XML DEFTABLE export) with --from controlm",
        )
    reader = _Reader(source, tz, today)
    return reader.read(data)


class _Reader:
    def __init__(self, source: str, tz: str, today: date) -> None:
        self.model = ImportModel("controlm")
        self.source, self.tz, self.today = source, tz, today
        self.events = EventBook()
        self.defaults: dict[str, Any] = {}
        self.job_defaults: dict[str, Any] = {}
        self.rules: dict[str, CtmWhen] = {}
        self.pending: list[tuple[JobNet, list[Entry]]] = []

    def read(self, data: dict[str, Any]) -> ImportModel:
        if isinstance(data.get("Defaults"), dict):
            self.defaults = data["Defaults"]
            self.job_defaults = _job_defaults(self.defaults)
            for key in self.defaults:
                if key not in _QUIET and key != "Job":
                    self.model.note("keyword", f"$.Defaults.{key}", "default not mapped")
        for name, obj in data.items():
            path = f"$.{name}"
            if name == "Defaults":
                continue
            if not isinstance(obj, dict):
                self.model.note("keyword", path, "not an object: ignored")
                continue
            kind = str(obj.get("Type", ""))
            if kind in _FOLDERS:
                continue
            if kind.startswith("Calendar:"):
                self._calendar(name, obj, path)
            else:
                self.model.note("keyword", path, f"top-level object of type {kind!r}: not mapped")
        for name, obj in data.items():
            if isinstance(obj, dict) and obj.get("Type") in _FOLDERS:
                self._folder(name, obj, f"$.{name}")
        self.events.resolve(self.model)
        for net, entries in self.pending:
            order_jobs(net, entries, self.model, self.rules, self.today)
        return self.model

    # -- calendars ---------------------------------------------------------------------
    def _calendar(self, name: str, obj: dict[str, Any], path: str) -> None:
        kind = obj["Type"]
        when: dict[str, Any] = obj["When"] if isinstance(obj.get("When"), dict) else {}
        if kind in ("Calendar:RuleBased", "Calendar:RuleBasedCalendar"):
            self.rules[name] = self._when(when, f"{path}.When")
            return
        if kind == "Calendar:Regular":
            cal = CalendarSpec(
                name, closed_weekdays={"MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"}, source=path
            )
            for i, year in enumerate(when.get("Years") or []):
                y = str(year.get("Year", "")) if isinstance(year, dict) else ""
                days = (
                    (year.get("Days") or year.get("Dates") or []) if isinstance(year, dict) else []
                )
                for d in days:
                    text = str(d)
                    try:
                        cal.open.add(date(int(y), int(text[:2]), int(text[2:4])))
                    except ValueError:
                        self.model.note("value", f"{path}.When.Years[{i}]", f"day {text!r} (MMDD)")
            self.model.calendars[name] = cal
            return
        self.model.note("calendar", path, f"calendar type {kind!r} not mapped")

    def _when(self, when: Mapping[str, Any], path: str) -> CtmWhen:
        return json_when(when, path, self.model, self.rules)

    def _rule_calendars(self, value: dict[str, Any], where: str) -> None:
        rule_calendars(value, where, self.model, self.rules)

    def _folder(self, name: str, obj: dict[str, Any], path: str) -> None:
        net = JobNet(name, path, timezone=self.tz)
        if isinstance(obj.get("TimeZone"), str):
            net.timezone = timezone_of(obj["TimeZone"], self.model, f"{path}.TimeZone") or self.tz
        self.model.jobnets.append(net)
        whens: list[Entry] = []
        if isinstance(obj.get("When"), dict):
            whens.append((self._when(obj["When"], f"{path}.When"), None))
        self._contents(net, obj, path, name, dict(_vars(obj)), whens, obj)
        method = str(obj.get("OrderMethod") or "Automatic").strip()
        if whens and method.lower() == "manual":
            self.model.note(
                "schedule",
                f"{path}.OrderMethod",
                f"folder ordered by hand (OrderMethod Manual): its {len(whens)} scheduling "
                "criteria apply only when someone orders it; no schedule made (start it with "
                "cfnops job run)",
            )
            whens = []
        elif not whens:
            self.model.note(
                "schedule", path, "no scheduling criteria (ordered by hand): no schedule made"
            )
        elif method.lower() not in ("automatic", "system", "daily"):
            self.model.note(
                "schedule",
                f"{path}.OrderMethod",
                f"folder ordered by the user daily {method!r}, not by New Day: the schedule "
                "starts at the folder's own times; check when that user daily job runs",
            )
        self.pending.append((net, whens))

    def _contents(
        self,
        net: JobNet,
        obj: dict[str, Any],
        path: str,
        prefix: str,
        variables: dict[str, str],
        whens: list[Entry],
        folder: dict[str, Any],
    ) -> None:
        parts = _Parts()
        before_unit = set(net.jobs)
        for key, value, where in _items(obj, path):
            if not isinstance(value, dict):
                if key not in _QUIET:
                    self.model.note("keyword", where, "folder keyword not mapped")
                continue
            kind = str(value.get("Type", ""))
            if key == "When" and not kind:
                if obj is not folder and not _uses_parent(value):
                    self.model.note(
                        "schedule", where, "sub-folder criteria: the folder's schedule is used"
                    )
            elif key == "RuleBasedCalendars" and not kind:
                self._rule_calendars(value, where)
            else:
                self._content(net, key, kind, value, where, prefix, variables, whens, folder, parts)
        for seq, where in parts.flows:
            self._flow(net, seq, where, parts.first_jobs)
        unit = tuple(p for p in net.jobs if p not in before_unit)
        for kind, value, where in parts.events:  # the (sub-)folder's own events
            self._events(net, unit, kind, value, where)
        for key, value, where in parts.pools:  # every job of the (sub-)folder takes it
            for path in unit:
                self._job_object(net, net.jobs[path], key, value, where)

    def _content(
        self,
        net: JobNet,
        key: str,
        kind: str,
        value: dict[str, Any],
        where: str,
        prefix: str,
        variables: dict[str, str],
        whens: list[Entry],
        folder: dict[str, Any],
        parts: _Parts,
    ) -> None:
        """One typed object of a (sub-)folder: a job or sub-folder is added now; flows,
        events and resources wait in ``parts`` for the folder's jobs."""
        if kind.startswith("Job"):
            value = {**self.job_defaults, **value}  # Defaults.Job: When, If, Host …
            jpath = net.path_for(prefix, key)  # names may repeat (allowDuplicateJobNames)
            job = self._job(net, key, value, where, jpath, variables, folder)
            if job is not None and isinstance(value.get("When"), dict):
                whens.append((self._when(value["When"], f"{where}.When"), jpath))
            parts.first_jobs.setdefault(key, []).append(jpath)
        elif kind == "SubFolder":
            before = set(net.jobs)
            sub_vars = {**variables, **_vars(value)}
            self._contents(net, value, where, f"{prefix}/{key}", sub_vars, whens, folder)
            parts.first_jobs[key] = [p for p in net.jobs if p not in before]
        elif kind == "Flow":
            parts.flows.append((_list(value.get("Sequence")), where))
        elif kind in ("WaitForEvents", "AddEvents", "DeleteEvents"):
            parts.events.append((kind, value, where))
        elif kind.startswith("Resource:"):
            parts.pools.append((key, value, where))
        elif kind.startswith("If") or kind.startswith("Notify"):
            self._action(net, None, key, value, where)
        else:
            self.model.note("keyword", where, f"object of type {kind!r} not mapped")

    def _flow(self, net: JobNet, seq: list[Any], where: str, units: dict[str, list[str]]) -> None:
        for i, item in enumerate(seq):
            if str(item) not in units:
                raise ImportInputError(
                    self.source,
                    f"{where}.Sequence[{i}]",
                    f"{item!r} is not a job or sub-folder of this folder",
                    "fix the Flow's Sequence (names are case-sensitive) and import again",
                )
        for a, b in itertools.pairwise(seq):
            ends = _sinks(net, units[str(a)])
            starts = _sources(net, units[str(b)])
            net.edges.update((x, y) for x in ends for y in starts)

    def _job(
        self,
        net: JobNet,
        name: str,
        obj: dict[str, Any],
        where: str,
        path: str,
        variables: dict[str, str],
        folder: dict[str, Any],
    ) -> Job | None:
        merged = {
            **{k: folder[k] for k in ("Host", "RunAs") if k in folder},
            **obj,
        }
        kind = str(merged.get("Type"))
        job = Job(name, path, source=where, description=str(obj.get("Description", "")))
        job.host = str(merged["Host"]) if merged.get("Host") else None
        job.run_as = str(merged["RunAs"]) if merged.get("RunAs") else None
        own = _vars(obj)
        variables = {**variables, **own}
        obj = self._command(job, kind, merged, obj, where)
        for hook, fmt in (("PreCommand", "{} && {}"), ("PostCommand", "{1} && {0}")):
            if merged.get(hook) and job.command is not None:
                job.command = fmt.format(str(merged[hook]), job.command)
        if job.command:
            job.command = substitute(job.command, variables, self.model, where, own)
        if merged.get("Confirm") in (True, "true", "True"):
            job.confirm = True
        net.add_job(job)
        for key, value in obj.items():
            if key == "Name":
                continue
            if isinstance(value, dict):
                self._job_object(net, job, key, value, f"{where}.{key}")
            elif key not in _QUIET:
                self.model.note("keyword", f"{where}.{key}", "job keyword not mapped")
            elif key in ("Priority", "Critical"):
                self.model.note("keyword", f"{where}.{key}", "no priorities in cfnops: ignored")
        self._rerun(job, obj.get("Rerun"), where)
        return job

    def _command(
        self, job: Job, kind: str, merged: dict[str, Any], obj: dict[str, Any], where: str
    ) -> dict[str, Any]:
        """Set the job's kind and command by its type; ``obj`` less the settings of a
        type not mapped (they are reported with it)."""
        if kind == "Job:Dummy" or merged.get("RunAsDummy") is True:
            job.kind = "dummy"
        elif kind == "Job:SLAManagement":
            job.kind = "dummy"
            self.model.note("job", where, "SLA management job: a Pass (use --deadline/--expected)")
        elif kind == "Job:Command":
            job.command = str(merged.get("Command", ""))
        elif kind == "Job:Script":
            file = (
                str(merged.get("FilePath", "")).rstrip("/") + "/" + str(merged.get("FileName", ""))
            )
            args = " ".join(str(a) for a in _list(merged.get("Arguments")))
            job.command = (
                f"{file.lstrip('/') if not merged.get('FilePath') else file} {args}".strip()
            )
        elif kind == "Job:EmbeddedScript":
            job.command = str(merged.get("Script", "")).replace("\\n", "\n")
        elif kind == "Job:FileWatcher:Create":
            job.kind, job.watch_path = "filewatch", str(merged.get("Path", ""))
            job.wait_seconds = _int(merged.get("SearchInterval"), 10)
        else:
            job.command = f"echo 'job type {kind} was not imported' >&2; exit 1"
            own = sorted(k for k, v in obj.items() if k not in _QUIET and not isinstance(v, dict))
            self.model.note(
                "job",
                where,
                f"job type {kind!r} not mapped: its Task fails until you replace the command"
                + (f" (its settings: {', '.join(own)})" if own else ""),
            )
            return {k: v for k, v in obj.items() if k in _QUIET or isinstance(v, dict)}
        return obj

    def _rerun(self, job: Job, rerun: Any, where: str) -> None:
        """A cyclic job's ``Rerun`` → a Retry after a failure."""
        if not isinstance(rerun, dict):
            return
        times = _int(rerun.get("Times"), 1)
        every = _int(rerun.get("Every"), 0) * _UNITS.get(
            str(rerun.get("Units", "Minutes")).upper(), 60
        )
        job.rerun = Rerun(max(1, times), every)
        self.model.note(
            "job",
            f"{where}.Rerun",
            "Control-M reruns a cyclic job after every end; cfnops reruns it after a "
            f"failure only (Retry: {max(1, times)} more attempts, {every} s apart)",
        )

    def _job_object(
        self, net: JobNet, job: Job, key: str, value: dict[str, Any], where: str
    ) -> None:
        kind = str(value.get("Type", ""))
        if kind in ("WaitForEvents", "AddEvents", "DeleteEvents"):
            self._events(net, job, kind, value, where)
        elif kind in ("Resource:Semaphore", "Resource:Pool"):
            quantity = _int(value.get("Quantity"), 1)
            self.model.pools[key] = max(self.model.pools.get(key, 0), quantity)
            job.pools.append(key)
            self.model.note(
                "resource",
                where,
                f"quantitative resource {key}: pool capacity set to {self.model.pools[key]} (the "
                "largest quantity asked; set the real maximum with cfnops job pool set); a Task "
                "takes one slot",
            )
        elif kind == "Resource:Mutex":
            if str(value.get("MutexType", "Exclusive")).lower().startswith("excl"):
                self.model.pools[key] = 1
                job.pools.append(key)
            else:
                self.model.note("resource", where, "shared control resource: not mapped")
        elif kind.startswith("If") or kind.startswith("Notify"):
            self._action(net, job, key, value, where)
        elif key in ("When", "Rerun", "RerunLimit", "Variables"):
            pass
        elif key == "Output" and not kind:
            if value:  # an empty Output object carries nothing
                self.model.note(
                    "job",
                    where,
                    f"output handling {value.get('Operation', '?')} "
                    f"{value.get('Destination', '')!s}".rstrip()
                    + ": not mapped (the job's output stays with its RunCommand run; copy, "
                    "move or delete it in the job's command by hand)",
                )
        else:
            self.model.note("keyword", where, f"object of type {kind!r} not mapped")

    def _events(
        self, net: JobNet, job: Job | tuple[str, ...], kind: str, value: dict[str, Any], where: str
    ) -> None:
        for i, item in enumerate(_list(value.get("Events"))):
            if not isinstance(item, dict):
                self.model.note(
                    "dependency",
                    f"{where}.Events[{i}]",
                    f"{item!r}: OR/AND/brackets between events are not mapped (all are waited for)",
                )
                continue
            event = str(item.get("Event", ""))
            if item.get("Date") not in (None, "ODAT", "NO_DATE", "NODATE"):
                self.model.note(
                    "dependency",
                    f"{where}.Events[{i}]",
                    f"event date {item['Date']}: cfnops counts successes since the last start",
                )
            if kind == "WaitForEvents":
                self.events.wait(event, net, job, f"{where}.Events[{i}]")
            elif kind == "AddEvents":
                self.events.add(event, net, job)

    def _action(
        self, net: JobNet, job: Job | None, key: str, value: dict[str, Any], where: str
    ) -> None:
        kind = str(value.get("Type", ""))
        if kind == "Notify:ExecutionTime":
            value_min = str(value.get("Value", "")).strip()
            if str(value.get("Criteria", "LongerThan")) == "LongerThan" and value_min.isdigit():
                net.watch("expected", f"{int(value_min)}m", self.model, where)
        if kind.startswith("Notify:"):
            when = {
                "Notify:NotOK": "failed",
                "Notify:OK": "succeeded",
                "Notify:DoneOK": "succeeded",
            }.get(kind, "late")
            self.model.notify.append(
                NotifyRule(
                    net.name,
                    when,
                    str(value.get("Destination", "")),
                    str(value.get("Message", "")),
                    where,
                )
            )
            return
        status = str(value.get("CompletionStatus", "")).upper()
        for akey, action in value.items():
            if not isinstance(action, dict):
                continue
            atype = str(action.get("Type", ""))
            awhere = f"{where}.{akey}"
            if atype in ("Action:Mail", "Mail", "Action:Notify", "Notify"):
                when = (
                    "failed"
                    if status in ("NOTOK", "")
                    else "succeeded"
                    if status == "OK"
                    else "always"
                )
                add_mail(self.model, net.name, when, _mail(action), awhere)
            elif (
                atype in ("Event:Add", "Action:AddEvent") and job is not None and status == "NOTOK"
            ):
                for ev in _list(action.get("Events")) or [action]:
                    if isinstance(ev, dict) and ev.get("Event"):
                        self.events.added_on_failure(str(ev["Event"]), net, job)
            elif atype == "Run" and status == "NOTOK":
                self.model.note(
                    "job",
                    awhere,
                    f"runs folder {action.get('Folder')} when it fails: add a Catch to a "
                    "states:startExecution.sync Task naming that job-net (cfnops job deploy it)",
                )
            elif atype == "Action:Rerun" and job is not None:
                limit = value.get("RerunLimit") or {}
                job.rerun = job.rerun or Rerun(
                    _int(limit.get("Times") if isinstance(limit, dict) else None, 1), 0
                )
            else:
                self.model.note(
                    "keyword",
                    awhere,
                    f"action {atype!r} on {status or kind}: not mapped (add a Catch by hand)",
                )


@dataclass
class _Parts:
    """What a (sub-)folder's objects leave until all its jobs are added: each job's or
    sub-folder's jobs by name (for Flows), its Flows, its own events and resources."""

    first_jobs: dict[str, list[str]] = field(default_factory=dict)
    flows: list[tuple[list[Any], str]] = field(default_factory=list)
    events: list[tuple[str, dict[str, Any], str]] = field(default_factory=list)
    pools: list[tuple[str, dict[str, Any], str]] = field(default_factory=list)


def _items(obj: dict[str, Any], path: str) -> list[tuple[str, Any, str]]:
    """(name, value, JSON path) of a folder's keys; a ``Jobs`` array gives one per job."""
    items: list[tuple[str, Any, str]] = []
    for key, value in obj.items():
        if key == "Jobs" and isinstance(value, list):  # the job array format
            for i, item in enumerate(value):
                name = str(item.get("Name", f"job{i}")) if isinstance(item, dict) else ""
                items.append((name, item, f"{path}.Jobs[{i}]"))
        else:
            items.append((key, value, f"{path}.{key}"))
    return items


def _mail(action: dict[str, Any]) -> Mail:
    return Mail(
        to=str(action.get("To") or action.get("Destination") or ""),
        cc=str(action.get("CC") or action.get("Cc") or ""),
        subject=str(action.get("Subject", "")),
        message=str(action.get("Message", "")),
        urgency=str(action.get("Urgency", "")),
        attach_output=is_yes(action.get("AttachOutput", False)),
    )


def _job_defaults(defaults: dict[str, Any]) -> dict[str, Any]:
    """What every job gets unless it says otherwise: Host, RunAs and all of Defaults.Job."""
    out = {k: v for k, v in defaults.items() if k in ("Host", "RunAs")}
    if isinstance(defaults.get("Job"), dict):
        out.update(defaults["Job"])
    return out


def _uses_parent(when: Any) -> bool:
    """A sub-folder ``When`` that only says "as the parent folder" (USE PARENT)."""
    if not isinstance(when, dict):
        return True
    rbc = when.get("RuleBasedCalendars")
    included = rbc.get("Included", []) if isinstance(rbc, dict) else []
    rest = {k for k, v in when.items() if v not in ([], "", None) and k != "RuleBasedCalendars"}
    return included in ([], ["USE PARENT"]) and rest <= {"DaysRelation"}


def _vars(obj: Mapping[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in _list(obj.get("Variables")):
        if isinstance(item, dict):
            out.update({str(k).lstrip("%"): str(v) for k, v in item.items()})
    return out


def _list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _int(value: Any, default: int) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        return default


def _sources(net: JobNet, paths: list[str]) -> list[str]:
    inside = set(paths)
    return [p for p in paths if not any(b == p and a in inside for a, b in net.edges)]


def _sinks(net: JobNet, paths: list[str]) -> list[str]:
    inside = set(paths)
    return [p for p in paths if not any(a == p and b in inside for a, b in net.edges)]
