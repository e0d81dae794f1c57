"""The scheduled drift scan as a durable run: scan → compare with the previous scan → notify.

Workflow :data:`DRIFT_SCAN_WORKFLOW` (``cfnops.drift-scan``), one run per scheduled fire
(run id ``drift-scan-<schedule>-<UTC fire time>``: the idempotency key of the fire).
Its event carries the schedule's settings as resolved when it fired, so a run
recovered after a crash scans what it was started to scan.

Steps (each checkpointed; a finished step is never run again):

1. ``scan`` — the fleet scan (:func:`cfnops.heal._scan.scan`), accepted drift
   (``drift accept``) marked as such until it expires; report files written
   in ``<output_dir>/<run id>/`` (atomically) before the step ends; its result is the
   compact per-stack state, not the whole report;
2. ``compare`` — reads the previous scan of the same schedule from the run database
   (the latest SUCCEEDED run with an earlier fire time) and compares states;
3. ``notify`` — only when drift appeared, cleared or changed: one message to the
   schedule's channels. A scan that fails as a whole (a role that cannot be assumed)
   fails the run after ``notify-failure``: one ``SCAN_FAILED`` message, unless the
   schedule's previous run failed too. A crash before this step ends sends it on recovery; a crash
   in the instant between a channel accepting it and the checkpoint sends it again
   (channels have no idempotency key: the run id in the message identifies it).
"""

from __future__ import annotations

import json
import logging
from datetime import datetime
from pathlib import Path
from typing import Any

from aws_durable_execution_sdk_python import DurableContext, durable_execution

from cfnops.config import DriftSchedule, to_data, validated
from cfnops.database import Database
from cfnops.durable import RunRecord, RunStore, runtime_of, workflow
from cfnops.heal._scan_changes import (
    DriftChanges,
    StackChange,
    changes_message,
    changes_subject,
    compare_states,
    scan_state,
)
from cfnops.heal._scan_fleet import plan_scan, run_scan
from cfnops.heal._scan_render import scan_html, scan_markdown
from cfnops.heal._steps import AWS_STEP
from cfnops.heal._workflow import run_identity
from cfnops.heal.errors import InvalidHealEvent
from cfnops.notify import Delivery, Notification, build_notifiers, deliver
from cfnops.runtime import Runtime

DRIFT_SCAN_WORKFLOW = "cfnops.drift-scan"
RUN_PREFIX = "drift-scan-"
_log = logging.getLogger("cfnops.heal")

__all__ = [
    "DRIFT_SCAN_WORKFLOW",
    "drift_scan_event",
    "drift_scan_run_id",
    "fire_time",
    "previous_state",
    "schedule_runs",
]


def drift_scan_run_id(schedule: str, fire_time: datetime) -> str:
    """The run id of one fire: the same fire gives the same id on every worker."""
    return f"{RUN_PREFIX}{schedule}-{fire_time.strftime('%Y%m%dT%H%M%SZ')}"


def drift_scan_event(
    schedule: str, config: DriftSchedule, fire_time: datetime, *, manual: bool = False
) -> dict[str, Any]:
    return {
        "schedule": schedule,
        "fireTime": fire_time.isoformat(),
        "manual": manual,
        "config": to_data(config),
    }


