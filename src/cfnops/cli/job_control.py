"""``cfnops job rerun|hold|release|skip|force``: what a job manager lets an operator do.

Every action is audited (``cfnops audit list``) and shown in the run's history.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cfnops.cli._state import CliState, state
from cfnops.errors import UsageError
from cfnops.jobs import load_definition, parse_input

RunArg = Annotated[str, typer.Argument(help="Run id (execution name).")]
StateArg = Annotated[str, typer.Argument(help="State name.")]
Reason = Annotated[str | None, typer.Option(help="Why (kept in the audit log and history).")]
OutputJson = Annotated[
    str | None, typer.Option("--output-json", help="The state's output: JSON, or @FILE.")
]


if TYPE_CHECKING:  # imported where used: every `cfnops job …` command loads this module
    from cfnops.jobs import JobService


def _service(st: CliState) -> JobService:
    from cfnops.jobs import JobService

    st.register_workflows()  # a started engine recovers any run a dead process left
    return JobService(st.runtime)


def _actor() -> str:
    from cfnops.durable import AuditLog

    return AuditLog.default_actor()


def show_lineage(st: CliState, lineage: dict[str, Any]) -> None:
    """Text lines for a run's origin, reruns and operator actions (``job show``)."""
    origin = lineage.get("rerunOf")
    if origin:
        where = f" {origin['state']}" if origin.get("state") else ""
        st.console.print(f"rerun of {origin['originRunId']} ({origin['mode']}{where})")
    for rerun in lineage.get("reruns", []):
        st.console.print(f"rerun: {rerun['runId']} ({rerun['mode']})")
    if lineage.get("held"):
        st.console.print("[yellow]HELD[/]: no new state starts until 'cfnops job release'")
    for act in lineage.get("operatorActions", []):
        on = f" {act['state']}" if act.get("state") else ""
        why = f": {act['reason']}" if act.get("reason") else ""
        st.console.print(f"operator {act['action']}{on} by {act['actor']}{why}")


def rerun(
    ctx: typer.Context,
    run_id: RunArg,
    from_state: Annotated[
        str | None, typer.Option("--from", help="Rerun from this state (earlier outputs kept).")
    ] = None,
    only: Annotated[
        str | None, typer.Option(help="Run this state alone with its recorded input.")
    ] = None,
    after_failed: Annotated[
        bool, typer.Option("--after-failed", help="Pass the failed state with --output-json.")
    ] = False,
    from_start: Annotated[bool, typer.Option("--from-start", help="The whole job-net.")] = False,
    output_json: OutputJson = None,
    definition: Annotated[
        Path | None, typer.Option(help="An edited definition to rerun with.")
    ] = None,
    input_: Annotated[
        str | None,
        typer.Option("--input", help="JSON or @FILE: the starting state's (or run's) input."),
    ] = None,
    map_iterations: Annotated[
        str | None,
        typer.Option(help="For a Map/Parallel state: 'failed', or one iteration's index."),
    ] = None,
    name: Annotated[str | None, typer.Option(help="The new run's id.")] = None,
    reason: Reason = None,
    wait: Annotated[bool, typer.Option(help="Wait for the new run to end.")] = True,
) -> None:
    """Rerun a finished run as a new, linked run (--from, --only, --after-failed, --from-start).

    Exactly one mode; --definition reruns with an edited definition.
    """
    from cfnops.cli._job_watch import finish, watch

    st = state(ctx)
    modes = {"from": from_state, "only": only, "after-failed": after_failed or None,
             "from-start": from_start or None}  # fmt: skip
    chosen = [m for m, v in modes.items() if v]
    if len(chosen) != 1:
        raise UsageError(
            "job rerun needs exactly one of --from STATE, --only STATE, --after-failed, "
            f"--from-start (got {', '.join('--' + m for m in chosen) or 'none'})",
            hint="e.g. cfnops job rerun RUN --from StopInstances",
        )
    mode = chosen[0]
    if output_json is not None and mode != "after-failed":
        raise UsageError("--output-json goes with --after-failed", hint="drop --output-json")
    kw: dict[str, Any] = {}
    if input_ is not None:
        kw["input"] = parse_input(input_)
    if output_json is not None:
        kw["output"] = parse_input(output_json)
    if definition is not None:
        kw["definition"] = load_definition(definition)
        kw["definition_source"] = f"the definition {definition}"
    from cfnops.durable import Engine
    from cfnops.jobs import RerunRequest

    request = RerunRequest(mode, state=from_state or only, iterations=map_iterations, **kw)
    jobs, before = _service(st), Engine.current()
    new_id = jobs.rerun(
        run_id, request, actor=_actor(), reason=reason, name=name,
        queue=None if wait else "cfnops",
    )  # fmt: skip
    if not wait:
        if st.output_format == "json":
            st.emit_json({"runId": new_id, "rerunOf": run_id, "status": "RUNNING"})
        else:
            st.console.print(f"{new_id}: rerun of {run_id} queued")
        return
    result = watch(st, jobs, new_id, jobs.store.get_run(new_id).definition)
    finish(st, result, before)


