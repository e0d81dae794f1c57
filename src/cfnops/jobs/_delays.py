"""Delay monitoring: a run that starts late, runs long, or misses its deadline.

Runs started by a schedule or a dependency carry ``options.monitor``: when they were due
(``scheduledAt``), the start grace, the expected duration (seconds, or ``auto``: 1.5 x
the longest of the job-net's last five successful runs, once there are three) and the
deadline. Workers check RUNNING runs (and runs that ended in the last hour) every tick;
each condition of a run is recorded once in the alerts table — a primary key, so two
workers cannot both claim it — and only the worker that recorded it sends the
notification: exactly one per condition per run (none, if that worker dies between the
two; the alert row still shows it).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from cfnops.jobs._service import JobService
from cfnops.jobs._starts import record_alert
from cfnops.jobs._store import RunRow
from cfnops.jobs._tables import alerts, runs

__all__ = ["CONDITIONS", "check_delays", "expected_seconds", "list_alerts", "notify_alert"]

CONDITIONS = ("late-start", "long-run", "deadline")
Notify = Callable[[str, str, Mapping[str, Any]], None]
_RECENT = 3600.0


def expected_seconds(jobs: JobService, machine: str, declared: Any) -> float | None:
    """The declared duration, or (``auto``) 1.5 x the longest of the last five successes."""
    if isinstance(declared, int | float) and not isinstance(declared, bool):
        return float(declared)
    if declared != "auto":
        return None
    with jobs.store.engine.connect() as conn:
        rows = conn.execute(
            sa.select(runs.c.started_at, runs.c.stopped_at)
            .where(runs.c.machine_name == machine, runs.c.status == "SUCCEEDED")
            .order_by(runs.c.stopped_at.desc())
            .limit(5)
        ).all()
    if len(rows) < 3:
        return None
    return 1.5 * max(float(r[1]) - float(r[0]) for r in rows)


def _conditions(jobs: JobService, row: RunRow, now: float) -> dict[str, dict[str, Any]]:
    mon = row.options.get("monitor")
    if not isinstance(mon, Mapping):
        return {}
    found: dict[str, dict[str, Any]] = {}
    due = float(mon.get("scheduledAt") or row.started_at)
    lag = row.started_at - due
    if lag > float(mon.get("startGrace", 60.0)):
        found["late-start"] = {
            "scheduledAt": due,
            "startedAt": row.started_at,
            "lateSeconds": round(lag, 3),
        }
    ended = row.stopped_at if row.status != "RUNNING" else None
    if row.status == "RUNNING":
        limit = expected_seconds(jobs, row.machine_name, mon.get("expected"))
        if limit is not None and now - row.started_at > limit:
            found["long-run"] = {
                "expectedSeconds": round(limit, 3),
                "runningSeconds": round(now - row.started_at, 3),
            }
    deadline = mon.get("deadlineAt")
    if deadline is not None and (ended or now) > float(deadline):
        found["deadline"] = {"deadlineAt": float(deadline), "status": row.status, "endedAt": ended}
    return found


def check_delays(
    jobs: JobService, notify: Notify | None = None, now: float | None = None
) -> list[tuple[str, str]]:
    """Record (and notify) each new delay condition; the (run id, condition) pairs."""
    now = time.time() if now is None else now
    with jobs.store.engine.connect() as conn:
        ids: list[Any] = list(
            conn.execute(
                sa.select(runs.c.run_id).where(
                    sa.or_(runs.c.status == "RUNNING", runs.c.stopped_at > now - _RECENT),
                    runs.c.options.like('%"monitor"%'),
                )
            ).scalars()
        )
    raised: list[tuple[str, str]] = []
    for run_id in ids:
        row = jobs.store.get_run(str(run_id))
        for condition, details in _conditions(jobs, row, now).items():
            details = {**details, "stateMachine": row.machine_name}
            if record_alert(jobs, row.run_id, condition, details):
                raised.append((row.run_id, condition))
                if notify is not None:
                    notify(row.run_id, condition, details)
    return raised


def list_alerts(jobs: JobService, run_id: str | None = None) -> list[dict[str, Any]]:
    query = sa.select(alerts).order_by(alerts.c.created_at)
    if run_id:
        query = query.where(alerts.c.run_id == run_id)
    with jobs.store.engine.connect() as conn:
        return [
            {
                "runId": r["run_id"],
                "condition": r["condition"],
                "at": r["created_at"],
                "details": json.loads(r["details"]),
            }
            for r in conn.execute(query).mappings()
        ]


_TEXT = {
    "late-start": "started late",
    "long-run": "is running longer than expected",
    "deadline": "missed its deadline",
    "dependency-timeout": "gave up waiting for the job-nets it depends on",
}


def notify_alert(jobs: JobService) -> Notify:
    """A :data:`Notify` that sends through ``cfnops.notify`` (the ``[notify]`` settings)."""

    def send(run_id: str, condition: str, details: Mapping[str, Any]) -> None:
        from cfnops.notify import Notification, notify_all

        what = _TEXT.get(condition, condition)
        machine = details.get("stateMachine") or details.get("entry") or ""
        shown = {
            k: datetime.fromtimestamp(v, UTC).isoformat(timespec="seconds")
            if k.endswith("At") and isinstance(v, int | float)
            else v
            for k, v in details.items()
        }
        note = Notification(
            subject=f"cfnops job {machine}: {condition}",
            message=f"Job-net {machine} run {run_id} {what}.\n```\n"
            + json.dumps(shown, indent=2, default=str)
            + "\n```",
            outcome=condition.upper(),
            severity="warning",
            run_id=run_id,
        )
        notify_all(note, jobs.settings, jobs.clients)

    return send
