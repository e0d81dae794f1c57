"""``cfnops job schedule …`` and ``cfnops job trigger …``: when job-nets start by themselves."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from cfnops.cli._state import CliState, state
from cfnops.jobs import JobService, TriggerService
from cfnops.jobs._definition import load_definition, parse_input

schedule_app = typer.Typer(
    help="Schedules (EventBridge cron/rate), fired by 'cfnops worker'.", no_args_is_help=True
)
trigger_app = typer.Typer(
    help="Event triggers (EventBridge patterns), fired by 'cfnops worker'.", no_args_is_help=True
)


def _triggers(st: CliState) -> TriggerService:
    st.register_workflows()
    return TriggerService(JobService(st.settings, st.clients))


def _show(st: CliState, rows: list[dict[str, Any]]) -> None:
    if st.output_format == "json":
        st.emit_json(rows)
        return
    table = Table("NAME", "KIND", "STATE MACHINE", "EXPRESSION", "TIME ZONE", "NEXT (UTC)")
    for r in rows:
        table.add_row(
            r["name"],
            r["kind"],
            r["stateMachine"],
            r["expression"],
            r["timezone"],
            r["nextFire"] or "-",
        )
    st.console.print(table if rows else "none")


@schedule_app.command("add")
def schedule_add(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Schedule name.")],
    definition: Annotated[Path, typer.Argument(help="Definition file.")],
    cron: Annotated[str, typer.Option(help="cron(m h dom mon dow year) or rate(N unit).")],
    timezone: Annotated[
        str | None, typer.Option(help="IANA time zone (default: the calendar's, else UTC).")
    ] = None,
    input_: Annotated[str | None, typer.Option("--input", help="JSON, or @FILE.")] = None,
    notify: Annotated[bool, typer.Option(help="Notify when each run ends.")] = False,
    calendar: Annotated[
        Path | None, typer.Option(help="Business calendar (TOML) deciding open days.")
    ] = None,
    day_rule: Annotated[
        str | None,
        typer.Option(help="open | next-open | previous-open | nth-open:N | last-open."),
    ] = None,
) -> None:
    """Add (or replace) a schedule."""
    from cfnops.jobs._calendar import load_calendar

    st = state(ctx)
    cal = load_calendar(calendar) if calendar else None
    row = _triggers(st).add_schedule(
        name,
        str(definition),
        load_definition(definition),
        cron,
        timezone or (cal.timezone if cal and cal.timezone else "UTC"),
        parse_input(input_),
        notify=notify,
        calendar=cal,
        day_rule=day_rule,
    )
    _show(st, [row])


@schedule_app.command("list")
def schedule_list(ctx: typer.Context) -> None:
    """List schedules with their next fire time."""
    st = state(ctx)
    _show(st, _triggers(st).entries("schedule"))


@schedule_app.command("remove")
def schedule_remove(ctx: typer.Context, name: Annotated[str, typer.Argument()]) -> None:
    """Remove a schedule."""
    st = state(ctx)
    removed = _triggers(st).remove(name)
    if st.output_format == "json":
        st.emit_json({"name": name, "removed": removed})
    else:
        st.console.print(f"{name}: {'removed' if removed else 'not found'}")


@trigger_app.command("add")
def trigger_add(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Trigger name.")],
    definition: Annotated[Path, typer.Argument(help="Definition file.")],
    pattern: Annotated[str, typer.Option(help="EventBridge event pattern (JSON or @FILE).")],
    bus: Annotated[str, typer.Option(help="Event bus name.")] = "default",
    notify: Annotated[bool, typer.Option(help="Notify when each run ends.")] = False,
) -> None:
    """Start the job-net for every event matching the pattern (the event is the input)."""
    st = state(ctx)
    row = _triggers(st).add_event_trigger(
        name,
        str(definition),
        load_definition(definition),
        parse_input(pattern),
        bus=bus,
        notify=notify,
    )
    _show(st, [row])


@trigger_app.command("list")
def trigger_list(ctx: typer.Context) -> None:
    """List event triggers."""
    st = state(ctx)
    _show(st, _triggers(st).entries("event"))


@trigger_app.command("remove")
def trigger_remove(ctx: typer.Context, name: Annotated[str, typer.Argument()]) -> None:
    """Remove an event trigger (its rule and queue too)."""
    schedule_remove(ctx, name)


def register_triggers(job_app: typer.Typer) -> None:
    from cfnops.cli.job_manager import register_manager

    register_manager(job_app)
    job_app.add_typer(schedule_app, name="schedule")
    job_app.add_typer(trigger_app, name="trigger")
