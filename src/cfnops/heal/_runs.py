"""Heal runs on cfnops's engine: start (never two per stack), read outcomes, approve, reject."""

from __future__ import annotations

import datetime as dt
import getpass
from dataclasses import dataclass
from typing import Any

from cfnops.config import Settings, to_data
from cfnops.database import Database
from cfnops.durable import AuditLog, Engine, RunRecord, RunStore, StepRecord
from cfnops.heal._workflow import APPROVAL, HEAL_WORKFLOW
from cfnops.heal.errors import HealAlreadyRunning, NotHeld

ACTIVE = ("RUNNING", "QUEUED")


def run_id_prefix(stack: str) -> str:
    """Heal run ids read ``heal-<stack>-<UTC time>-<12 random hex digits>``."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
    return f"heal-{stack[:80]}-{stamp}"


# (account or None for the caller's own, region, stack): one heal run at a time each.
RunKey = tuple[str | None, str | None, str]


def heal_event(
    settings: Settings,
    stack: str,
    *,
    only: bool = False,
    region: str | None = None,
    account: str | None = None,
    role_name: str | None = None,
) -> dict[str, Any]:
    """The workflow input: the reference keys plus the region, the account (another
    than the caller's, entered through ``role_name``) and the [heal] settings used."""
    event: dict[str, Any] = {
        "StackName": stack,
        "CreateChangeSetOnly": only,
        "Settings": to_data(settings.heal),
    }
    if region:
        event["Region"] = region
    if account:
        event["Account"], event["RoleName"] = account, role_name
    return event


def run_key(account: str | None, region: str | None, stack: str) -> RunKey:
    return (account or None, region, stack)


def _key(event: Any, default_region: str | None) -> RunKey | None:
    if not isinstance(event, dict) or "StackName" not in event:
        return None
    return run_key(event.get("Account"), event.get("Region") or default_region, event["StackName"])


def active_heals(store: RunStore, default_region: str | None) -> dict[RunKey, str]:
    """``(account, region, stack) → run id`` of every heal run still running or queued."""
    found: dict[RunKey, str] = {}
    for status in ACTIVE:
        for rec in store.list_runs(status=status, workflow=HEAL_WORKFLOW, limit=100_000):
            key = _key(rec.input, default_region)
            if key is not None:
                found.setdefault(key, rec.run_id)
    return found


def start_heal(
    engine: Engine,
    settings: Settings,
    stack: str,
    *,
    only: bool = False,
    region: str | None = None,
    run_id: str | None = None,
    active: dict[RunKey, str] | None = None,
    account: str | None = None,
    role_name: str | None = None,
) -> str:
    """Start a heal run; :class:`HealAlreadyRunning` when one is running for the stack.

    The rule: one run per (account, region, stack) at a time. The second is refused,
    not queued, so that nobody approves a change set built from stale drift.
    ``account``: another account than the caller's, entered with ``role_name``.
    """
    if active is None:
        with RunStore(engine.runtime.database) as store:
            active = active_heals(store, settings.aws.region)
    running = active.get(run_key(account, region or settings.aws.region, stack))
    if running is not None and running != run_id:
        raise HealAlreadyRunning(stack, running)
    handle = engine.start(
        HEAL_WORKFLOW,
        heal_event(settings, stack, only=only, region=region, account=account, role_name=role_name),
        run_id=run_id,
        id_prefix=run_id_prefix(stack),
    )
    return handle.run_id


@dataclass(frozen=True)
class HeldInfo:
    run_id: str
    stack: str
    reasons: tuple[str, ...]
    change_set_id: str | None
    since: dt.datetime | None = None  # when the run started waiting for the approval
    expires: dt.datetime | None = None  # then it deletes the change set and ends EXPIRED

    @property
    def open_for(self) -> str:
        """How long the approval stays open, e.g. ``71 h 58 min`` (``-`` when unknown)."""
        if self.expires is None:
            return "-"
        left = max(0, int((self.expires - dt.datetime.now(dt.UTC)).total_seconds()))
        return f"{left // 3600} h {left % 3600 // 60} min"


def gate_decision(steps: list[StepRecord]) -> dict[str, Any] | None:
    """The safety gate's decision: the state of the change set poll that saw it complete."""
    for step in reversed(steps):
        if step.name.startswith("wait-change-set #") and isinstance(step.result, dict):
            gate = step.result.get("gate")
            return dict(gate) if isinstance(gate, dict) else None
    return None


def held_info(record: RunRecord, steps: list[StepRecord]) -> HeldInfo | None:
    """The run's hold, when it waits for approval right now."""
    if record.workflow != HEAL_WORKFLOW or record.status != "RUNNING":
        return None
    names = [s.name for s in steps]
    decision = gate_decision(steps)
    if decision is None or decision.get("decision") != "HOLD":
        return None
    if f"{APPROVAL} submit" not in names or {"record-approval", "delete-change-set"} & set(names):
        return None
    made = next((s.result for s in steps if s.name == "create-change-set"), None)
    submitted = next(s for s in steps if s.name == f"{APPROVAL} submit")
    since = submitted.ended or submitted.started
    return HeldInfo(
        record.run_id,
        str((record.input or {}).get("StackName", "?")),
        tuple(decision.get("reasons", [])),
        made.get("Id") if isinstance(made, dict) else None,
        since,
        None if since is None else since + dt.timedelta(hours=_expiry_hours(record)),
    )


def _expiry_hours(record: RunRecord) -> float:
    """``approval_expiry_hours`` the run was started with (its event's Settings), else 72."""
    event = record.input if isinstance(record.input, dict) else {}
    given = (event.get("Settings") or {}).get("approval_expiry_hours")
    return float(given) if isinstance(given, int | float) else 72.0


def run_outcome(record: RunRecord, steps: list[StepRecord] | None = None) -> str:
    """HEALED, IN_SYNC, … from the output; FAILED; HELD; RUNNING/QUEUED; CANCELLED."""
    if record.status == "SUCCEEDED" and isinstance(record.output, dict):
        return str(record.output.get("outcome", "SUCCEEDED"))
    if record.status == "RUNNING" and steps is not None and held_info(record, steps):
        return "HELD"
    return record.status


def answer_approval(
    database: Database,
    run_id: str,
    verdict: str,
    *,
    reason: str = "",
    by: str | None = None,
) -> dict[str, Any]:
    """Answer a held run's approval callback (``approve`` or ``reject``); who and why recorded.

    Only the first answer counts (the message carries an idempotency key). Each answer is
    written to the audit log (actor, verdict, run, reason, time).
    """
    with RunStore(database) as store:
        record = store.get(run_id)
        if record.workflow != HEAL_WORKFLOW:
            raise NotHeld(run_id, f"it is a {record.workflow} run, not {HEAL_WORKFLOW}")
        held = held_info(record, store.steps(run_id))
    if held is None:
        raise NotHeld(run_id, f"it is {run_outcome(record)} and has no pending approval")
    answer = {
        "decision": verdict,
        "by": by or getpass.getuser(),
        "reason": reason,
        "at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    with RunStore(database) as store:
        store.send(
            run_id,
            {"status": "SUCCEEDED", "result": answer},
            topic=f"{run_id}:{APPROVAL}",
            idempotency_key=f"{run_id}:{APPROVAL}:answer",
        )
    # Audited here, so that every front (CLI, console, a program) records the same row.
    with AuditLog(database) as audit:
        audit.record(
            actor=str(answer["by"]),
            action=verdict,
            target=run_id,
            reason=reason or None,
            detail={"at": answer["at"]},
        )
    return answer


def approve(
    database: Database, run_id: str, *, reason: str = "", by: str | None = None
) -> dict[str, Any]:
    """Approve a held run's change set (the run then executes it)."""
    return answer_approval(database, run_id, "approve", reason=reason, by=by)


def reject(
    database: Database, run_id: str, *, reason: str = "", by: str | None = None
) -> dict[str, Any]:
    """Reject a held run's change set (the run deletes it and ends REJECTED)."""
    return answer_approval(database, run_id, "reject", reason=reason, by=by)
