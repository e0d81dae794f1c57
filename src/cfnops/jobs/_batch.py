"""Actions on many job runs at once: rerun, redrive, cancel, hold or release.

After an incident an operator acts on dozens of runs; the console (Runs page) and the
CLI (``cfnops runs batch``) do it with one reason and one confirmation. A batch is a
list of single actions, each checked, executed and audited exactly as when taken on
one run: one run refused (it is no longer in a state the action applies to) does not
stop the others, and every run gets its own result.

>>> plan = plan_batch(store, "rerun", ["nightly-1", "nightly-2"])   # doctest: +SKIP
>>> [p.ok for p in plan]                                             # doctest: +SKIP
[True, False]
>>> results = run_batch(jobs, "rerun", [p.run_id for p in plan if p.ok],
...                     actor="alice", reason="INC-42 retry")        # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from cfnops.errors import CfnopsError, UsageError

if TYPE_CHECKING:
    from cfnops.jobs._service import JobService
    from cfnops.jobs._store import JobStore, RunRow

__all__ = [
    "BATCH_ACTIONS",
    "MAX_BATCH",
    "BatchResult",
    "batch_consequence",
    "parse_run_filter",
    "plan_batch",
    "run_batch",
    "select_runs",
]

MAX_BATCH = 500
_ENDED = ("SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED")
_FAILED = ("FAILED", "TIMED_OUT", "ABORTED")
BATCH_ACTIONS: Mapping[str, str] = {
    "rerun": "each starts again from its start as a new run linked to it (same input; "
    "its tasks call AWS again)",
    "redrive": "each goes on from the state it failed in (finished states keep their "
    "outputs; failed Map iterations and Parallel branches run again)",
    "cancel": "each stops: the states running now are abandoned and the run ends ABORTED "
    "(a rerun makes a new run)",
    "hold": "in each, the states running now finish but no new state starts until it is released",
    "release": "each held run goes on at once",
}
_FILTER_KEYS = ("status", "machine", "text", "since", "until")


@dataclass(frozen=True)
class BatchResult:
    """One run of a batch: whether the action applies (a plan) or was done (a result)."""

    run_id: str
    ok: bool
    detail: str
    new_run_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "runId": self.run_id,
            "ok": self.ok,
            "detail": self.detail,
            "newRunId": self.new_run_id,
        }


def batch_consequence(action: str, count: int) -> str:
    """What confirming does, in words: the count and the consequence."""
    _known(action)
    runs = "1 run" if count == 1 else f"{count} runs"
    return f"{action.capitalize()} {runs}: {BATCH_ACTIONS[action]}."


def _known(action: str) -> None:
    if action not in BATCH_ACTIONS:
        raise UsageError(
            f"unknown batch action {action!r}", hint=f"use one of {', '.join(BATCH_ACTIONS)}"
        )


def _applies(action: str, row: RunRow, held: bool) -> str | None:
    """Why ``action`` does not apply to the run now (None: it does)."""
    if action == "rerun" and row.status not in _ENDED:
        return f"it is {row.status}: rerun a run that has ended"
    if action == "redrive" and row.status not in _FAILED:
        return f"it is {row.status}: only a failed, timed-out or aborted run is redriven"
    if action in ("cancel", "hold", "release") and row.status != "RUNNING":
        return f"it is {row.status}, not RUNNING"
    if action == "hold" and held:
        return "it is held already"
    if action == "release" and not held:
        return "it is not held"
    return None


def _held(store: JobStore, run_id: str) -> bool:
    holds = [c.action for c in store.list_controls(run_id) if c.action in ("hold", "release")]
    return bool(holds) and holds[-1] == "hold"


def plan_batch(store: JobStore, action: str, run_ids: Sequence[str]) -> list[BatchResult]:
    """The dry run: for each run, whether the action applies now and why not."""
    _known(action)
    if len(run_ids) > MAX_BATCH:
        raise UsageError(
            f"{len(run_ids)} runs selected; a batch acts on at most {MAX_BATCH}",
            hint="narrow the filter (status, machine, time) and act in several batches",
        )
    out: list[BatchResult] = []
    for run_id in dict.fromkeys(run_ids):  # once each, in the order given
        row = store.find_run(run_id)
        if row is None:
            out.append(BatchResult(run_id, False, "no such job run"))
            continue
        why = _applies(action, row, _held(store, run_id))
        out.append(BatchResult(run_id, why is None, why or f"{row.status}: will {action}"))
    return out


def run_batch(
    jobs: JobService,
    action: str,
    run_ids: Sequence[str],
    *,
    actor: str,
    reason: str,
    queue: str | None = "cfnops",
) -> list[BatchResult]:
    """Act on each run in turn (each audited with ``reason``); one result per run."""
    if not reason.strip():
        raise UsageError(
            "a batch action needs a reason", hint="say why (it is kept in the audit log)"
        )
    act = _actions(jobs, actor, reason, queue)[action]
    out: list[BatchResult] = []
    for planned in plan_batch(jobs.store, action, run_ids):
        if not planned.ok:
            out.append(BatchResult(planned.run_id, False, f"not done: {planned.detail}"))
            continue
        try:
            out.append(act(planned.run_id))
        except CfnopsError as exc:  # refused now (it moved since the plan): the others go on
            out.append(BatchResult(planned.run_id, False, f"not done: {exc.message}"))
    return out


def _actions(
    jobs: JobService, actor: str, reason: str, queue: str | None
) -> dict[str, Callable[[str], BatchResult]]:
    from cfnops.durable import AuditLog
    from cfnops.jobs._rerun import RerunRequest

    def audit(action: str, run_id: str, detail: dict[str, Any]) -> None:
        with AuditLog(jobs.runtime.database) as log:
            log.record(actor=actor, action=action, target=run_id, reason=reason, detail=detail)

    def rerun(run_id: str) -> BatchResult:  # audited by the rerun itself
        new_id = jobs.rerun(
            run_id, RerunRequest("from-start"), actor=actor, reason=reason, queue=queue
        )
        return BatchResult(run_id, True, f"rerun as {new_id}", new_id)

    def redrive(run_id: str) -> BatchResult:
        dbos_id = jobs.redrive(run_id, queue=queue)
        audit("redrive", run_id, {"dbosId": dbos_id, "batch": True})
        return BatchResult(run_id, True, "redriven from the failed state")

    def cancel(run_id: str) -> BatchResult:
        row = jobs.stop(run_id)
        audit("stop", run_id, {"batch": True})
        return BatchResult(run_id, True, f"stop requested ({row.status})")

    def hold(run_id: str) -> BatchResult:  # audited by hold/release themselves
        jobs.hold(run_id, actor=actor, reason=reason)
        return BatchResult(run_id, True, "held")

    def release(run_id: str) -> BatchResult:
        jobs.release(run_id, actor=actor, reason=reason)
        return BatchResult(run_id, True, "released")

    return {"rerun": rerun, "redrive": redrive, "cancel": cancel, "hold": hold,
            "release": release}  # fmt: skip


def parse_run_filter(items: Sequence[str]) -> dict[str, str]:
    """``KEY=VALUE`` items (status, machine, text, since, until) as a filter."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip().lower()
        if not sep or key not in _FILTER_KEYS or not value.strip():
            raise UsageError(
                f"bad filter {item!r}",
                hint=f"use KEY=VALUE with KEY one of {', '.join(_FILTER_KEYS)}, "
                "e.g. --filter status=FAILED --filter since=2026-12-01T18:00",
            )
        out[key] = value.strip()
    for key in ("since", "until"):
        if key in out:
            _time(key, out[key])
    return out


def _time(key: str, text: str) -> float:
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(
            f"bad filter {key}={text!r}", hint="an ISO 8601 time such as 2026-12-01T18:00 (UTC)"
        ) from None
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp()


def select_runs(store: JobStore, flt: Mapping[str, str], limit: int = MAX_BATCH + 1) -> list[str]:
    """Job run ids matching the filter, newest first (at most ``limit``)."""
    status = flt.get("status", "").upper() or None
    since = _time("since", flt["since"]) if "since" in flt else None
    until = _time("until", flt["until"]) if "until" in flt else None
    found: list[str] = []
    for row in store.list_runs(status=status, limit=100_000):
        if "machine" in flt and row.machine_name != flt["machine"]:
            continue
        if "text" in flt and flt["text"] not in row.run_id:
            continue
        if (since is not None and row.started_at < since) or (
            until is not None and row.started_at > until
        ):
            continue
        found.append(row.run_id)
        if len(found) >= limit:
            break
    return found
