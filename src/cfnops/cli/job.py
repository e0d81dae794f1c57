"""``cfnops job``: run, watch, inspect, stop, redrive, schedule and deploy job-nets."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cfnops.asl import HistoryEvent
from cfnops.cli._job_watch import current_engine, finish, progress, render_result, state_tree
from cfnops.cli._state import CliState, state
from cfnops.cli.job_control import show_lineage
from cfnops.errors import ExitCode, UsageError
from cfnops.jobs import (
    derive_status,
    import_modules,
    load_definition,
    machine_name,
    parse_input,
    state_views,
)

if TYPE_CHECKING:  # imported where used: `job validate` and `job check` start without DBOS,
    # and a `job run --output json` without Rich's tables and live views

    from cfnops.jobs import JobService

job_app = typer.Typer(
    help="Job-nets (Amazon States Language) on the durable engine.", no_args_is_help=True
)

Def = Annotated[Path, typer.Argument(help="Definition file (JSON or YAML).")]
RunArg = Annotated[str, typer.Argument(help="Run id (execution name).")]


def _audit(st: CliState, action: str, run_id: str) -> None:
    from cfnops.durable import AuditLog

    with AuditLog(st.runtime.database) as audit:
        audit.record(actor=AuditLog.default_actor(), action=action, target=run_id)


def _service(st: CliState) -> JobService:
    from cfnops.jobs import JobService

    st.register_workflows()
    return JobService(st.runtime)


@job_app.command("run")
def run(
    ctx: typer.Context,
    definition: Def,
    input_: Annotated[str | None, typer.Option("--input", help="JSON, or @FILE.")] = None,
    name: Annotated[str | None, typer.Option(help="Execution name (the run id).")] = None,
    notify: Annotated[bool, typer.Option(help="Notify (cfnops.notify) when it ends.")] = False,
    imports: Annotated[
        list[str] | None,
        typer.Option("--import", help="Import a module first (it may register local functions)."),
    ] = None,
    reuse: Annotated[
        bool,
        typer.Option(
            "--reuse",
            help="With --name: attach to the existing run of that name even if its definition "
            "or input differ (without it, that is refused).",
        ),
    ] = False,
) -> None:
    """Run a job-net to its end, showing a live tree of its states.

    --name makes the run idempotent: the same name, definition and input attach to the
    run already made; a different definition or input under that name is refused."""
    st = state(ctx)
    import_modules(imports or [])
    defn, value = load_definition(definition), parse_input(input_)
    from cfnops.jobs import run_job

    st.register_workflows()  # the engine recovers any run a dead process left
    with progress(st, defn) as on_progress:
        result = run_job(
            st.runtime,
            defn,
            value,
            machine_name=machine_name(definition),
            name=name,
            reuse=reuse,
            options={"notify": notify},
            modules=imports or (),
            on_progress=on_progress,
        )
    render_result(st, result)


@job_app.command("validate")
def validate_cmd(
    ctx: typer.Context,
    definition: Def,
    strict: Annotated[
        bool, typer.Option(help="Also reject what would not run the same on AWS.")
    ] = False,
) -> None:
    """Check a definition as Step Functions does (exit 2 when invalid)."""
    from cfnops.asl import validate

    st = state(ctx)
    defn = load_definition(definition)
    if strict:  # the deploy checks know the local functions, hence the job runner
        from cfnops.jobs import strict_problems

        problems = strict_problems(defn)
    else:
        problems = [str(f) for f in validate(defn)]
    if st.output_format == "json":
        st.emit_json({"valid": not problems, "problems": problems})
    else:
        for problem in problems:
            st.console.print(f"[red]✘[/] {problem}")
        st.console.print(f"{definition}: {'valid' if not problems else 'INVALID'}")
    if problems:
        raise typer.Exit(int(ExitCode.USAGE))


@job_app.command("check")
def check_cmd(
    ctx: typer.Context,
    definition: Def,
    input_: Annotated[str, typer.Option("--input", help="Sample input: JSON, or @FILE.")] = "{}",
    task_results: Annotated[
        Path | None,
        typer.Option(help="JSON/YAML file: state name → sample result (see docs/jobs.md)."),
    ] = None,
) -> None:
    """Walk every path with sample data: unresolvable references, never-matching branches.

    Also each state's input and output shape. Exit 2 on an error."""
    from cfnops.cli._job_check import render_check
    from cfnops.jobs import check_dataflow, read_task_results

    st = state(ctx)
    defn, value = load_definition(definition), parse_input(input_)
    results = read_task_results(task_results) if task_results else None
    report = check_dataflow(defn, value, results)
    if st.output_format == "json":
        st.emit_json(report.to_json())
    else:
        render_check(st.console, report, str(definition))
    if not report.ok:
        raise typer.Exit(int(ExitCode.USAGE))


# Step Functions' execution statuses (ListExecutions statusFilter), PENDING_REDRIVE aside.
_JOB_STATUSES = ("RUNNING", "SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED")


