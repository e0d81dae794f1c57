"""Schedules and event triggers: definitions kept in the job store, fired by workers.

An event trigger is an EventBridge rule (the trigger's event pattern) on a bus whose
target is an SQS queue (``cfnops-job-<name>``); ``cfnops worker`` reads the queue and
starts one run per event, named after the event id so a redelivered event does not start
a second run. The same works against the sandbox (its bus delivers to SQS targets, and
``cfnops events put`` publishes) and against AWS.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from cfnops.jobs._calendar import Calendar
from cfnops.jobs._definition import machine_name
from cfnops.jobs._pools import PoolStore
from cfnops.jobs._service import JobService
from cfnops.jobs._starts import start_entry
from cfnops.jobs._timing import schedule_of, timing_options
from cfnops.jobs.errors import JobInputError

__all__ = ["TriggerService"]

_log = logging.getLogger("cfnops.jobs")
QUEUE = "cfnops"


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "-", name)[:60]


class TriggerService:
    """Adds, lists and removes schedules and event triggers; fires them (in workers)."""

    def __init__(self, jobs: JobService) -> None:
        self.jobs = jobs
        self.store = jobs.store

    # -- schedules -----------------------------------------------------------------------
    def add_schedule(
        self,
        name: str,
        definition_path: str,
        definition: Mapping[str, Any],
        expression: str,
        timezone: str,
        value: Any,
        *,
        notify: bool = False,
        now: datetime | None = None,
        calendar: Calendar | None = None,
        day_rule: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Add or replace a schedule; with ``calendar``, ``day_rule`` decides its days."""
        PoolStore(self.store.engine).check(definition, machine_name(definition_path))
        opts = {**dict(options or {}), "notify": notify, **timing_options(calendar, day_rule)}
        row: dict[str, Any] = {
            "name": name,
            "kind": "schedule",
            "definition": json.dumps(definition),
            "machine_name": machine_name(definition_path),
            "expression": expression,
            "timezone": timezone,
            "input": json.dumps(value),
            "options": json.dumps(opts),
        }
        row["next_fire"] = schedule_of(row).next_after(now or datetime.now(UTC)).timestamp()
        self.store.put_schedule(row)
        return self._public(row)

    def add_event_trigger(
        self,
        name: str,
        definition_path: str,
        definition: Mapping[str, Any],
        pattern: Mapping[str, Any],
        *,
        bus: str = "default",
        notify: bool = False,
    ) -> dict[str, Any]:
        from cfnops.eventpatterns import InvalidEventPattern, validate_pattern

        try:
            validate_pattern(dict(pattern))
        except InvalidEventPattern as exc:
            raise JobInputError("the event pattern", "--pattern", str(exc)) from None
        clients = self.jobs.clients
        sqs, events = clients.client("sqs"), clients.client("events")
        queue_url = sqs.create_queue(QueueName=f"cfnops-job-{_safe(name)}")["QueueUrl"]
        queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])[
            "Attributes"
        ]["QueueArn"]
        rule = f"cfnops-job-{_safe(name)}"
        events.put_rule(
            Name=rule, EventPattern=json.dumps(pattern), EventBusName=bus, State="ENABLED"
        )
        events.put_targets(
            Rule=rule, EventBusName=bus, Targets=[{"Id": "cfnops", "Arn": queue_arn}]
        )
        row = {
            "name": name,
            "kind": "event",
            "definition": json.dumps(definition),
            "machine_name": machine_name(definition_path),
            "expression": json.dumps(pattern),
            "timezone": "UTC",
            "input": "null",
            "next_fire": None,
            "options": json.dumps(
                {"notify": notify, "queue_url": queue_url, "rule": rule, "bus": bus}
            ),
        }
        self.store.put_schedule(row)
        return self._public(row)

    def entries(self, kind: str | None = None) -> list[dict[str, Any]]:
        """Schedules, ``--after`` entries and triggers (not the starts waiting in the queue)."""
        rows = self.store.list_schedules(kind)
        return [self._public(r) for r in rows if kind or r["kind"] != "queued"]

    def remove(self, name: str) -> bool:
        for row in self.store.list_schedules():
            if row["name"] == name and row["kind"] == "event":
                opts = json.loads(row["options"])
                events = self.jobs.clients.client("events")
                try:
                    events.remove_targets(
                        Rule=opts["rule"], EventBusName=opts["bus"], Ids=["cfnops"]
                    )
                    events.delete_rule(Name=opts["rule"], EventBusName=opts["bus"])
                    self.jobs.clients.client("sqs").delete_queue(QueueUrl=opts["queue_url"])
                except Exception as exc:  # the trigger goes anyway; say what was left behind
                    _log.warning("trigger %s: could not remove its rule/queue: %s", name, exc)
        return self.store.remove_schedule(name)

    def set_enabled(self, name: str, enabled: bool, now: datetime | None = None) -> dict[str, Any]:
        """Enable or disable a schedule or trigger; a schedule enabled again fires from now on.

        A disabled event trigger drops the events that reach it, as a disabled
        EventBridge rule would not deliver them.
        """
        row = next((r for r in self.store.list_schedules() if r["name"] == name), None)
        if row is None:
            from cfnops.jobs.errors import UnknownSchedule

            raise UnknownSchedule(name)
        options = {**json.loads(row["options"] or "{}"), "disabled": not enabled}
        next_fire = row["next_fire"]
        if enabled and row["kind"] == "schedule":
            next_fire = schedule_of(row).next_after(now or datetime.now(UTC)).timestamp()
        self.store.update_schedule(name, options=json.dumps(options), next_fire=next_fire)
        return self._public({**row, "options": json.dumps(options), "next_fire": next_fire})

    @staticmethod
    def _public(row: Mapping[str, Any]) -> dict[str, Any]:
        nxt = row.get("next_fire")
        opts = json.loads(row.get("options") or "{}")
        extra: dict[str, Any] = {}
        if row["kind"] == "after":
            extra = {"after": json.loads(row["expression"]), "waitTimeout": opts.get("waitTimeout")}
            nxt = None
        if opts.get("calendar"):
            extra = {"calendar": opts["calendar"]["name"], "dayRule": opts.get("dayRule")}
        return {
            "name": row["name"],
            "kind": row["kind"],
            "enabled": not opts.get("disabled", False),
            "stateMachine": row["machine_name"],
            "expression": row["expression"],
            "timezone": row["timezone"],
            "input": json.loads(row["input"]),
            "nextFire": datetime.fromtimestamp(nxt, UTC).isoformat() if nxt else None,
            **extra,
        }

    # -- firing (worker services) --------------------------------------------------------
    def fire_due(self, now: datetime | None = None) -> list[str]:
        """Start a run for every schedule that is due; each fire time starts one run."""
        now = now or datetime.now(UTC)
        started: list[str] = []
        for row in self.store.list_schedules("schedule"):
            due = row["next_fire"]
            if due is None or due > now.timestamp() or _disabled(row):
                continue
            schedule = schedule_of(row)
            after = max(datetime.fromtimestamp(due, UTC), now - schedule_slack())
            nxt = schedule.next_after(after)
            if not self.store.advance_schedule(row["name"], due, nxt.timestamp()):
                continue  # another worker took this fire time
            stamp = datetime.fromtimestamp(due, UTC).strftime("%Y%m%dT%H%M%SZ")
            run_id = f"{_safe(row['name'])}-{stamp}"
            if start_entry(self.jobs, row, run_id, f"schedule:{row['name']}", due) == "started":
                started.append(run_id)
        return started

    def preflight(self) -> None:
        """Fail at worker start, not every second after: event triggers need AWS (SQS)."""
        if self.store.list_schedules("event"):
            _ = self.jobs.clients.region  # AwsSetupError naming the fix when none is set

    def poll_events(self, wait_seconds: int = 1) -> list[str]:
        """Start a run for each event waiting in a trigger's queue (input: the event)."""
        from cfnops.eventpatterns import matches

        started: list[str] = []
        rows = self.store.list_schedules("event")
        if not rows:
            return started  # no trigger: no SQS client (and no region) needed
        sqs = self.jobs.clients.client("sqs")
        for row in rows:
            opts = json.loads(row["options"])
            got = sqs.receive_message(
                QueueUrl=opts["queue_url"], MaxNumberOfMessages=10, WaitTimeSeconds=wait_seconds
            )
            for msg in got.get("Messages", []):
                event = json.loads(msg["Body"])
                if not _disabled(row) and matches(json.loads(row["expression"]), event):
                    run_id = f"{_safe(row['name'])}-{_safe(str(event.get('id', msg['MessageId'])))}"
                    self.jobs.start(
                        json.loads(row["definition"]),
                        event,
                        machine_name=row["machine_name"],
                        name=run_id[:80],
                        source=f"event:{row['name']}",
                        queue=QUEUE,
                        options={"notify": opts.get("notify", False)},
                        modules=tuple(opts.get("modules") or ()),
                    )
                    started.append(run_id[:80])
                sqs.delete_message(QueueUrl=opts["queue_url"], ReceiptHandle=msg["ReceiptHandle"])
        return started


