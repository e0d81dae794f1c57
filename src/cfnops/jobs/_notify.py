"""Completion/failure notifications for runs started with ``notify`` (through cfnops.notify)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cfnops.durable import Mark, Position
from cfnops.jobs._runner import execution_arn
from cfnops.jobs._views import state_views

if TYPE_CHECKING:
    from cfnops.jobs._service import JobService

__all__ = ["failure_text", "notify_run_end"]

_KEY = Position.of(Mark("notify"))  # checkpointed: sent once
_VERB = {"TIMED_OUT": "timed out", "ABORTED": "was aborted"}


def failure_text(status: str, states: Sequence[str], error: str | None, cause: str | None) -> str:
    """What went wrong, from what exists: the failed states, the error, the cause.

    >>> failure_text("FAILED", ["Stop"], None, None)
    'state Stop failed without an error name'
    >>> failure_text("FAILED", [], "States.TaskFailed", "boom")
    'the execution failed: States.TaskFailed: boom'
    """
    where = f"state {', '.join(states)}" if states else "the execution"
    verb = _VERB.get(status, "failed")
    said = ": ".join(part for part in (error, cause) if part)
    if said:
        return f"{where} {verb}: {said}"
    if status in _VERB:
        return f"{where} {verb}"
    return f"{where} failed without an error name"


def _unfenced(text: str) -> str:
    # the body sits inside a code fence: a fence in the output would end it early
    return text.replace("```", "\u02cb\u02cb\u02cb")


def notify_run_end(service: JobService, run_id: str) -> bool:
    """Send one notification when the run asked for it; never twice (checkpointed)."""
    store = service.store
    row = store.get_run(run_id)
    if not row.options.get("notify") or row.status == "RUNNING":
        return False
    if store.get_step(run_id, _KEY) is not None:
        return False
    from cfnops.notify import Notification, notify_all

    ok = row.status == "SUCCEEDED"
    arn = execution_arn(row, service.region, service.account)
    if ok:
        body = json.dumps(row.output, indent=2, ensure_ascii=False)
    else:
        views = state_views(store.history(run_id))
        failed = [v.name for v in views.values() if v.status in ("FAILED", "ABORTED")]
        body = f"{failure_text(row.status, failed[-1:], row.error, row.cause)}\n{arn}"
    note = Notification(
        subject=f"cfnops job {row.machine_name}: {row.status}",
        message=(
            f"Job-net {row.machine_name} run {run_id} ended {row.status}.\n"
            f"```\n{_unfenced(body)}\n```"
        ),
        outcome=row.status,
        severity="info" if ok else "error",
        run_id=run_id,
        details=(("execution", arn),),
    )
    deliveries = notify_all(note, service.settings, service.clients)
    store.put_step(
        run_id,
        _KEY,
        "task",
        ok=True,
        result=[{"channel": d.channel, "ok": d.ok} for d in deliveries],
    )
    return True
