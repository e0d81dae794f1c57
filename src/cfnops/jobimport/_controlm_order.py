"""Which runs of a job-net order each Control-M job: folder and job criteria → schedules.

Control-M orders each job by its own criteria (BMC Control-M Automation API, Code
Reference, job properties "When"; a SMART_FOLDER's criteria come first and a job's own
criteria narrow them). A cfnops schedule starts the whole job-net, so:

- a folder with criteria: the job-net's schedules are the folder's. Where jobs have
  criteria of their own (a SMART folder's rule-based calendar and a job's ``When``), the
  runs are worked out as Control-M orders them (:func:`cfnops.jobimport._forecast_source.
  ctm_runs`: the job's days within the folder's, at its own time if it has one) and split
  by which jobs each run orders: one schedule per group of runs that order the same jobs,
  its days listed in a calendar (to the end of the next year, reported), and each job runs
  only in the schedules of its groups (``ordered_by``). Criteria this cannot evaluate
  leave the folder's schedules and are reported (the job runs whenever the job-net runs);
- a folder without criteria: every distinct job criteria becomes schedules of the job-net,
  and each job whose criteria did not make all of them runs only in the runs its own
  schedules start (``Job.ordered_by``: a ``Choice`` on the run input's ``cfnopsSchedule``,
  which ``--apply`` sets to the schedule's name); the job-net is not widened for any job.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from cfnops.jobimport._controlm_when import CtmWhen, translate_when
from cfnops.jobimport._days import cron, materialise
from cfnops.jobimport._forecast_source import NotEvaluated, Run, ctm_runs
from cfnops.jobimport._model import ImportModel, JobNet, ScheduleSpec

__all__ = ["Entry", "order_jobs"]

Entry = tuple[CtmWhen, str | None]  # criteria, and the job path (None: the folder's own)


def _key(when: CtmWhen) -> str:
    return repr({**when.__dict__, "source": ""})


def order_jobs(
    net: JobNet,
    entries: list[Entry],
    model: ImportModel,
    rules: dict[str, CtmWhen],
    today: date,
) -> None:
    """Set ``net.schedules`` and each job's ``ordered_by`` from the collected criteria."""
    model.rule_calendars = rules
    for when, path in entries:  # the reference side of the forecast
        if path is None:
            net.rules = [when]
        else:
            net.jobs[path].rules = [*(net.jobs[path].rules or []), when]
    if any(s.after for s in net.schedules):
        for when, _ in entries:
            model.note("schedule", when.source, "replaced by the after dependency")
        return
    folder = [w for w, path in entries if path is None]
    if folder:
        narrowing = [p for w, p in entries if p is not None and _key(w) != _key(folder[0])]
        if narrowing and _split(net, folder[0], sorted(set(narrowing)), model, today):
            return
        _translate(net, folder[0], net.name, model, rules, today)
        for when, path in entries:
            if path is not None and _key(when) != _key(folder[0]):
                model.note(
                    "schedule",
                    when.source,
                    f"job {path}: its own criteria narrow the folder's days in Control-M; not "
                    "mapped: it runs whenever the job-net runs (move it to a folder of its own "
                    "and import again, or add a Choice by hand)",
                )
        return
    names_of: dict[str, list[str]] = {}
    for when, _ in entries:
        key = _key(when)
        if key not in names_of:
            base = net.name if not names_of else f"{net.name}-{len(names_of) + 1}"
            names_of[key] = _translate(net, when, base, model, rules, today)
    every = {s.name for s in net.schedules}
    for when, path in entries:
        names = names_of[_key(when)]
        if path is None or set(names) == every:
            continue
        net.jobs[path].ordered_by = tuple(names)
        model.note(
            "schedule",
            when.source,
            f"job {path} runs only in the runs its own criteria start (schedule "
            f"{', '.join(names) or 'none'}): a Choice skips it in the job-net's other runs and "
            "the jobs waiting for it go on (Control-M would leave them waiting)",
        )


