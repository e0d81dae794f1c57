"""Which runs of a job-net order each Control-M job: folder and job criteria → schedules.

Control-M orders each job by its own criteria (BMC Control-M Automation API, Code
Reference, job properties "When"; a SMART_FOLDER's criteria come first and a job's own
criteria narrow them). A cfnops schedule starts the whole job-net, so:

- a folder with criteria: the job-net's schedules are the folder's; a job whose own
  criteria differ is reported (it runs whenever the job-net runs);
- a folder without criteria: every distinct job criteria becomes schedules of the job-net,
  and each job whose criteria did not make all of them runs only in the runs its own
  schedules start (``Job.ordered_by``: a ``Choice`` on the run input's ``cfnopsSchedule``,
  which ``--apply`` sets to the schedule's name); the job-net is not widened for any job.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from cfnops.jobimport._controlm_when import CtmWhen, translate_when
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
