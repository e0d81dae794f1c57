"""Starting a scheduled or dependent run: exclusive execution, the start queue, and the
monitoring a run carries (when it was due, how long it should take, its deadline).

Exclusive execution (a schedule's ``exclusive`` option) decides what a start does while a
run of the same job-net is RUNNING: ``run`` (start anyway, the default), ``skip`` (do
not start; an alert row ``skipped`` records it) or ``queue`` (the start waits in the
start queue and begins, in order, when no run of the job-net is RUNNING).

Every start is keyed by a deterministic run id, so two workers that race start it once.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import sqlalchemy as sa

from cfnops.jobs._service import JobService
from cfnops.jobs._tables import alerts, runs, schedules
from cfnops.jobs.errors import InvalidOption

__all__ = [
    "EXCLUSIVE_MODES",
    "duration_seconds",
    "monitor_options",
    "start_entry",
    "start_queued",
]

_log = logging.getLogger("cfnops.jobs")
EXCLUSIVE_MODES = ("run", "skip", "queue")
QUEUE = "cfnops"


def monitor_options(
    *,
    exclusive: str = "run",
    expected: str | None = None,
    deadline: str | None = None,
    start_grace: float = 60.0,
) -> dict[str, Any]:
    """Validated job-manager options for a schedule or dependency entry."""
    if exclusive not in EXCLUSIVE_MODES:
        raise InvalidOption("--exclusive", exclusive, f"use one of {', '.join(EXCLUSIVE_MODES)}")
    out: dict[str, Any] = {"exclusive": exclusive, "startGrace": float(start_grace)}
    if expected is not None:
        out["expected"] = "auto" if expected == "auto" else duration_seconds(expected, "--expected")
    if deadline is not None:
        try:
            hh, mm = (int(p) for p in deadline.split(":"))
            if not (0 <= hh < 24 and 0 <= mm < 60):
                raise ValueError
        except ValueError:
            raise InvalidOption("--deadline", deadline, "use HH:MM (local time)") from None
        out["deadline"] = f"{hh:02d}:{mm:02d}"
    return out


def duration_seconds(text: str, flag: str) -> float:
    """``90``, ``90s``, ``30m`` or ``2h`` in seconds."""
    units = {"s": 1, "m": 60, "h": 3600}
    try:
        value = float(text[:-1]) * units[text[-1]] if text[-1:] in units else float(text)
    except ValueError:
        raise InvalidOption(flag, text, "use seconds, or N followed by s, m or h") from None
    if value <= 0:
        raise InvalidOption(flag, text, "must be more than zero")
    return value


def _deadline_at(hhmm: str, due: float, tz: str) -> float:
    """The first HH:MM (in ``tz``) at or after the time the run was due."""
    zone = ZoneInfo(tz)
    local = datetime.fromtimestamp(due, zone)
    hh, mm = (int(p) for p in hhmm.split(":"))
    at = local.replace(hour=hh, minute=mm, second=0, microsecond=0)
    if at < local:
        at += timedelta(days=1)
    return at.timestamp()


def _active(jobs: JobService, machine: str) -> str | None:
    with jobs.store.engine.connect() as conn:
        found = conn.execute(
            sa.select(runs.c.run_id)
            .where(runs.c.machine_name == machine, runs.c.status == "RUNNING")
            .limit(1)
        ).first()
    return None if found is None else str(found[0])


def record_alert(jobs: JobService, run_id: str, condition: str, details: Mapping[str, Any]) -> bool:
    """Insert an alert row once; False when it exists (another worker, or earlier)."""
    try:
        with jobs.store.engine.begin() as conn:
            key = sa.and_(alerts.c.run_id == run_id, alerts.c.condition == condition)
            if conn.execute(sa.select(alerts.c.run_id).where(key)).first() is not None:
                return False
            conn.execute(
                alerts.insert().values(
                    run_id=run_id,
                    condition=condition,
                    created_at=time.time(),
                    details=json.dumps(dict(details)),
                )
            )
    except sa.exc.IntegrityError:
        return False
    return True


def _launch(
    jobs: JobService,
    row: Mapping[str, Any],
    run_id: str,
    source: str,
    due: float,
    entry: str | None = None,
) -> bool:
    opts = json.loads(row.get("options") or "{}")
    monitor = {
        "scheduledAt": due,
        "startGrace": float(opts.get("startGrace", 60.0)),
        "expected": opts.get("expected"),
        "deadlineAt": _deadline_at(opts["deadline"], due, row.get("timezone") or "UTC")
        if opts.get("deadline")
        else None,
    }
    options = {
        "notify": bool(opts.get("notify")),
        "monitor": monitor,
        "schedule": entry or row["name"],
    }
    try:
        jobs.start(
            json.loads(row["definition"]),
            json.loads(row["input"]),
            machine_name=row["machine_name"],
            name=run_id,
            source=source,
            queue=QUEUE,
            options=options,
            modules=tuple(opts.get("modules") or ()),
        )
    except sa.exc.IntegrityError:  # another worker created the same run at this moment
        return False
    return True


def start_entry(
    jobs: JobService, row: Mapping[str, Any], run_id: str, source: str, due: float
) -> str:
    """Start (or skip, or queue) the entry's run; what happened: started|skipped|queued."""
    mode = json.loads(row.get("options") or "{}").get("exclusive", "run")
    active = _active(jobs, row["machine_name"]) if mode != "run" else None
    if active is None or active == run_id:
        _launch(jobs, row, run_id, source, due)
        return "started"
    if mode == "skip":
        record_alert(jobs, run_id, "skipped", {"activeRun": active, "scheduledAt": due})
        _log.warning("%s: skipped, %s is still running", run_id, active, extra={"run_id": run_id})
        return "skipped"
    queued = {
        **dict(row),
        "name": run_id,
        "kind": "queued",
        "next_fire": due,
        "expression": json.dumps({"source": source, "entry": row["name"]}),
    }
    queued.pop("created_at", None)
    with jobs.store.engine.begin() as conn:
        if conn.execute(sa.select(schedules.c.name).where(schedules.c.name == run_id)).first():
            return "queued"
        conn.execute(schedules.insert().values(**queued, created_at=time.time()))
    return "queued"


def start_queued(jobs: JobService) -> list[str]:
    """Start queued runs, oldest first, whose job-net has no RUNNING run."""
    started: list[str] = []
    busy: set[str] = set()
    for row in sorted(jobs.store.list_schedules("queued"), key=lambda r: r["next_fire"] or 0):
        machine = row["machine_name"]
        if machine in busy or _active(jobs, machine) is not None:
            busy.add(machine)
            continue
        meta = json.loads(row["expression"])
        _launch(jobs, row, row["name"], str(meta["source"]), float(row["next_fire"]), meta["entry"])
        jobs.store.remove_schedule(row["name"])  # after the start: a crash cannot lose it
        busy.add(machine)
        started.append(row["name"])
    return started
