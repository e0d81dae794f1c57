"""What the Control-M readers (JSON and XML) share: events, variables, time zones, jobs.

A Control-M dependency is an *event* (condition): a job adds it when it ends OK
(``AddEvents`` / ``OUTCOND`` sign ``+``), another waits for it (``WaitForEvents`` /
``INCOND``). Inside one folder that is an edge between two jobs; between folders it
becomes a schedule ``after`` on the waiting folder's job-net.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from cfnops.jobimport._model import ImportModel, Job, JobNet, ScheduleSpec

__all__ = ["EventBook", "substitute", "timezone_of"]

# Control-M's own zone codes (Control-M "Time zone" values) → IANA names.
_ZONES = {
    "JST": "Asia/Tokyo",
    "HKG": "Asia/Hong_Kong",
    "SIN": "Asia/Singapore",
    "GMT": "Etc/UTC",
    "UTC": "Etc/UTC",
    "CET": "Europe/Paris",
    "EET": "Europe/Helsinki",
    "EST": "America/New_York",
    "CST": "America/Chicago",
    "MST": "America/Denver",
    "PST": "America/Los_Angeles",
    "HAW": "Pacific/Honolulu",
    "AUE": "Australia/Sydney",
}
# A name: letters, digits, _ @ # $ and - (FTP-LHOST); a '.' ends it and is dropped when the
# variable is replaced (%%A.%%B, %%DIR./x: Control-M's concatenation mark).
_VAR = re.compile(r"%%([A-Za-z_@#$][A-Za-z0-9_@#$-]*)(\.?)")
_FUNCTIONS = {
    "SUBSTR",
    "CALCDATE",
    "$CALCDATE",
    "$WCALC",
    "$WEEK#",
    "$WEEKDAY#",
    "$JULIAN",
    "$JULIANS",
    "$YEARS",
    "$CALC",
    "LENGTH",
    "SIGN",
    "PLUS",
    "MINUS",
    "$FIRST",
    "$LAST",
    "$NEXT",
    "$PREV",
    "$WCALCDATE",
    "$GREG",
    "$LEAP",
}
_ROUNDS = 20


def timezone_of(value: str, model: ImportModel, source: str) -> str | None:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    text = value.strip()
    if not text:
        return None
    if text.upper() in _ZONES:
        return _ZONES[text.upper()]
    try:
        ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError):
        model.note("value", source, f"time zone {text!r} not known: the default zone is used")
        return None
    return text


def substitute(
    command: str,
    variables: Mapping[str, str],
    model: ImportModel,
    src: str,
    own: Iterable[str] = (),
) -> str:
    """``%%NAME`` replaced by the job's or folder's variable, through values that name other
    variables, until nothing changes; every name still in the command is reported (system
    and global variables, AutoEdit functions such as ``%%SUBSTR``, a chain that loops), and
    each of the job's ``own`` variables the command never names (Control-M also hands them
    to the job's process as environment variables, which the import does not)."""

    book = _Variables(variables)
    limit = 4 * len(command) + 4096  # a value naming itself twice doubles each round
    for _ in range(_ROUNDS):
        replaced = _VAR.sub(book.replace, command)
        if replaced == command or len(replaced) > limit:
            break
        command = replaced
    for name, head in book.split:
        model.note(
            "value",
            src,
            f"%%{name} read as the variable %%{head} followed by text (no variable {name} "
            "is defined); check the command",
        )
    for name in dict.fromkeys(m.group(1) for m in _VAR.finditer(command)):
        model.note("value", src, book.why_left(name))
    # names with a '-' are plug-in settings (FTP-LHOST, FileWatch-PATH), not the job's own
    unused = sorted({n.lstrip("%") for n in own} - book.used)
    unused = [n for n in unused if "-" not in n]
    if unused:
        model.note(
            "value",
            src,
            f"job variables {', '.join('%%' + n for n in unused)} are not named in the command: "
            "Control-M also hands them to the job as environment variables, the import does "
            "not; export them in the command by hand if the script reads them",
        )
    return command