@job_app.command("list")
def list_cmd(
    ctx: typer.Context,
    status: Annotated[
        str | None, typer.Option(help=f"Only runs in this status: {', '.join(_JOB_STATUSES)}.")
    ] = None,
    limit: Annotated[int, typer.Option(min=1)] = 50,
) -> None:
    """List job runs, newest first."""
    from cfnops.cli._table import Table

    st = state(ctx)
    store = _service(st).store
    if status is not None and status.upper() not in _JOB_STATUSES:
        raise UsageError(
            f"--status {status!r} is not a job run status",
            hint=f"use one of {', '.join(_JOB_STATUSES)}",
        )
    rows = store.list_runs(status=status.upper() if status else None, limit=limit)
    origins = store.lineage_map([r.run_id for r in rows])
    # Held by an operator: RUNNING to the engine, but no new state starts until released.
    shown = {r.run_id: "HELD" if r.status == "RUNNING" and store.held(r.run_id) else r.status
             for r in rows}  # fmt: skip
    if st.output_format == "json":
        st.emit_json(
            [
                {**r.to_json(), "status": shown[r.run_id], "rerunOf": origins.get(r.run_id)}
                for r in rows
            ]
        )
        return
    table = Table(
        "RUN ID", "STATE MACHINE", "STATUS", "STARTED (UTC)", "SOURCE", "REDRIVES", "RERUN OF"
    )
    for r in rows:
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(r.started_at))
        table.add_row(
            r.run_id, r.machine_name, shown[r.run_id], started, r.source, str(r.redrive_count),
            origins.get(r.run_id, "-"),
        )  # fmt: skip
    st.console.print(table if rows else "no job runs")


@job_app.command("show")
def show(ctx: typer.Context, run_id: RunArg) -> None:
    """Status, current states, and the input and output of every state."""
    from cfnops.cli._table import Table

    st = state(ctx)
    jobs = _service(st)
    row = jobs.store.get_run(run_id)
    # The console's Job run page draws the same derivation (cfnops.jobs.derive_status).
    derived = derive_status(jobs.store.history(run_id), row.definition)
    views = derived.overall
    current = [v.name for v in views.values() if v.status == "RUNNING"]
    lineage = jobs.lineage(run_id)
    if st.output_format == "json":
        st.emit_json(
            {
                **row.to_json(),
                "currentStates": current,
                "states": [v.to_json() for v in views.values()],
                "iterations": {
                    name: [i.to_json() for i in runs] for name, runs in derived.iterations.items()
                },
                "lineage": lineage,
            }
        )
        return
    st.console.print(state_tree(row.definition, views, f"[bold]{run_id}[/] {row.status}"))
    if current:
        st.console.print(f"current: {', '.join(current)}")
    show_lineage(st, lineage)
    if row.error:
        st.console.print(f"[red]{row.error}[/]: {row.cause}")
    table = Table("STATE", "STATUS", "INPUT", "OUTPUT", show_lines=True)
    for v in views.values():
        table.add_row(
            v.name,
            v.status,
            _short(v.input),
            _short(v.output if v.error is None else f"{v.error}: {v.cause}"),
        )
    st.console.print(table)


