"""``cfnops job calendar forecast DIR``: the run dates of an import's job-nets, read from
the files it wrote (``report.json``, ``calendars/*.toml``) — what the worker will fire,
without the export at hand (``job import --forecast`` also compares with the source)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from cfnops.jobimport.errors import ImportInputError

__all__ = ["forecast_files"]


def _runs(out: Path, s: dict[str, Any], start: date, end: date) -> list[str]:
    from cfnops.jobs import CalendarSchedule, load_calendar, parse_day_rule, parse_schedule

    tz = ZoneInfo(s["timezone"])
    sched: Any = parse_schedule(s["cron"], s["timezone"])
    if s.get("calendar"):
        cal = load_calendar(out / s["calendar"])
        sched = CalendarSchedule(sched, cal, parse_day_rule(s.get("dayRule") or "open"))
    at = datetime.combine(start, time(0), tz).astimezone(UTC) - timedelta(seconds=1)
    runs: list[str] = []
    for _ in range(5000):
        try:
            at = sched.next_after(at)
        except Exception:  # a listed calendar ends
            break
        local = at.astimezone(tz)
        if local.date() > end:
            break
        runs.append(local.strftime("%Y-%m-%d %H:%M"))
    return runs


def forecast_files(out: str | Path, start: date, days: int) -> list[dict[str, Any]]:
    """Per job-net: its schedules' runs from ``start`` for ``days`` days (``after``
    schedules: the runs of the job-nets they wait for)."""
    out = Path(out)
    try:
        report = json.loads((out / "report.json").read_text(encoding="utf-8"))
        nets = {n["name"]: n for n in report["jobNets"]}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ImportInputError(
            str(out), "report.json", f"not the folder of a cfnops job import ({exc})",
            "give the --out folder of cfnops job import",
        ) from None  # fmt: skip
    end = start + timedelta(days=days - 1)
    cache: dict[str, list[str]] = {}

    def net_runs(name: str, seen: frozenset[str]) -> list[str]:
        if name not in cache:
            runs: set[str] = set()
            for s in nets[name]["schedules"]:
                if s.get("cron"):
                    runs |= set(_runs(out, s, start, end))
                for pred in s.get("after") or []:
                    if pred in nets and pred not in seen:
                        runs |= set(net_runs(pred, seen | {name}))
            cache[name] = sorted(runs)
        return cache[name]

    return [
        {
            "jobNet": name,
            "schedules": [s["name"] for s in net["schedules"]],
            "runs": net_runs(name, frozenset({name})),
        }
        for name, net in nets.items()
    ]