def _disabled(row: Mapping[str, Any]) -> bool:
    return bool(json.loads(row.get("options") or "{}").get("disabled"))


def schedule_slack() -> Any:
    from datetime import timedelta

    # A worker that was down does not replay every missed fire time: at most one catch-up.
    return timedelta(seconds=60)


def run_services(jobs: JobService, stop: threading.Event, interval: float = 1.0) -> None:
    """The worker loop: fire due schedules and read event-trigger queues until ``stop``."""
    from cfnops.jobs._delays import check_delays, notify_alert
    from cfnops.jobs._dependencies import fire_dependencies
    from cfnops.jobs._starts import start_queued

    triggers = TriggerService(jobs)
    send = notify_alert(jobs)
    chores: tuple[Callable[[], object], ...] = (
        triggers.fire_due,
        triggers.poll_events,
        functools.partial(fire_dependencies, jobs, send),
        functools.partial(start_queued, jobs),
        functools.partial(check_delays, jobs, send),
    )
    failing: dict[str, str] = {}  # chore → its last error: one warning per new error
    while not stop.is_set():
        began = time.monotonic()
        for fire in chores:
            what = getattr(fire, "__name__", None) or getattr(fire, "func", fire).__name__
            try:
                fire()
            except Exception as exc:  # keep serving: a bad row or an unreachable queue is logged
                text = f"{type(exc).__name__}: {exc}"
                if failing.get(what) != text:
                    _log.warning(
                        "job triggers: %s failed: %s (retrying every %g s)", what, text, interval
                    )
                _log.debug("job triggers: %s failed", what, exc_info=True)  # traceback with -vv
                failing[what] = text
            else:
                if failing.pop(what, None) is not None:
                    _log.warning("job triggers: %s works again", what)
        stop.wait(max(0.0, interval - (time.monotonic() - began)))