def _short(value: Any, width: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


@job_app.command("history")
def history(ctx: typer.Context, run_id: RunArg) -> None:
    """Every history event, in Step Functions' vocabulary."""
    from cfnops.cli._table import Table

    st = state(ctx)
    service = _service(st)
    service.store.get_run(run_id)  # an unknown run is a usage error (exit 2), not empty history
    events = service.store.history(run_id)
    if st.output_format == "json":  # GetExecutionHistory's shape: details under their key
        st.emit_json([_api_event(e) for e in events])
        return
    table = Table("ID", "PREV", "TYPE", "TIME (UTC)", "DETAILS")
    for e in events:
        when = time.strftime("%H:%M:%S", time.gmtime(e["timestamp"]))
        table.add_row(
            str(e["id"]), str(e["previousEventId"]), e["type"], when, _short(e["details"], 120)
        )
    st.console.print(table)


def _api_event(event: dict[str, Any]) -> dict[str, Any]:
    api = HistoryEvent(
        event["id"],
        event["previousEventId"],
        event["type"],
        datetime.fromtimestamp(event["timestamp"], UTC),
        event["details"],
    ).to_api()
    api["timestamp"] = api["timestamp"].isoformat()
    return api


@job_app.command("graph")
def graph(
    ctx: typer.Context,
    target: Annotated[str, typer.Argument(help="Definition file or run id.")],
    fmt: Annotated[str | None, typer.Option("--output", "-o", help="dot or mermaid.")] = None,
) -> None:
    """Draw a job-net (coloured by status for a run)."""
    st = state(ctx)
    fmt = fmt or ("json" if st.output_format == "json" else "mermaid")
    if Path(target).exists():
        defn, statuses = load_definition(target), None
    else:
        jobs = _service(st)
        row = jobs.store.get_run(target)
        defn = row.definition
        statuses = {k: v.status for k, v in state_views(jobs.store.history(target)).items()}
    if fmt not in ("dot", "mermaid", "json"):
        raise UsageError(f"unknown graph format {fmt!r}", hint="use dot or mermaid")
    if fmt == "json":
        from cfnops.jobs import iter_states

        st.emit_json({"states": [n for n, _ in iter_states(defn)], "statuses": statuses})
        return
    from cfnops.cli._job_graph import to_dot, to_mermaid

    typer.echo(to_dot(defn, statuses) if fmt == "dot" else to_mermaid(defn, statuses), nl=False)


@job_app.command("stop")
def stop(ctx: typer.Context, run_id: RunArg) -> None:
    """Stop a running job run (it ends ABORTED)."""
    st = state(ctx)
    jobs = _service(st)
    ended = jobs.store.get_run(run_id)
    if ended.status != "RUNNING":  # nothing to stop: no request, no audit entry
        if st.output_format == "json":
            st.emit_json({**ended.to_json(), "stopped": False})
        else:
            why = f": {ended.cause}" if ended.cause else ""
            st.console.print(
                f"{run_id}: already ended {ended.status}{why}; nothing to stop",
                markup=False, soft_wrap=True,
            )  # fmt: skip
        return
    row = jobs.stop(run_id)
    _audit(st, "stop", run_id)
    if st.output_format == "json":
        st.emit_json({**row.to_json(), "stopped": True})
    elif row.status == "RUNNING":
        st.console.print(f"{run_id}: stop requested (RUNNING; it ends ABORTED at its next step)")
    else:  # ended here: nothing was executing it any more
        why = f" ({row.cause})" if row.cause else ""
        st.console.print(f"{run_id}: {row.status}{why}", markup=False, soft_wrap=True)


@job_app.command("redrive")
def redrive(
    ctx: typer.Context,
    run_id: RunArg,
    wait: Annotated[bool, typer.Option(help="Wait for the run to end.")] = True,
    imports: Annotated[
        list[str] | None,
        typer.Option(
            "--import",
            help="Import this module instead of those the run was started with (repeatable).",
        ),
    ] = None,
) -> None:
    """Rerun a failed run from the failed state; completed states keep their outputs.

    The modules the run was started with (``job run --import``) are imported again.
    """
    st = state(ctx)
    jobs, before = _service(st), current_engine()
    import_modules(imports if imports is not None else jobs.store.get_run(run_id).modules)
    jobs.redrive(run_id, queue=None if wait else "cfnops", modules=imports)
    _audit(st, "redrive", run_id)
    if not wait:
        st.console.print(f"{run_id}: redriven")
        return
    finish(st, jobs.wait(run_id), before)


@job_app.command("send-task-success")
def send_task_success(
    ctx: typer.Context,
    token: Annotated[str, typer.Argument(help="The task token ($$.Task.Token).")],
    output: Annotated[str, typer.Option(help="JSON output, or @FILE.")] = "{}",
) -> None:
    """Complete a .waitForTaskToken task successfully."""
    st = state(ctx)
    run_id = _service(st).send_task_success(token, parse_input(output))
    _answered(st, run_id)


@job_app.command("send-task-failure")
def send_task_failure(
    ctx: typer.Context,
    token: Annotated[str, typer.Argument(help="The task token ($$.Task.Token).")],
    error: Annotated[str | None, typer.Option(help="Error name.")] = None,
    cause: Annotated[str | None, typer.Option(help="Cause text.")] = None,
) -> None:
    """Fail a .waitForTaskToken task."""
    st = state(ctx)
    _answered(st, _service(st).send_task_failure(token, error, cause))


def _answered(st: CliState, run_id: str) -> None:
    if st.output_format == "json":
        st.emit_json({"runId": run_id, "answered": True})
    else:
        st.console.print(f"answered the task of run {run_id}")


@job_app.command("deploy")
def deploy_cmd(
    ctx: typer.Context,
    definition: Def,
    name: Annotated[str, typer.Option(help="State machine name.")],
    role_arn: Annotated[str, typer.Option(help="Execution role ARN.")],
) -> None:
    """Create or update the state machine in AWS Step Functions (strict check first)."""
    from cfnops.jobs import deploy, strict_problems
    from cfnops.jobs.errors import StrictValidationFailed

    st = state(ctx)
    defn = load_definition(definition)
    problems = strict_problems(defn)
    if problems:
        raise StrictValidationFailed(problems)
    result = deploy(st.clients, defn, name, role_arn)
    if st.output_format == "json":
        st.emit_json(result)
    else:
        st.console.print(f"{result['action']} {result['stateMachineArn']}")


def register(app: typer.Typer) -> None:
    from cfnops.cli.job_control import register_control
    from cfnops.cli.job_import import register_import
    from cfnops.cli.job_test import register_test
    from cfnops.cli.job_triggers import register_triggers

    register_triggers(job_app)
    register_control(job_app)
    register_import(job_app)
    register_test(job_app)
    app.add_typer(job_app, name="job")
