"""Drift-scan schedules from the settings (``[drift_scan.schedules.NAME]``), fired by workers.

Fire times are a function of the expression alone, so every worker computes the same
ones: ``cron(...)`` as EventBridge Scheduler reads it (:func:`cfnops.schedules.parse_schedule`,
in the schedule's time zone), ``rate(N unit)`` at whole multiples of the rate since
1970-01-01T00:00Z (``rate(1 day)`` fires at 00:00 UTC). Each fire starts the run
``drift-scan-<name>-<UTC fire time>`` once: starting an id that exists returns the
existing run, so two workers — or a worker restarted in the same minute — never scan
twice for one fire.

A worker that starts checks the schedule's last scheduled run in the run database and
catches up the most recent fire time it missed (only that one). A fire that comes while
the schedule's previous run is still running or queued is skipped (logged): the
comparison chain needs the runs in order.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from cfnops.aws import check_region
from cfnops.config import ConfigError, DriftSchedule, Settings
from cfnops.database import Database
from cfnops.durable import DEFAULT_QUEUE, Engine, RunRecord, RunStore
from cfnops.errors import CfnopsError
from cfnops.heal._scan_watch import (
    DRIFT_SCAN_WORKFLOW,
    drift_scan_event,
    drift_scan_run_id,
    fire_time,
    schedule_runs,
)
from cfnops.schedules import Schedule, parse_schedule

__all__ = ["DriftPlan", "DriftScheduler", "plan_drift_schedules", "run_drift_scheduler"]

_log = logging.getLogger("cfnops.heal")
ACTIVE = ("RUNNING", "QUEUED")
_MAX_STEPS = 200_000  # fire times walked to find the latest one (rate(1 minute): 138 days)


@dataclass(frozen=True)
class DriftPlan:
    """A configured drift-scan schedule, its expression parsed."""

    name: str
    config: DriftSchedule
    schedule: Schedule

    def next_fire(self, after: datetime) -> datetime:
        """The first fire time strictly after ``after`` (UTC)."""
        if self.schedule.rate is not None:
            step = self.schedule.rate.total_seconds()
            return datetime.fromtimestamp((math.floor(after.timestamp() / step) + 1) * step, UTC)
        return self.schedule.next_after(after)

    def latest_fire(self, after: datetime, until: datetime) -> datetime | None:
        """The last fire time in ``(after, until]``, or None."""
        found: datetime | None = None
        cursor = max(after, until - timedelta(days=400))
        for _ in range(_MAX_STEPS):
            nxt = self.next_fire(cursor)
            if nxt > until:
                break
            found = cursor = nxt
        return found


def _channel_on(settings: Settings, channel: str) -> bool:
    cfg = settings.notify
    if channel == "console":
        return cfg.console
    if channel == "sns":
        return cfg.sns_topic_arn is not None
    return cfg.slack_webhook_url is not None or cfg.slack_webhook_ref is not None


_CHANNEL_FIX = {
    "console": "set notify.console = true",
    "sns": "set notify.sns_topic_arn",
    "slack": "set notify.slack_webhook_url or notify.slack_webhook_ref",
}


def plan_drift_schedules(settings: Settings, source: str = "configuration") -> list[DriftPlan]:
    """Check every ``[drift_scan.schedules.*]`` entry; :class:`ConfigError` names the key.

    ``source`` names where the settings came from (the file) in the error.
    """
    plans: list[DriftPlan] = []
    for name, cfg in sorted(settings.drift_scan.schedules.items()):
        key = f"drift_scan.schedules.{name}"
        try:
            schedule = parse_schedule(cfg.schedule, cfg.timezone)
        except CfnopsError as exc:
            raise ConfigError(source, f"{key}.schedule", exc.message) from None
        for region in cfg.regions:
            try:
                check_region(region)
            except CfnopsError as exc:
                raise ConfigError(source, f"{key}.regions", exc.message) from None
        for channel in cfg.notify or ():
            if not _channel_on(settings, channel):
                raise ConfigError(
                    source,
                    f"{key}.notify",
                    f"channel {channel!r} is not enabled in [notify] ({_CHANNEL_FIX[channel]})",
                )
        if (cfg.organization or len(cfg.accounts) > 1) and not cfg.role_name:
            raise ConfigError(
                source, f"{key}.role_name", "needed to enter the other accounts (AssumeRole)"
            )
        plans.append(DriftPlan(name, cfg, schedule))
    return plans


def last_runs(database: Database, plans: list[DriftPlan]) -> dict[str, RunRecord]:
    """Each schedule's newest run (by fire time, manual runs included), with its output."""
    out: dict[str, RunRecord] = {}
    for plan in plans:
        runs = schedule_runs(database, plan.name, limit=50)
        if runs:
            with RunStore(database) as store:
                out[plan.name] = store.get(max(runs, key=fire_time).run_id)
    return out


