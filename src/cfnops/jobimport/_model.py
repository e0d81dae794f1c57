"""The neutral job-graph model every reader produces and every writer consumes.

A reader (Control-M JSON or XML, JP1/AJS3 ``ajsprint``) turns an export into an
:class:`ImportModel`: job-nets (a Control-M folder, a JP1 root jobnet) made of jobs and
dependency edges, their schedules, the calendars they name, resource pools, notification
rules, and everything it could not map (:class:`Unmapped`). Nested units (sub-folders,
nested jobnets) are flattened into their root job-net: an edge into a nested unit goes to
its first jobs, an edge out of it leaves from its last ones, which keeps the order the
source defines.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

__all__ = [
    "CalendarSpec",
    "ImportModel",
    "Job",
    "JobNet",
    "NotifyRule",
    "Rerun",
    "ScheduleSpec",
    "Unmapped",
]


@dataclass(frozen=True)
class Unmapped:
    """A keyword or value that was not mapped, or mapped approximately, and the manual step."""

    kind: str  # keyword | value | schedule | calendar | dependency | resource | job | notify
    source: str  # where in the export: JSON path, XML path or unit path and line
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "source": self.source, "reason": self.reason}


@dataclass(frozen=True)
class Rerun:
    """An automatic rerun rule: becomes a Retry (attempts after the first run)."""

    max_attempts: int
    interval_seconds: int = 0


@dataclass
class Job:
    """One source job. ``kind``: command, dummy, filewatch, wait."""

    name: str
    path: str  # job-net/sub/.../name: unique inside the import
    kind: str = "command"
    command: str | None = None
    host: str | None = None
    run_as: str | None = None
    windows: bool = False
    rerun: Rerun | None = None
    confirm: bool = False
    pools: list[str] = field(default_factory=list)
    description: str = ""
    wait_seconds: int = 0
    watch_path: str | None = None
    source: str = ""  # where it was defined (for the report)
    # the schedules whose runs order this job (None: every run); see _controlm_order
    ordered_by: tuple[str, ...] | None = None
    working_dir: str | None = None  # Run Command workingDirectory
    # the source's own scheduling criteria of this job (for the forecast), None: its net's
    rules: list[Any] | None = None
    timeout_seconds: int | None = None  # Run Command executionTimeout


@dataclass(frozen=True)
class ScheduleSpec:
    """A cfnops schedule: a cron with an optional calendar and day rule, or ``after``."""

    name: str
    cron: str | None
    timezone: str = "UTC"
    calendar: str | None = None
    day_rule: str | None = None
    after: tuple[str, ...] = ()
    source: str = ""

    def to_json(self, calendar_path: str | None = None) -> dict[str, Any]:
        return {
            "name": self.name,
            "cron": self.cron,
            "timezone": self.timezone,
            "calendar": calendar_path if calendar_path is not None else self.calendar,
            "dayRule": self.day_rule,
            "after": list(self.after),
            "source": self.source,
        }


@dataclass
class CalendarSpec:
    """Open and closed days, written as a cfnops calendar TOML file."""

    name: str
    closed_weekdays: set[str] = field(default_factory=set)
    closed: set[date] = field(default_factory=set)
    open: set[date] = field(default_factory=set)
    timezone: str | None = None
    comment: str = ""
    source: str = ""


@dataclass(frozen=True)
class NotifyRule:
    """A notification the source sends (SHOUT, Notify, JP1 event): a ``[notify]`` rule."""

    job_net: str
    when: str  # failed | succeeded | late | always
    destination: str
    message: str
    source: str

    def to_json(self) -> dict[str, str]:
        return {
            "jobNet": self.job_net,
            "when": self.when,
            "destination": self.destination,
            "message": self.message,
            "source": self.source,
        }


@dataclass
class JobNet:
    """A Control-M folder or a JP1 root jobnet, flattened."""

    name: str
    source: str
    jobs: dict[str, Job] = field(default_factory=dict)  # by path
    edges: set[tuple[str, str]] = field(default_factory=set)  # (from path, to path)
    schedules: list[ScheduleSpec] = field(default_factory=list)
    exclusive: str | None = None  # run | skip | queue for the schedule entries
    # job path -> recovery jobs run (in order) when it ends abnormally; they are in
    # ``jobs`` but not in the dependency graph
    recovery: dict[str, list[str]] = field(default_factory=dict)
    # delay monitoring of the job-net's runs: expected (30m) and deadline (HH:MM)
    monitor: dict[str, str] = field(default_factory=dict)

    def watch(self, key: str, value: str, model: ImportModel, source: str) -> None:
        """Keep the loosest value the jobs ask (cfnops watches the job-net, not each job)."""
        old = self.monitor.get(key)
        if key == "expected":
            keep = value if old is None or int(value[:-1]) > int(old[:-1]) else old
        else:
            keep = value if old is None or value > old else old
        self.monitor[key] = keep
        model.note(
            "notify",
            source,
            f"delay monitoring of one job becomes the job-net's --{key} {keep} (cfnops watches "
            "whole runs)",
        )

    timezone: str = "UTC"
    description: str = ""
    # the source's scheduling criteria (Control-M When / JP1 schedule rules), its calendar
    # and exclusive schedule, as read: the reference side of the forecast
    rules: list[Any] = field(default_factory=list)
    rule_calendar: str | None = None
    exclusive_of: str | None = None

    def add_job(self, job: Job) -> None:
        self.jobs[job.path] = job

    def path_for(self, prefix: str, name: str) -> str:
        """``prefix/name``, or ``prefix/#N/name`` for the N-th job of that name (the path
        still ends with the job's name)."""
        path, n = f"{prefix}/{name}", 2
        while path in self.jobs:
            path, n = f"{prefix}/#{n}/{name}", n + 1
        return path


@dataclass
class ImportModel:
    """Everything a reader found in one export."""

    product: str  # controlm | jp1
    jobnets: list[JobNet] = field(default_factory=list)
    calendars: dict[str, CalendarSpec] = field(default_factory=dict)
    pools: dict[str, int] = field(default_factory=dict)
    notify: list[NotifyRule] = field(default_factory=list)
    unmapped: list[Unmapped] = field(default_factory=list)
    rule_calendars: dict[str, Any] = field(default_factory=dict)  # Control-M rule-based

    def note(self, kind: str, source: str, reason: str) -> None:
        self.unmapped.append(Unmapped(kind, source, reason))