class _Variables:
    """One substitution's variables, and what it used and read as a name followed by text."""

    def __init__(self, variables: Mapping[str, str]) -> None:
        self.variables = variables
        self.used: set[str] = set()
        self.split: list[tuple[str, str]] = []

    def value(self, name: str) -> str | None:
        for key in (name, f"%%{name}"):
            if key in self.variables:
                return self.variables[key]
        return None

    def replace(self, m: re.Match[str]) -> str:
        name, dot = m.group(1), m.group(2)
        found = self.value(name)
        if found is not None:
            self.used.add(name)
            return found
        # %%PARM2-%%PARM3: no variable PARM2- but PARM2 is one: the '-' is text
        head, sep, tail = name.partition("-")
        found = self.value(head) if sep else None
        if found is None:
            return m.group(0)
        self.used.add(head)
        if (name, head) not in self.split:
            self.split.append((name, head))
        return found + sep + tail + dot

    def why_left(self, name: str) -> str:
        """Why ``%%name`` is still in the command after substitution."""
        if self.value(name) is not None or self.value(name.partition("-")[0]) is not None:
            return (
                f"variable %%{name} is still in the command after substitution (its value "
                "names itself, directly or through others): left as it is; replace it by hand"
            )
        if name.upper() in _FUNCTIONS:
            return (
                f"AutoEdit function %%{name} is not evaluated: left as it is in the command; "
                "replace it by hand"
            )
        return (
            f"variable %%{name} is a Control-M system or global variable: "
            "left as it is in the command; replace it by hand"
        )


Target = Job | tuple[str, ...]  # a job, or a sub-folder / folder as the paths of its jobs


def _ends(net: JobNet, target: Target, first: bool) -> list[str]:
    """A job's path; for a unit, its first jobs (``first``) or its last ones."""
    if isinstance(target, Job):
        return [target.path]
    inside = set(target)
    if first:
        return [p for p in target if not any(b == p and a in inside for a, b in net.edges)]
    return [p for p in target if not any(a == p and b in inside for a, b in net.edges)]


