"""Completion/failure notifications for runs started with ``notify`` (through cfnops.notify)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from cfnops.jobs._runner import execution_arn

if TYPE_CHECKING:
    from cfnops.jobs._service import JobService

__all__ = ["notify_run_end"]

_KEY = "/!notify"


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
    body = (
        json.dumps(row.output, indent=2, ensure_ascii=False)
        if ok
        else f"{row.error}: {row.cause}\n{arn}"
    )
    note = Notification(
        subject=f"cfnops job {row.machine_name}: {row.status}",
        message=f"Job-net {row.machine_name} run {run_id} ended {row.status}.\n```\n{body}\n```",
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
