"""Fleet heals: one durable run per stack, bounded concurrency, live rows, a summary.

Throttling is handled where it happens: every client uses botocore's ``adaptive``
retry mode (a client-side token bucket shared by all runs of the process, so the
whole fleet slows down together), and each workflow step retries throttling
errors with capped exponential backoff (:func:`cfnops.heal._steps.aws_retry`).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from typing import Any

from cfnops.aws import AwsClients
from cfnops.config import Settings
from cfnops.durable import Engine, RunStore
from cfnops.heal._coverage import Coverage, total
from cfnops.heal._messages import still_line
from cfnops.heal._report import list_stacks
from cfnops.heal._runs import active_heals, run_key, start_heal
from cfnops.heal._workflow import APPROVAL
from cfnops.runtime import Runtime

# Summary buckets, in display order.
BUCKETS = (
    "healed",
    "not healed",
    "in sync",
    "held",
    "change set created",
    "failed",
    "not checkable",
)
_BUCKET = {
    "HEALED": "healed",
    "NOT_HEALED": "not healed",
    "IN_SYNC": "in sync",
    "HELD": "held",
    "CHANGE_SET_CREATED": "change set created",
    "NOT_CHECKABLE": "not checkable",
}
_NOT_CHECKABLE = ("drift detection is only possible", "ended DETECTION_FAILED", "ended UNKNOWN")

FLEET_POLL_SECONDS = 0.5  # how often heal_fleet reads its runs' statuses


@dataclass(frozen=True)
class FleetTarget:
    stack: str
    region: str | None = None
    account: str | None = None  # another account than the caller's …
    role_name: str | None = None  # … entered with STS AssumeRole of this role


@dataclass(frozen=True)
class FleetRow:
    target: FleetTarget
    run_id: str | None = None
    status: str = "WAITING"  # WAITING | RUNNING | HELD | <outcome> | FAILED
    phase: str = ""
    detail: str = ""
    coverage: Coverage | None = None  # from the run's output (None while unknown)

    @property
    def bucket(self) -> str | None:
        if self.status in ("WAITING", "RUNNING"):
            return None
        if self.status == "FAILED" and any(m in self.detail for m in _NOT_CHECKABLE):
            return "not checkable"
        return _BUCKET.get(self.status, "failed")

    def to_json(self) -> dict[str, Any]:
        return {
            "stack": self.target.stack,
            "region": self.target.region,
            "account": self.target.account,
            "runId": self.run_id,
            "status": self.status,
            "bucket": self.bucket,
            "phase": self.phase,
            "detail": self.detail,
            "coverage": self.coverage.to_json() if self.coverage else None,
        }


@dataclass(frozen=True)
class FleetSummary:
    """A fleet heal's rows, and ``counts``: every bucket (``healed`` … ``not checkable``)
    in a fixed order, zeros included, so a renderer can take its columns from it."""

    rows: tuple[FleetRow, ...]
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def coverage(self) -> Coverage:
        """The fleet's coverage: every stack whose run reported one, plus uncheckable stacks."""
        found = total(r.coverage for r in self.rows if r.coverage is not None)
        return found + Coverage(stacks_not_checkable=self.counts.get("not checkable", 0))

    @property
    def exit_code(self) -> int:
        if any(self.counts.get(b, 0) for b in ("failed", "not checkable", "not healed")):
            return 1
        return 3 if self.counts.get("held", 0) else 0


def select_stacks(
    runtime: Runtime,
    regions: Sequence[str | None],
    *,
    tags: dict[str, str] | None = None,
    names: Sequence[str] = (),
    accounts: Mapping[str | None, AwsClients] | None = None,
    role_name: str | None = None,
) -> list[FleetTarget]:
    """Root stacks (nested ones are healed through their parent) matching every filter.

    ``accounts``: account id (``None``: the caller's own) → its clients, entered by
    :func:`cfnops.heal._scan.enter_accounts`; default the caller's account only.
    """
    found: list[FleetTarget] = []
    entered: Mapping[str | None, AwsClients | None] = accounts or {None: None}
    for account, clients in entered.items():
        for region in regions or (None,):
            home = runtime.aws if clients is None or account is None else clients
            cfn = home.in_region(region).client("cloudformation")
            for s in list_stacks(cfn):
                if s.get("ParentId"):
                    continue
                if tags and any(s["Tags"].get(k) != v for k, v in tags.items()):
                    continue
                if names and not any(fnmatchcase(s["StackName"], g) for g in names):
                    continue
                role = role_name if account else None
                found.append(FleetTarget(s["StackName"], region, account, role))
    return found