def _translate(
    net: JobNet,
    when: CtmWhen,
    base: str,
    model: ImportModel,
    rules: dict[str, CtmWhen],
    today: date,
) -> list[str]:
    used = {s.name for s in net.schedules}
    out: list[ScheduleSpec] = []
    for spec in translate_when(base, when, model, rules, net.timezone, today):
        name, n = spec.name, 2
        while name in used:
            name, n = f"{spec.name}~{n}", n + 1
        used.add(name)
        out.append(replace(spec, name=name))
    net.schedules.extend(out)
    return [s.name for s in out]


def _job_runs(folder: set[Run], own: set[Run], own_time: bool) -> set[Run]:
    """A job's runs inside a folder with criteria (as the forecast's source side): its own
    days within the folder's, at its own time when it has one, else the folder's runs."""
    if own_time:
        days = {d for d, _ in folder}
        return {r for r in own if r[0] in days}
    days = {d for d, _ in own}
    return {r for r in folder if r[0] in days}


def _split(net: JobNet, folder: CtmWhen, paths: list[str], model: ImportModel, today: date) -> bool:
    """Schedules that order each job on its own runs only (False: criteria not evaluated)."""
    end = date(today.year + 1, 12, 31)
    cals = model.calendars
    try:
        base = set(ctm_runs(folder, model.rule_calendars, cals, today, end))
        runs_of: dict[str, set[Run]] = {}
        done: dict[str, set[Run]] = {}  # jobs with the same criteria: evaluated once
        for path in paths:
            whens = net.jobs[path].rules or []
            key = "|".join(_key(w) for w in whens)
            if key not in done:
                own: set[Run] = set()
                for when in whens:
                    own |= set(ctm_runs(when, model.rule_calendars, cals, today, end))
                done[key] = _job_runs(base, own, any(w.from_time for w in whens))
            runs_of[path] = done[key]
    except NotEvaluated as exc:
        model.note("schedule", folder.source, f"jobs' own criteria not evaluated: {exc}")
        return False
    groups: dict[tuple[str, frozenset[str]], set[date]] = {}
    for run in base.union(*runs_of.values()):
        ordered = frozenset(p for p in paths if run in runs_of[p])
        marks = ordered | ({""} if run in base else frozenset())  # "": the folder's own jobs
        groups.setdefault((run[1], marks), set()).add(run[0])
    if not groups:  # the folder runs on no day (Never …): its own translation reports it
        return False
    names_of: dict[str, list[str]] = {p: [] for p in ["", *paths]}
    used = {s.name for s in net.schedules} | set(cals)
    for i, ((at, marks), days) in enumerate(sorted(groups.items(), key=_group_order), 1):
        name = net.name if i == 1 else f"{net.name}-{i}"
        while name in used or f"{name}-days" in used:
            name += "~"
        used |= {name, f"{name}-days"}
        cals[f"{name}-days"] = materialise(
            f"{name}-days", today, days.__contains__, net.timezone, folder.source
        )
        net.schedules.append(
            ScheduleSpec(name, cron(at.replace(":", "")), net.timezone, f"{name}-days",
                         "open", (), folder.source)
        )  # fmt: skip
        for mark in marks:
            names_of[mark].append(name)
    every = {s.name for s in net.schedules}
    for path in [p for p in net.jobs if p not in paths] if set(names_of[""]) != every else []:
        net.jobs[path].ordered_by = tuple(names_of[""])
    for path in paths:
        net.jobs[path].ordered_by = tuple(names_of[path])
    model.note(
        "schedule",
        folder.source,
        f"jobs {', '.join(paths)} have criteria of their own inside the folder's: the runs are "
        f"split into {len(groups)} schedule(s) by the jobs each orders (days listed up to "
        f"{end}: import again before then); a Choice skips each job in the runs that do not "
        "order it",
    )
    return True


def _group_order(item: tuple[tuple[str, frozenset[str]], set[date]]) -> tuple[int, int, str]:
    (at, marks), days = item
    return (0 if marks == {""} else 1, -len(days), at + ",".join(sorted(marks)))
