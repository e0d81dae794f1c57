"""HELD as an outcome in run listings: a heal waiting for approval, a job run an operator held.

The engine says RUNNING for both; an operator reads that as "working". A gate-held
heal waits in its approval callback (``cfnops approve`` / ``reject``); a held job
run starts no new state until released (``cfnops job release``).
"""

from __future__ import annotations

from typing import Any

from cfnops.durable import RunRecord, RunStore

__all__ = ["WAITING_APPROVAL", "WAITING_OPERATOR", "held_runs"]

WAITING_APPROVAL = "waiting for approval"
WAITING_OPERATOR = "held by an operator"
_HEAL = "cfnops.heal"
_JOB = "cfnops.jobs.execution"


def held_runs(store: RunStore, records: list[RunRecord], jobs: Any | None) -> dict[str, str]:
    """Run id → what it waits for, for each RUNNING record that is held.

    ``jobs``: a job store (``held(run_id)``), or ``None`` when there are no job runs.
    """
    from cfnops.heal import held_info

    out: dict[str, str] = {}
    for r in records:
        if r.status != "RUNNING":
            continue
        if r.workflow == _HEAL and held_info(r, store.steps(r.run_id)) is not None:
            out[r.run_id] = WAITING_APPROVAL
        elif r.workflow == _JOB and jobs is not None:
            job_run = (r.input or {}).get("runId") if isinstance(r.input, dict) else None
            if job_run and jobs.held(str(job_run)):
                out[r.run_id] = WAITING_OPERATOR
    return out