def _phase(run_id: str) -> tuple[str, bool]:
    """The run's latest step name, and whether it waits for approval now."""
    from dbos import DBOS  # loaded by cfnops.durable (without its PostgreSQL driver)

    steps = DBOS.list_workflow_steps(run_id, load_output=False)
    if not steps:
        return "", False
    names = [str(s["function_name"]) for s in steps]
    # Waiting in the callback: submitted, and neither answered nor expired yet.
    held = f"{APPROVAL} submit" in names and not {"record-approval", "delete-change-set"} & set(
        names
    )
    last = names[-1]
    return ("waiting" if last == "DBOS.sleep" else last), held


def _finished(wf: Any) -> tuple[str, str, Coverage | None]:
    if wf.status == "SUCCESS":
        out = wf.output if isinstance(wf.output, dict) else {}
        cov = out.get("coverage")
        coverage = Coverage.from_json(cov) if isinstance(cov, dict) else None
        still = out.get("stillDrifted") or []
        detail = "still drifted: " + "; ".join(still_line(i) for i in still) if still else ""
        return str(out.get("outcome", "SUCCEEDED")), detail, coverage
    return "FAILED", str(wf.error or wf.status), None


def heal_fleet(
    engine: Engine,
    settings: Settings,
    targets: Sequence[FleetTarget],
    *,
    concurrency: int | None = None,
    only: bool = False,
    on_update: Callable[[tuple[FleetRow, ...]], None] | None = None,
    poll_seconds: float = FLEET_POLL_SECONDS,
    track_phase: bool = True,
) -> FleetSummary:
    """Heal ``targets``, at most ``concurrency`` runs at once (``[heal] fleet_concurrency``).

    A held run frees its slot (it waits durably for ``cfnops approve``); a stack
    already being healed by another run is reported failed with that run's id.
    """
    from dbos import DBOS  # loaded by cfnops.durable (without its PostgreSQL driver)

    limit = concurrency or settings.heal.fleet_concurrency
    rows = [FleetRow(t) for t in targets]
    with RunStore(engine.runtime.database) as store:
        active = active_heals(store, settings.aws.region)
    waiting = list(range(len(rows)))
    inflight: dict[str, int] = {}
    rounds = 0
    while waiting or inflight:
        rounds += 1
        while waiting and len(inflight) < limit:
            i = waiting.pop(0)
            t = rows[i].target
            try:
                run_id = start_heal(
                    engine,
                    settings,
                    t.stack,
                    only=only,
                    region=t.region,
                    active=active,
                    account=t.account,
                    role_name=t.role_name,
                )
            except Exception as exc:  # e.g. HealAlreadyRunning: report, go on
                rows[i] = replace(rows[i], status="FAILED", detail=str(exc))
                continue
            active[run_key(t.account, t.region or settings.aws.region, t.stack)] = run_id
            rows[i] = replace(rows[i], run_id=run_id, status="RUNNING")
            inflight[run_id] = i
        if on_update is not None:
            on_update(tuple(rows))
        if not inflight:
            continue
        time.sleep(poll_seconds)
        statuses = DBOS.list_workflows(workflow_ids=list(inflight), load_input=False)
        for wf in statuses:
            i = inflight[wf.workflow_id]
            if wf.status in ("PENDING", "ENQUEUED"):
                # Reading steps costs a query per run: without a live view, look
                # for held runs every tenth round only.
                if track_phase or rounds % 10 == 0:
                    phase, held = _phase(wf.workflow_id)
                    rows[i] = replace(rows[i], phase=phase)
                    if held:
                        rows[i] = replace(rows[i], status="HELD", detail="waiting for approval")
                        del inflight[wf.workflow_id]
                continue
            outcome, detail, coverage = _finished(wf)
            rows[i] = replace(
                rows[i], status=outcome, detail=detail, phase="done", coverage=coverage
            )
            del inflight[wf.workflow_id]
    if on_update is not None:
        on_update(tuple(rows))
    counts = Counter(r.bucket for r in rows if r.bucket)
    return FleetSummary(tuple(rows), {b: counts.get(b, 0) for b in BUCKETS})
