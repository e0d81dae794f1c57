"""``cfnops runs``: list, show, history, cancel and resume durable runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from cfnops.cli._held import held_runs
from cfnops.cli._progress import watch_run
from cfnops.cli._state import CliState, state
from cfnops.cli._table import Table
from cfnops.durable import (
    DEFAULT_QUEUE,
    RUN_STATUSES,
    AuditLog,
    Engine,
    RunHandle,
    RunRecord,
    RunStore,
    StepRecord,
    redacted,
)
from cfnops.errors import UsageError

runs_app = typer.Typer(
    help="Durable run records: list, show, history, cancel, resume; batch actions on job runs.",
    no_args_is_help=True,
)


def _audit(st: CliState, action: str, run_id: str) -> None:
    with AuditLog(st.runtime.database) as audit:
        audit.record(actor=AuditLog.default_actor(), action=action, target=run_id)


def _when(record: RunRecord | StepRecord, attr: str) -> str:
    value = getattr(record, attr)
    return value.strftime("%Y-%m-%d %H:%M:%S") if value else "-"


@runs_app.command("list")
def list_runs(
    ctx: typer.Context,
    status: Annotated[
        str | None, typer.Option(help=f"Only runs in this status: {', '.join(RUN_STATUSES)}.")
    ] = None,
    workflow: Annotated[str | None, typer.Option(help="Only runs of this workflow.")] = None,
    outcome: Annotated[
        str | None,
        typer.Option(
            help="Only runs that ended so: FAILED (a job-net that failed, too), REJECTED, "
            "HEALED, NOT_HEALED, IN_SYNC, … (the OUTCOME column); HELD: a heal waiting for "
            "approval or a job run an operator held."
        ),
    ] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many (newest first).")] = 50,
) -> None:
    """List runs, newest first, with their outcome.

    STATUS is the engine's (a heal that was rejected, or a job-net whose execution failed,
    ended normally: SUCCEEDED); OUTCOME is what the run came to.
    """
    st = state(ctx)
    if status is not None and status.upper() not in RUN_STATUSES:
        raise UsageError(f"unknown status {status!r}", hint=f"use one of {', '.join(RUN_STATUSES)}")
    with RunStore(st.runtime.database) as store:
        records = store.list_runs(
            status=status.upper() if status else None,
            workflow=workflow,
            limit=limit if outcome is None else max(limit * 20, 2000),
        )
        held = held_runs(store, records, _jobs_of(st, records))
    outcomes = {r.run_id: "HELD" if r.run_id in held else r.outcome for r in records}
    if outcome is not None:
        _check_outcome(outcome, records)
        records = [r for r in records if outcomes[r.run_id] == outcome.upper()][:limit]
    if st.output_format == "json":
        st.emit_json(
            [
                {**r.to_json(), "outcome": outcomes[r.run_id], "waiting": held.get(r.run_id)}
                for r in records
            ]
        )
        return
    table = Table(
        "RUN ID", "WORKFLOW", "STATUS", "OUTCOME", "CREATED (UTC)", "UPDATED (UTC)", "VERSION"
    )
    for r in records:
        version = r.version or "-"
        table.add_row(
            r.run_id,
            r.workflow,
            r.status if r.needs is None else f"{r.status} (needs {r.needs})",
            f"HELD ({held[r.run_id]})" if r.run_id in held else r.outcome,
            _when(r, "created"),
            _when(r, "updated"),
            version if r.compatible else f"{version} (incompatible)",
        )
    st.console.print(table if records else "no runs")


# What the built-in workflows end with beside the engine's statuses (heal, drift scans,
# ami rotations, job-nets); a workflow of one's own may say others: those recorded count.
_OUTCOMES = (
    "HEALED", "NOT_HEALED", "IN_SYNC", "HELD", "CHANGE_SET_CREATED", "REJECTED", "EXPIRED",
    "OBSOLETE", "NOT_CHECKABLE", "NOT_REVERTABLE", "DRIFT_APPEARED", "SCAN_FAILED", "UPDATED",
    "UNCHANGED", "DRIFTED", "DRIFT_UNKNOWN", "SKIPPED", "TIMED_OUT", "ABORTED",
)  # fmt: skip


def _check_outcome(outcome: str, records: list[RunRecord]) -> None:
    known = dict.fromkeys([*RUN_STATUSES, *_OUTCOMES, *(r.outcome for r in records)])
    if outcome.upper() not in known:
        raise UsageError(
            f"unknown outcome {outcome!r}: no run ended so and no workflow here ends so",
            hint=f"use one of {', '.join(known)}",
        )


def _jobs_of(st: CliState, records: list[RunRecord]) -> Any:
    """The job store when a running job run is listed (its holds are read there)."""
    if not any(r.status == "RUNNING" and r.workflow.startswith("cfnops.jobs.") for r in records):
        return None
    from cfnops.jobs import JobStore

    return JobStore(st.runtime.database)


def _shown(value: Any) -> str:
    """JSON with secrets redacted; a settings blob recorded with the run (heal's [heal]
    section) is summarised: ``-o json`` carries it whole."""
    value = redacted(value)
    if isinstance(value, dict):
        value = {
            k: f"<{len(v)} settings: -o json shows them>"
            if k in ("Settings", "config") and isinstance(v, dict)
            else v
            for k, v in value.items()
        }
    return json.dumps(value, default=str)


def _render_detail(
    st: CliState, record: RunRecord, steps: list[StepRecord], *, wide: bool = False
) -> None:
    console = st.console
    console.print(f"run      {record.run_id}")
    console.print(f"workflow {record.workflow}")
    console.print(f"status   {record.status}")
    if record.outcome != record.status:
        console.print(f"outcome  {record.outcome}")
    if record.status in ("RUNNING", "QUEUED"):
        console.print(f"runs on  {record.runs_on}", soft_wrap=True, markup=False)
    console.print(f"created  {_when(record, 'created')}  updated {_when(record, 'updated')}")
    if not record.compatible:
        console.print(
            f"version  {record.version} (recorded by another cfnops; this one won't resume it)"
        )
    console.print(f"input    {_shown(record.input)}", soft_wrap=True, markup=False)
    if record.error:
        console.print(f"error    {record.error}", soft_wrap=True, markup=False)
    elif record.status == "SUCCEEDED":
        console.print(f"output   {_shown(record.output)}", soft_wrap=True, markup=False)
    _render_gate(st, record, steps)
    table = Table("#", "STEP", "STARTED (UTC)", "ENDED (UTC)", "MS", "RESULT")
    for s in steps:
        ms = f"{s.duration_ms:.0f}" if s.duration_ms is not None else "-"
        table.add_row(
            str(s.index),
            s.name,
            _when(s, "started"),
            _when(s, "ended"),
            ms,
            s.summary(10_000 if wide else 60),
        )
    console.print(table)


def _render_gate(st: CliState, record: RunRecord, steps: list[StepRecord]) -> None:
    """A heal run's safety-gate decision with every reason (it decides whether to hold)."""
    from cfnops.heal import HEAL_WORKFLOW, gate_decision

    if record.workflow != HEAL_WORKFLOW:
        return
    gate = gate_decision(steps)
    if gate is None:
        return
    reasons = "; ".join(str(r) for r in gate.get("reasons") or []) or "nothing to hold for"
    st.console.print(f"gate     {gate.get('decision')}: {reasons}", soft_wrap=True, markup=False)