def _done(st: CliState, run_id: str, action: str, text: str, **extra: Any) -> None:
    if st.output_format == "json":
        st.emit_json({"runId": run_id, "action": action, **extra})
    else:
        st.console.print(f"{run_id}: {text}")


def hold(ctx: typer.Context, run_id: RunArg, reason: Reason = None) -> None:
    """Hold a running run: no new state starts (running states finish)."""
    st = state(ctx)
    _service(st).hold(run_id, actor=_actor(), reason=reason)
    _done(st, run_id, "hold", "held (no new state starts until 'cfnops job release')")


def release(ctx: typer.Context, run_id: RunArg, reason: Reason = None) -> None:
    """Release a held run: it goes on."""
    st = state(ctx)
    _service(st).release(run_id, actor=_actor(), reason=reason)
    _done(st, run_id, "release", "released")


def skip(
    ctx: typer.Context, run_id: RunArg, state_name: StateArg, output_json: OutputJson = None,
    reason: Reason = None,
) -> None:  # fmt: skip
    """Pass a state not yet started with the given output when the run reaches it."""
    st = state(ctx)
    output = parse_input(output_json)
    _service(st).skip(run_id, state_name, output, actor=_actor(), reason=reason)
    _done(st, run_id, "skip", f"{state_name} will be skipped", state=state_name)


def force(
    ctx: typer.Context,
    run_id: RunArg,
    state_name: StateArg,
    ok: Annotated[bool, typer.Option("--ok", help="End the Task successfully.")] = False,
    ng: Annotated[bool, typer.Option("--ng", help="End the Task with an error.")] = False,
    output_json: OutputJson = None,
    error: Annotated[str | None, typer.Option(help="Error name (with --ng).")] = None,
    cause: Annotated[str | None, typer.Option(help="Cause text (with --ng).")] = None,
    reason: Reason = None,
) -> None:
    """End a running Task, or the Task a run failed in, as given (a failed run continues).

    Like a job manager's change of status: --ok --output-json J, or --ng --error E.
    """
    st = state(ctx)
    if ok == ng:
        raise UsageError(
            "job force needs exactly one of --ok and --ng", hint="e.g. --ok --output-json '{}'"
        )
    if ok and (error or cause):
        raise UsageError("--error/--cause go with --ng", hint="drop them, or use --ng")
    if ng and (error is None or output_json is not None):
        raise UsageError("--ng needs --error (and optionally --cause), not --output-json",
                         hint="e.g. --ng --error Operator.Failed --cause 'disk full'")  # fmt: skip
    output = parse_input(output_json) if ok else None
    _service(st).force(
        run_id, state_name, ok=ok, output=output, error=error, cause=cause,
        actor=_actor(), reason=reason,
    )  # fmt: skip
    _done(st, run_id, "force", f"{state_name} forced {'ok' if ok else 'ng'}", state=state_name)


def register_control(app: typer.Typer) -> None:
    app.command("rerun")(rerun)
    app.command("hold")(hold)
    app.command("release")(release)
    app.command("skip")(skip)
    app.command("force")(force)
