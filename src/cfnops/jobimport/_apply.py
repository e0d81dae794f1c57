"""``--apply``: register the schedules, calendars, dependencies and pools in the run database.

Every write replaces the row with the same name (``job schedule add`` and ``job pool
set`` semantics), so importing the same export again changes nothing. Job-nets are
registered in dependency order: the job-nets an ``after`` names have their entry first.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfnops.jobimport._pipeline import ImportPlan

if TYPE_CHECKING:
    from cfnops.jobs import JobService

__all__ = ["apply_plan"]


def _order(nets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_name = {n["name"]: n for n in nets}
    done: list[str] = []

    def visit(name: str, seen: frozenset[str]) -> None:
        if name in done or name in seen or name not in by_name:
            return
        for s in by_name[name]["schedules"]:
            for pred in s["after"]:
                visit(pred, seen | {name})
        done.append(name)

    for n in nets:
        visit(n["name"], frozenset())
    return [by_name[n] for n in done]


def apply_plan(plan: ImportPlan, out: str | Path, jobs: JobService) -> dict[str, Any]:
    """Register what ``plan`` (already written under ``out``) describes; returns what was set."""
    from cfnops.jobs import (
        PoolStore,
        TriggerService,
        add_dependency,
        load_calendar,
        monitor_options,
    )

    out = Path(out)
    pools = PoolStore(jobs.store.engine)
    applied: dict[str, Any] = {"pools": [], "schedules": [], "dependencies": [], "skipped": []}
    for name, capacity in plan.report["pools"].items():
        pools.set(name, int(capacity))
        applied["pools"].append(name)
    triggers = TriggerService(jobs)
    for net in _order(plan.report["jobNets"]):
        path = out / net["definition"]
        definition = plan.definitions[net["name"]]
        for s in net["schedules"]:
            opts = monitor_options(
                exclusive=s.get("exclusive") or "run",
                expected=s.get("expected"),
                deadline=s.get("deadline"),
            )
            if s["after"]:
                try:
                    add_dependency(
                        jobs,
                        s["name"],
                        str(path),
                        definition,
                        s["after"],
                        {},
                        {**opts, "timezone": s["timezone"], "notify": s["notify"]},
                    )
                    applied["dependencies"].append(s["name"])
                except Exception as exc:
                    applied["skipped"].append({"name": s["name"], "reason": str(exc)})
                continue
            cal = load_calendar(out / s["calendar"]) if s["calendar"] else None
            triggers.add_schedule(
                s["name"],
                str(path),
                definition,
                s["cron"],
                s["timezone"],
                {"cfnopsSchedule": s["name"]},  # which jobs a run orders (_controlm_order)
                notify=s["notify"],
                calendar=cal,
                day_rule=s["dayRule"],
                options=opts,
            )
            applied["schedules"].append(s["name"])
    return applied