@runs_app.command("show")
def show(
    ctx: typer.Context,
    run_id: Annotated[str, typer.Argument(help="The run id.")],
    wide: Annotated[bool, typer.Option("--wide", help="Show step results in full.")] = False,
) -> None:
    """Status, input, output or error, and every step with its timing and result."""
    st = state(ctx)
    with RunStore(st.runtime.database) as store:
        record = store.get(run_id)
        steps = store.steps(run_id)
    # in the order they started (a callback's timeout starts before its answer arrives)
    steps.sort(key=lambda s: (s.started.timestamp() if s.started else float("inf"), s.index))
    if st.output_format == "json":
        data: dict[str, Any] = redacted(record.to_json())
        data["steps"] = [
            {
                "index": s.index,
                "name": s.name,
                "kind": s.kind,
                "started": s.started.isoformat() if s.started else None,
                "ended": s.ended.isoformat() if s.ended else None,
                "durationMs": s.duration_ms,
                "result": redacted(s.result),
                "error": s.error,
            }
            for s in steps
        ]
        st.emit_json(data)
        return
    _render_detail(st, record, steps, wide=wide)


@runs_app.command("history")
def history(
    ctx: typer.Context,
    run: Annotated[str, typer.Argument(help="The run id (or a durable execution's ARN).")],
) -> None:
    """The run's execution history, in GetDurableExecutionHistory's shape and order."""
    from cfnops.durable import run_history

    st = state(ctx)
    events = [_iso_times(e) for e in run_history(st.runtime.database, run)]
    if st.output_format == "json":
        st.emit_json({"run": run, "events": events})
        return
    table = Table("ID", "TIME (UTC)", "EVENT", "SUBTYPE", "NAME", "OPERATION", "DETAILS")
    for e in events:
        details = e.get(f"{e['EventType']}Details") or {}
        table.add_row(
            str(e["EventId"]),
            str(e.get("EventTimestamp") or "-").replace("T", " ")[:23],
            e["EventType"],
            e.get("SubType") or "-",
            e.get("Name") or "-",
            (e.get("Id") or "-")[:12],
            json.dumps(details, default=str)[:80] if details else "-",
        )
    st.console.print(table if events else "no events")


