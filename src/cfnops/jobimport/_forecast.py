"""``--forecast DAYS``: each source job's run dates under the source's rules and under the
imported schedules and calendars, and the differences with their reasons.

The source side is :mod:`cfnops.jobimport._forecast_source` (the vendors' rules, read from
the export); the imported side runs cfnops's own scheduler (``cfnops.jobs``: cron,
business calendar, day rule) over the schedules the import made, follows ``after``
dependencies to the job-nets they wait for, and keeps a job's runs to the schedules that
order it (``Job.ordered_by``). A difference is explained by the report's schedule and
calendar entries of that job or job-net; one without such an entry says so.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from cfnops.jobimport._days import jobs_schedule
from cfnops.jobimport._forecast_reference import Reference
from cfnops.jobimport._forecast_source import NotEvaluated, Run, ctm_runs, jp1_runs
from cfnops.jobimport._model import ImportModel, Job, JobNet, ScheduleSpec

__all__ = ["compare_reference", "forecast", "render_forecast", "render_reference"]


def _fmt(run: Run) -> str:
    return f"{run[0].isoformat()} {run[1]}"


def imported_runs(model: ImportModel, spec: ScheduleSpec, start: date, end: date) -> set[Run]:
    """The (local day, time) fires of one imported cron schedule (with its calendar)."""
    tz = ZoneInfo(spec.timezone)
    sched = jobs_schedule(model.calendars, spec)
    at = datetime.combine(start, time(0), tz).astimezone(UTC) - timedelta(seconds=1)
    out: set[Run] = set()
    for _ in range(5000):
        try:
            at = sched.next_after(at)
        except Exception:  # no further fire (a listed calendar ends)
            break
        local = at.astimezone(tz)
        if local.date() > end:
            break
        out.add((local.date(), local.strftime("%H:%M")))
    return out


def _net_runs(
    model: ImportModel, net: JobNet, start: date, end: date, seen: frozenset[str] = frozenset()
) -> dict[str, set[Run]]:
    """Schedule name → its runs; an ``after`` schedule runs when the job-nets it names do."""
    out: dict[str, set[Run]] = {}
    nets = {n.name: n for n in model.jobnets}
    for spec in net.schedules:
        if spec.cron is not None:
            out[spec.name] = imported_runs(model, spec, start, end)
            continue
        runs: set[Run] = set()
        for pred in spec.after:
            if pred in nets and pred not in seen:
                for r in _net_runs(model, nets[pred], start, end, seen | {net.name}).values():
                    runs |= r
        out[spec.name] = runs
    return out


def _source_runs(model: ImportModel, net: JobNet, job: Job, start: date, end: date) -> set[Run]:
    if model.product == "jp1":
        return _jp1_net_runs(model, net, start, end)
    folder = _ctm_union(model, net.rules, start, end) if net.rules else None
    own = _ctm_union(model, job.rules, start, end) if job.rules else None
    if folder is None:
        return own or set()
    if own is None:
        return folder
    # a SMART folder's job: its own days within the folder's, at its own time if it has one
    if any(w.from_time for w in job.rules or []):
        days = {d for d, _ in folder}
        return {r for r in own if r[0] in days}
    days = {d for d, _ in own}
    return {r for r in folder if r[0] in days}


def _ctm_union(model: ImportModel, whens: list[Any], start: date, end: date) -> set[Run]:
    out: set[Run] = set()
    for when in whens:
        out |= set(ctm_runs(when, model.rule_calendars, model.calendars, start, end))
    return out


def _jp1_net_runs(model: ImportModel, net: JobNet, start: date, end: date) -> set[Run]:
    cal = model.calendars.get(net.rule_calendar or "")
    out: set[Run] = set()
    for rule in net.rules:
        out |= set(jp1_runs(rule, cal, start, end))
    other = next((n for n in model.jobnets if n.name == net.exclusive_of), None)
    if other is not None and other is not net:
        taken = {d for d, _ in _jp1_net_runs(model, other, start, end)}
        out = {r for r in out if r[0] not in taken}
    return out


_LINE = re.compile(r"^line \d+ \((.*)\)$")


def _place(source: str) -> str:
    """A report source without its line number (JP1 ``line N (UNIT/PATH)``)."""
    m = _LINE.match(source)
    return m.group(1) if m else source


def _reasons(model: ImportModel, net: JobNet, job: Job) -> list[str]:
    out = []
    mine = (_place(net.source), _place(job.source))
    for u in model.unmapped:
        if u.kind not in ("schedule", "calendar", "dependency"):
            continue
        if u.kind == "dependency" and "after" not in u.reason and "schedule" not in u.reason:
            continue
        if _place(u.source).startswith(mine) or job.path in u.reason:
            out.append(f"{u.source}: {u.reason}")
    return out


def forecast(model: ImportModel, start: date, days: int) -> list[dict[str, Any]]:
    """Per source job: its runs under both rules from ``start`` for ``days`` days."""
    end = start + timedelta(days=days - 1)
    out: list[dict[str, Any]] = []
    for net in model.jobnets:
        by_schedule = _net_runs(model, net, start, end)
        rescue = {p for chain in net.recovery.values() for p in chain}
        for job in net.jobs.values():
            if job.path in rescue:
                continue  # runs only when a job fails
            names = job.ordered_by if job.ordered_by is not None else tuple(by_schedule)
            imported = set().union(*(by_schedule.get(n, set()) for n in names))
            entry: dict[str, Any] = {"job": job.path, "jobNet": net.name}
            try:
                source = _source_runs(model, net, job, start, end)
            except NotEvaluated as exc:
                entry.update(source=None, imported=[_fmt(r) for r in sorted(imported)])
                entry.update(equal=False, reasons=[f"source rule not evaluated: {exc}"])
                out.append(entry)
                continue
            only_s, only_i = sorted(source - imported), sorted(imported - source)
            entry.update(
                source=[_fmt(r) for r in sorted(source)],
                imported=[_fmt(r) for r in sorted(imported)],
                onlySource=[_fmt(r) for r in only_s],
                onlyImported=[_fmt(r) for r in only_i],
                equal=not only_s and not only_i,
            )
            if only_s or only_i:
                entry["reasons"] = _reasons(model, net, job) or [
                    "no report entry explains it: please report this with the export"
                ]
            out.append(entry)
    return out


def render_forecast(rows: list[dict[str, Any]], start: date, days: int) -> str:
    lines = [f"forecast from {start.isoformat()} for {days} days (source rules vs imported):"]
    for r in rows:
        n_i = len(r["imported"])
        if r["source"] is None:
            lines.append(f"  {r['job']}: source not evaluated, {n_i} imported runs")
        elif r["equal"]:
            lines.append(f"  {r['job']}: {len(r['source'])} runs, the same")
        else:
            lines.append(f"  {r['job']}: {len(r['source'])} source runs, {n_i} imported runs")
            for key, label in (
                ("onlySource", "only in the source"),
                ("onlyImported", "only imported"),
            ):
                if r[key]:
                    shown = ", ".join(r[key][:6]) + (" …" if len(r[key]) > 6 else "")
                    lines.append(f"    {label} ({len(r[key])}): {shown}")
        for reason in r.get("reasons", []):
            lines.append(f"    because {reason}")
    same = sum(1 for r in rows if r["equal"])
    lines.append(f"{same} of {len(rows)} jobs run on the same days and times")
    return "\n".join(lines) + "\n"


def _reference_key(ref: Reference, net: JobNet, job: Job) -> str | None:
    """The reference's entry for a job: Control-M ``FOLDER/JOB`` (the job's own path or its
    innermost folder and name); JP1 the innermost jobnet of its path that the file lists."""
    parts = job.path.split("/")
    if ref.product == "controlm":
        for key in (job.path, f"{net.name}/{job.name}", f"{'/'.join(parts[-2:])}"):
            if key in ref.runs:
                return key
        return None
    for jobnet in reversed(parts[:-1]):
        if jobnet in ref.runs:
            return jobnet
    return None


def compare_reference(
    model: ImportModel, rows: list[dict[str, Any]], ref: Reference, start: date, days: int
) -> dict[str, Any]:
    """Each job's imported (and source-rule) runs against the vendor's own forecast over the
    forecast window (make the vendor's forecast for the same days). A job the file does not
    list is ordered on no day of it: the vendor's reports list runs, not jobs without."""
    end = start + timedelta(days=days - 1)
    nets = {n.name: n for n in model.jobnets}
    used: set[str] = set()
    jobs: list[dict[str, Any]] = []
    for row in rows:
        net = nets[row["jobNet"]]
        job = net.jobs[row["job"]]
        key = _reference_key(ref, net, job)
        want: set[str] = set()
        if key is not None:
            used.add(key)
            want = {_fmt(r) for r in ref.runs[key] if start <= r[0] <= end}
        imported = set(row["imported"])
        source = None if row["source"] is None else set(row["source"])
        jobs.append(
            {
                "job": row["job"],
                "jobNet": row["jobNet"],
                "entry": key,
                "reference": sorted(want),
                "onlyReference": sorted(want - imported),
                "onlyImported": sorted(imported - want),
                "equal": want == imported,
                "sourceAgrees": None if source is None else source == want,
                "reasons": row.get("reasons", []) if want != imported else [],
            }
        )
    return {
        "file": ref.file,
        "from": start.isoformat(),
        "to": end.isoformat(),
        "jobs": jobs,
        "unmatched": sorted(set(ref.runs) - used),
    }


def render_reference(cmp: dict[str, Any]) -> str:
    """Every difference between the imported job-nets and the vendor's forecast, by job."""
    lines = [f"against the vendor's forecast {cmp['file']} ({cmp['from']} to {cmp['to']}):"]
    for r in cmp["jobs"]:
        where = r["entry"] or "not listed: no run"
        if r["equal"]:
            lines.append(f"  {r['job']}: {len(r['reference'])} runs, the same ({where})")
        else:
            lines.append(f"  {r['job']}: differs from the vendor's forecast ({where})")
        for key, label in (("onlyReference", "only in the vendor's forecast"),
                           ("onlyImported", "only imported")):  # fmt: skip
            if r[key]:
                lines.append(f"    {label} ({len(r[key])}): {', '.join(r[key])}")
        for reason in r["reasons"]:
            lines.append(f"    because {reason}")
        if r["sourceAgrees"] is False:
            lines.append("    the source rules as cfnops reads them differ from it too")
    for name in cmp["unmatched"]:
        lines.append(f"  {name}: in the vendor's forecast, no imported job")
    same = sum(1 for r in cmp["jobs"] if r["equal"])
    lines.append(f"{same} of {len(cmp['jobs'])} jobs run as the vendor's forecast says")
    return "\n".join(lines) + "\n"