def _parse(event: Any) -> tuple[str, DriftSchedule, str]:
    try:
        return (
            str(event["schedule"]),
            validated(DriftSchedule, event["config"]),
            str(event["fireTime"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidHealEvent(f"not a drift-scan event ({type(exc).__name__}: {exc})") from None


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def _scan_step(rt: Runtime, config: DriftSchedule, run_id: str) -> dict[str, Any]:
    plan = plan_scan(
        rt,
        accounts=list(config.accounts),
        organization=config.organization,
        role_name=config.role_name,
        regions=list(config.regions),
    )
    result = run_scan(rt, plan, concurrency=config.concurrency)
    folder: str | None = None
    if config.output_dir is not None:
        where = config.output_dir / run_id
        where.mkdir(parents=True, exist_ok=True)
        _write(where / "drift-scan.md", scan_markdown(result))
        _write(where / "drift-scan.json", json.dumps(result.to_json(), indent=2) + "\n")
        _write(where / "drift-scan.html", scan_html(result))
        folder = str(where)
    return {
        "state": scan_state(result),
        "counts": result.counts(),
        "coverage": result.coverage.to_json(),
        "seconds": round(result.seconds, 2),
        "throttled": result.throttled,
        "reportDir": folder,
    }


def schedule_runs(
    database: Database,
    schedule: str,
    *,
    status: str | None = None,
    limit: int = 1000,
) -> list[RunRecord]:
    """The schedule's newest runs (by creation), inputs only: outputs are not read."""
    with RunStore(database) as store:
        runs = store.list_runs(
            status=status,
            workflow=DRIFT_SCAN_WORKFLOW,
            limit=limit,
            id_prefix=f"{RUN_PREFIX}{schedule}-",
            load_output=False,
        )
    return [r for r in runs if isinstance(r.input, dict) and r.input.get("schedule") == schedule]


def fire_time(rec: RunRecord) -> str:
    return str((rec.input or {}).get("fireTime", ""))


def previous_state(
    database: Database, schedule: str, before: str
) -> tuple[str, dict[str, Any]] | None:
    """(run id, state) of the schedule's latest SUCCEEDED scan fired before ``before``."""
    earlier = [
        r for r in schedule_runs(database, schedule, status="SUCCEEDED") if fire_time(r) < before
    ]
    if not earlier:
        return None
    best = max(earlier, key=fire_time)
    with RunStore(database) as store:
        out = store.get(best.run_id).output
    if not isinstance(out, dict) or "state" not in out:
        return None
    return best.run_id, dict(out["state"])


def _compare_step(rt: Runtime, schedule: str, fired: str, state: dict[str, Any]) -> dict[str, Any]:
    found = previous_state(rt.database, schedule, fired)
    changes = compare_states(None if found is None else found[1], state)
    return {**changes.to_json(), "previousRun": None if found is None else found[0]}


def _changes(data: dict[str, Any]) -> DriftChanges:
    def items(key: str) -> tuple[StackChange, ...]:
        return tuple(
            StackChange(c["stack"], tuple(c["resources"]), c["note"]) for c in data.get(key, [])
        )

    return DriftChanges(
        items("appeared"),
        items("cleared"),
        items("changed"),
        items("notChecked"),
        data["state"],
        bool(data["firstScan"]),
    )


def _notify_step(
    rt: Runtime, schedule: str, config: DriftSchedule, run_id: str, data: dict[str, Any]
) -> list[dict[str, Any]]:
    changes = _changes(data)
    details = [("Schedule", schedule), ("Drifted now", str(changes.drifted))]
    if data.get("reportDir"):
        details.append(("Reports", str(data["reportDir"])))
    note = Notification(
        subject=changes_subject(schedule, changes),
        message=changes_message(schedule, run_id, changes),
        outcome="DRIFT_APPEARED"
        if changes.appeared
        else "DRIFT_CHANGED"
        if changes.changed
        else "DRIFT_CLEARED",
        severity="warning" if changes.appeared or changes.changed else "info",
        run_id=run_id,
        details=tuple(details),
        idempotency_key=f"{run_id}:notify",
    )
    return _send(rt, schedule, config, note)


def _failed_step(
    rt: Runtime, schedule: str, config: DriftSchedule, run_id: str, fired: str, reason: str
) -> list[dict[str, Any]]:
    """Tell the scan failed, unless the schedule's previous run failed too (told then)."""
    earlier = [
        (fire_time(r), r.status)
        for r in schedule_runs(rt.database, schedule)
        if fire_time(r) < fired and r.status in ("SUCCEEDED", "FAILED")
    ]
    if earlier and max(earlier)[1] == "FAILED":
        return []
    note = Notification(
        subject=f"cfnops drift scan {schedule}: the scan failed",
        message=f"Drift scan {schedule} could not run: {reason}\n"
        "Drift is not being watched until a scan succeeds; the next scan is compared with "
        f"the last successful one.\nRun: {run_id}",
        outcome="SCAN_FAILED",
        severity="error",
        run_id=run_id,
        details=(("Schedule", schedule),),
        idempotency_key=f"{run_id}:notify-failure",
    )
    return _send(rt, schedule, config, note)


def _send(
    rt: Runtime, schedule: str, config: DriftSchedule, note: Notification
) -> list[dict[str, Any]]:
    if rt.notify_hook is not None:
        rt.notify_hook(note)
    try:
        notifiers = build_notifiers(rt.settings, rt.aws, console_channel=rt.console_channel)
    except Exception as exc:  # a notification never fails the run: say why none went
        _log.warning("drift scan %s: notifications not sent: %s", schedule, type(exc).__name__)
        return [{"channel": "setup", "ok": False, "error": type(exc).__name__}]
    wanted = set(config.notify) if config.notify is not None else None
    chosen = [n for n in notifiers if wanted is None or n.name in wanted]
    return [_delivery(d) for d in deliver(note, chosen)]


def _delivery(d: Delivery) -> dict[str, Any]:
    return {"channel": d.channel, "ok": d.ok, "attempts": d.attempts, "error": d.error}


@workflow(DRIFT_SCAN_WORKFLOW)
@durable_execution
def drift_scan_run(event: Any, context: DurableContext) -> dict[str, Any]:
    """Scan, compare with the previous scan of the schedule, notify what changed."""
    schedule, config, fired = _parse(event)
    rt = runtime_of(context)
    run_id = run_identity(context)
    try:
        scanned: dict[str, Any] = context.step(
            lambda _: _scan_step(rt, config, run_id), name="scan", config=AWS_STEP
        )
    except Exception as exc:  # the recorded failure, the same on every replay
        reason = str(exc)
        context.step(
            lambda _: _failed_step(rt, schedule, config, run_id, fired, reason),
            name="notify-failure",
        )
        raise
    state = scanned["state"]
    compared: dict[str, Any] = context.step(
        lambda _: _compare_step(rt, schedule, fired, state), name="compare", config=AWS_STEP
    )
    data = {**compared, "reportDir": scanned.get("reportDir")}
    deliveries: list[dict[str, Any]] = []
    if compared["appeared"] or compared["cleared"] or compared["changed"]:
        deliveries = context.step(
            lambda _: _notify_step(rt, schedule, config, run_id, data), name="notify"
        )
    return {
        "schedule": schedule,
        "fireTime": fired,
        "runId": run_id,
        **{k: v for k, v in scanned.items() if k != "state"},
        **compared,
        "notified": bool(deliveries),
        "deliveries": deliveries,
    }