def _iso_times(value: Any) -> Any:
    """Epoch milliseconds in ``*Timestamp`` fields → ISO 8601 (UTC)."""
    from datetime import UTC, datetime

    if isinstance(value, dict):
        return {
            k: datetime.fromtimestamp(v / 1000, UTC).isoformat()
            if k.endswith("Timestamp") and isinstance(v, int)
            else _iso_times(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_iso_times(v) for v in value]
    return value


def _parse_input(text: str) -> Any:
    if text.startswith("@"):
        try:
            with open(text[1:], encoding="utf-8") as fh:
                text = fh.read()
        except OSError as exc:
            raise UsageError(f"cannot read input file {text[1:]!r}: {exc.strerror}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        if Path(text).is_file():
            raise UsageError(
                f"--input {text!r} is a file, not JSON", hint=f"pass it as --input @{text}"
            ) from exc
        if _a_file_name(text):
            raise UsageError(
                f"--input {text!r}: no such file (and not JSON either)",
                hint="check the file's path (pass a file as @FILE), or pass JSON inline",
            ) from exc
        raise UsageError(
            f"--input is not JSON: line {exc.lineno} column {exc.colno}: {exc.msg}",
            hint="pass a JSON document or @FILE",
        ) from exc


def _a_file_name(text: str) -> bool:
    """``sample.json``, ``./in.json``, ``data/x``: a file's name, never JSON."""
    return not any(ch.isspace() or ch in "{}[]\"'," for ch in text) and (
        "/" in text or Path(text).suffix.lower() in (".json", ".yaml", ".yml")
    )


@runs_app.command("start")
def start(
    ctx: typer.Context,
    workflow: Annotated[str, typer.Argument(help="Registered workflow name.")],
    input_: Annotated[str, typer.Option("--input", help="JSON input, or @FILE.")] = "{}",
    run_id: Annotated[
        str | None, typer.Option(help="Run id; starting an existing id returns that run.")
    ] = None,
    wait: Annotated[bool, typer.Option(help="Execute here and wait for the end.")] = True,
) -> None:
    """Start a registered workflow (idempotent by run id) and, by default, wait for it."""
    st = state(ctx)
    event = _parse_input(input_)
    engine = st.engine()
    try:
        handle = _start(engine, workflow, event, run_id, wait)
        output = None
        if wait:
            with watch_run(st.runtime.database, handle.run_id):
                output = engine.result(handle.run_id)
    finally:
        engine.shutdown()
    if st.output_format == "json":
        st.emit_json({"runId": handle.run_id, "existed": handle.existed, "output": output})
    elif wait:
        st.console.print(f"{handle.run_id}: SUCCEEDED {json.dumps(output)}", soft_wrap=True)
    else:
        st.console.print(f"{handle.run_id}: queued for a worker")


def _start(engine: Engine, workflow: str, event: Any, run_id: str | None, wait: bool) -> RunHandle:
    from cfnops.durable import UnknownWorkflow

    try:
        return engine.start(workflow, event, run_id=run_id, queue=None if wait else DEFAULT_QUEUE)
    except UnknownWorkflow as exc:  # refused before any run was recorded: nothing to resume
        raise UsageError(
            exc.message,
            hint="import the module that defines it (worker.workflow_modules, "
            "CFNOPS_WORKER__WORKFLOW_MODULES), then start it again; no run was created",
        ) from exc


@runs_app.command("cancel")
def cancel(ctx: typer.Context, run_id: Annotated[str, typer.Argument(help="The run id.")]) -> None:
    """Cancel a run; it stops at its next step boundary and no process resumes it.

    A run that nothing executes (its executor is gone, or it waits for a worker with a
    workflow or module none has) is cancelled all the same.
    """
    st = state(ctx)
    with RunStore(st.runtime.database) as store:
        before = store.get(run_id)
        idle = store.idle_reason(before, st.settings.worker.lease_seconds)
        record = store.cancel(run_id)
    _audit(st, "cancel", run_id)
    if before.status not in ("RUNNING", "QUEUED"):
        detail = f"it had already ended {before.status}: nothing to cancel"
    elif idle is None:
        detail = f"its executor {before.executor} stops it at its next step"
    else:
        detail = f"{idle}; no process will start or resume it"
    if st.output_format == "json":
        st.emit_json({**record.to_json(), "previousStatus": before.status, "detail": detail})
    else:
        st.console.print(
            f"{record.run_id}: {record.status} ({detail})", markup=False, soft_wrap=True
        )


@runs_app.command("resume")
def resume(
    ctx: typer.Context,
    run_id: Annotated[str, typer.Argument(help="The run id.")],
    wait: Annotated[bool, typer.Option(help="Execute it here and wait for the end.")] = True,
) -> None:
    """Resume a cancelled or failed run from its last finished step."""
    st = state(ctx)
    if not wait:
        with RunStore(st.runtime.database) as store:
            store.resume(run_id, queue=DEFAULT_QUEUE)
        _audit(st, "resume", run_id)
        st.console.print(f"{run_id}: queued for a worker")
        return
    engine = st.engine()
    try:
        with RunStore(st.runtime.database) as store:
            store.resume(run_id, queue=engine.listen_own_queue())  # executed here, nowhere else
        _audit(st, "resume", run_id)
        output = engine.result(run_id)
    finally:
        engine.shutdown()
    if st.output_format == "json":
        st.emit_json({"runId": run_id, "status": "SUCCEEDED", "output": output})
    else:
        st.console.print(f"{run_id}: SUCCEEDED {json.dumps(output)}", soft_wrap=True)


def register(app: typer.Typer) -> None:
    from cfnops.cli.runs_batch import batch

    runs_app.command("batch")(batch)
    app.add_typer(runs_app, name="runs")