class DriftScheduler:
    """Starts the runs of due drift-scan schedules (call :meth:`prime`, then :meth:`fire_due`)."""

    def __init__(
        self,
        engine: Engine,
        plans: list[DriftPlan],
        *,
        queue: str | None = DEFAULT_QUEUE,
    ) -> None:
        self.engine = engine
        self.plans = [p for p in plans if p.config.enabled]
        self.queue = queue
        self._cursor: dict[str, datetime] = {}

    def prime(self, now: datetime | None = None) -> list[str]:
        """Start counting from ``now``; catch up each schedule's latest missed fire."""
        now = now or datetime.now(UTC)
        started: list[str] = []
        for plan in self.plans:
            runs = schedule_runs(self.engine.runtime.database, plan.name)
            fired = [fire_time(r) for r in runs if not (r.input or {}).get("manual")]
            if fired:
                missed = plan.latest_fire(datetime.fromisoformat(max(fired)), now)
                if missed is not None:
                    _log.info("drift scan %s: catching up the fire of %s", plan.name, missed)
                    run_id = self._start(plan, missed)
                    if run_id:
                        started.append(run_id)
            self._cursor[plan.name] = now
        return started

    def fire_due(self, now: datetime | None = None) -> list[str]:
        """Start a run for each schedule with a fire time in (last look, ``now``]."""
        now = now or datetime.now(UTC)
        started: list[str] = []
        for plan in self.plans:
            cursor = self._cursor.setdefault(plan.name, now)
            if plan.next_fire(cursor) > now:
                continue
            due = plan.latest_fire(cursor, now)
            if due is not None:
                if plan.next_fire(cursor) != due:
                    _log.warning("drift scan %s: fire times before %s skipped", plan.name, due)
                run_id = self._start(plan, due)  # raises: the cursor stays, retried next look
                if run_id:
                    started.append(run_id)
            self._cursor[plan.name] = now
        return started

    def _start(self, plan: DriftPlan, due: datetime) -> str | None:
        run_id = drift_scan_run_id(plan.name, due)
        active = [
            r.run_id
            for r in schedule_runs(self.engine.runtime.database, plan.name, limit=50)
            if r.status in ACTIVE and r.run_id != run_id
        ]
        if active:
            _log.warning(
                "drift scan %s: the fire of %s skipped: %s is still %s",
                plan.name,
                due.isoformat(),
                active[0],
                "running or queued",
            )
            return None
        event = drift_scan_event(plan.name, plan.config, due)
        self.engine.start(DRIFT_SCAN_WORKFLOW, event, run_id=run_id, queue=self.queue)
        return run_id


def start_drift_scan(
    engine: Engine, plan: DriftPlan, now: datetime | None = None, *, queue: str | None = None
) -> str:
    """Start one run of ``plan`` now (``cfnops drift scan --schedule NAME``); its run id."""
    now = (now or datetime.now(UTC)).replace(microsecond=0)
    run_id = drift_scan_run_id(plan.name, now) + "-now"
    event = drift_scan_event(plan.name, plan.config, now, manual=True)
    engine.start(DRIFT_SCAN_WORKFLOW, event, run_id=run_id, queue=queue)
    return run_id


def describe(
    plans: list[DriftPlan], database: Database, now: datetime | None = None
) -> list[dict[str, Any]]:
    """One row per schedule: expression, next fire, newest run and what it found."""
    now = now or datetime.now(UTC)
    last = last_runs(database, plans)
    rows: list[dict[str, Any]] = []
    for plan in plans:
        rec = last.get(plan.name)
        out: Mapping[str, Any] = rec.output if rec is not None and rec.output else {}
        rows.append(
            {
                "name": plan.name,
                "schedule": plan.config.schedule,
                "timezone": plan.config.timezone,
                "enabled": plan.config.enabled,
                # in the schedule's time zone, with its offset
                "nextFire": plan.next_fire(now)
                .astimezone(ZoneInfo(plan.config.timezone))
                .isoformat()
                if plan.config.enabled
                else None,
                "lastRun": rec.run_id if rec is not None else None,
                "lastStatus": rec.status if rec is not None else None,
                "appeared": len(out.get("appeared", [])) if out else None,
                "cleared": len(out.get("cleared", [])) if out else None,
                "drifted": out.get("drifted"),
                "outputDir": str(plan.config.output_dir) if plan.config.output_dir else None,
                "notify": list(plan.config.notify) if plan.config.notify is not None else "all",
            }
        )
    return rows


def run_drift_scheduler(
    scheduler: DriftScheduler, stop: threading.Event, interval: float = 1.0
) -> None:
    """The worker loop: catch up, then fire due schedules every ``interval`` until ``stop``."""
    primed = False
    last_error = ""
    while not stop.is_set():
        try:
            if not primed:
                scheduler.prime()
                primed = True
            scheduler.fire_due()
        except Exception as exc:  # keep serving: a database hiccup is logged, retried
            text = f"{type(exc).__name__}: {exc}"
            if text != last_error:
                _log.warning("drift scan schedules: %s (retrying every %g s)", text, interval)
            last_error = text
        else:
            last_error = ""
        stop.wait(interval)