@dataclass
class EventBook:
    """Who adds and who waits for each event, across the whole export."""

    adds: dict[str, list[tuple[JobNet, Target]]] = field(default_factory=dict)
    waits: list[tuple[str, JobNet, Target, str]] = field(default_factory=list)
    # events a job adds when it ends NOTOK (ON NOTOK DOCOND, If NOTOK Event:Add)
    on_failure: dict[str, tuple[JobNet, Job]] = field(default_factory=dict)
    # (folder forced, the job-net whose job forces it on OK, where): ON OK DOFORCEJOB
    forced: list[tuple[str, JobNet, str]] = field(default_factory=list)

    def add(self, event: str, net: JobNet, target: Target) -> None:
        self.adds.setdefault(event, []).append((net, target))

    def wait(self, event: str, net: JobNet, target: Target, source: str) -> None:
        self.waits.append((event, net, target, source))

    def added_on_failure(self, event: str, net: JobNet, job: Job) -> None:
        self.on_failure[event] = (net, job)

    def _recovery(self, model: ImportModel) -> set[int]:
        """Jobs that wait only for events a failing job adds: a Catch path (wait indexes)."""
        by_job: dict[int, list[int]] = {}
        for i, (_, _, target, _) in enumerate(self.waits):
            if isinstance(target, Job):
                by_job.setdefault(id(target), []).append(i)
        waited = {e for e, _, _, _ in self.waits}
        taken: set[int] = set()
        for indexes in by_job.values():
            events = [self.waits[i][0] for i in indexes]
            _, net, job, source = self.waits[indexes[0]]
            if not all(e in self.on_failure and e not in self.adds for e in events):
                continue
            failing = {id(self.on_failure[e][1]): self.on_failure[e] for e in events}
            assert isinstance(job, Job)
            adds_waited = any(
                e in waited and any(j is job for _, j in prods) for e, prods in self.adds.items()
            )
            if len(failing) != 1 or adds_waited or next(iter(failing.values()))[0] is not net:
                model.note("dependency", source, "recovery path not laid out: add a Catch by hand")
                continue
            _, failed = next(iter(failing.values()))
            net.recovery.setdefault(failed.path, []).append(job.path)
            taken.update(indexes)
        return taken

    def resolve(self, model: ImportModel) -> None:
        """Edges inside folders, ``after`` between them; events nobody adds are reported."""
        after: dict[str, set[str]] = {}
        taken = self._recovery(model)
        # job-to-job edges first: a sub-folder's first and last jobs depend on them
        order = sorted(
            (i for i in range(len(self.waits)) if i not in taken),
            key=lambda i: not isinstance(self.waits[i][2], Job),
        )
        for i in order:
            self._link_wait(model, after, *self.waits[i])
        self._forced_after(model, after)
        _schedule_after(model, after)

    def _link_wait(
        self,
        model: ImportModel,
        after: dict[str, set[str]],
        event: str,
        net: JobNet,
        target: Target,
        source: str,
    ) -> None:
        """``target`` waits for ``event``: edges from the jobs of ``net`` that add it, or
        (into ``after``) ``net`` starts after the other job-nets whose jobs add it."""
        producers = self.adds.get(event, [])
        if not producers:
            model.note(
                "dependency",
                source,
                f"event {event!r} is added by no job of the export (set by hand, by "
                "another table, or ctmcontb): the wait is dropped; add --after by hand",
            )
            return
        for pnet, producer in producers:
            if pnet is net:
                mine = {target.path} if isinstance(target, Job) else set(target)
                theirs = {producer.path} if isinstance(producer, Job) else set(producer)
                if mine & theirs:
                    model.note("dependency", source, f"event {event!r} inside one unit: ignored")
                    continue
                ends, starts = _ends(net, producer, False), _ends(net, target, True)
                net.edges.update((a, b) for a in ends for b in starts if a != b)
                continue
            after.setdefault(net.name, set()).add(pnet.name)
            if isinstance(target, Job):
                model.note(
                    "dependency",
                    source,
                    f"job {target.path} waits for {event!r} from folder {pnet.name}: the "
                    f"whole job-net {net.name} starts after {pnet.name} succeeds "
                    "(schedule after)",
                )

    def _forced_after(self, model: ImportModel, after: dict[str, set[str]]) -> None:
        """A job forcing a job of another folder: that folder starts after its own."""
        by_name = {n.name: n for n in model.jobnets}
        for folder, by, source in self.forced:
            forced_net = by_name.get(folder)
            if forced_net is by:
                model.note(
                    "dependency",
                    source,
                    f"forces a job of its own folder {folder} when OK (a new order of a job "
                    "that already runs once in this job-net after its conditions): not mapped; "
                    "run the job-net again by hand if a second run is meant",
                )
                continue
            if forced_net is None:
                model.note(
                    "dependency",
                    source,
                    f"forces a job of {folder}, which is not "
                    "another folder of the export: add a schedule --after by hand",
                )
                continue
            after.setdefault(folder, set()).add(by.name)
            model.note(
                "dependency",
                source,
                f"forcing a job of {folder} when OK: the whole "
                f"job-net {folder} starts after {by.name} succeeds (schedule after)",
            )


def _schedule_after(model: ImportModel, after: Mapping[str, set[str]]) -> None:
    """A job-net that waits for others is scheduled after them, in place of its crons."""
    for net in model.jobnets:
        preds = sorted(after.get(net.name, ()))
        if preds:
            for spec in net.schedules:
                model.note(
                    "schedule",
                    spec.source,
                    f"{spec.name} ({spec.cron}): Control-M orders {net.name} on its days and "
                    f"then waits for {', '.join(preds)}; cfnops starts it after each success "
                    "of those instead (a schedule is a cron or --after, not both)",
                )
            net.schedules.clear()
            net.schedules.append(
                ScheduleSpec(
                    f"{net.name}-after",
                    None,
                    net.timezone,
                    None,
                    None,
                    tuple(preds),
                    f"events of {net.name}",
                )
            )
