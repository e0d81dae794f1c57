"""``cfnops job schedule …`` and ``cfnops job trigger …``: when job-nets start by themselves."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cfnops.cli._state import CliState, state
from cfnops.jobs import load_definition, parse_input

if TYPE_CHECKING:  # imported where used: the job group loads this module for every command
    from cfnops.jobs import TriggerService

schedule_app = typer.Typer(
    help="Schedules (EventBridge cron/rate), fired by 'cfnops worker'.", no_args_is_help=True
)
trigger_app = typer.Typer(
    help="Event triggers (EventBridge patterns), fired by 'cfnops worker'.", no_args_is_help=True
)


def _triggers(st: CliState) -> TriggerService:
    from cfnops.jobs import JobService, TriggerService

    st.register_workflows()
    return TriggerService(JobService(st.runtime))


def _show(st: CliState, rows: list[dict[str, Any]]) -> None:
    if st.output_format == "json":
        st.emit_json(rows)
        return
    from cfnops.cli._table import Table  # Rich: not on every job command's path

    table = Table("NAME", "KIND", "STATE MACHINE", "EXPRESSION", "TIME ZONE", "NEXT (UTC)")
    for r in rows:
        table.add_row(
            r["name"],
            r["kind"],
            r["stateMachine"],
            r["expression"] if r["kind"] != "after" else "after " + ", ".join(r["after"]),
            r["timezone"],
            r["nextFire"] or "-",
        )
    st.console.print(table if rows else "none")


@schedule_app.command("add")
def schedule_add(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Schedule name.")],
    definition: Annotated[Path, typer.Argument(help="Definition file.")],
    cron: Annotated[
        str | None, typer.Option(help="cron(m h dom mon dow year) or rate(N unit).")
    ] = None,
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
    after: Annotated[
        list[str] | None,
        typer.Option(help="Instead of --cron: start when this job-net succeeds (repeat: all)."),
    ] = None,
    wait_timeout: Annotated[
        str | None,
        typer.Option(
            help="With --after: give up a set still incomplete this long "
            "after its first success (90s, 30m, 2h)."
        ),
    ] = None,
    exclusive: Annotated[
        str, typer.Option(help="While a run of this job-net is RUNNING: run, skip or queue.")
    ] = "run",
    expected: Annotated[
        str | None, typer.Option(help="Expected duration (30m, 2h) or auto: alert when longer.")
    ] = None,
    deadline: Annotated[
        str | None, typer.Option(help="HH:MM (schedule's time zone): alert if not ended by then.")
    ] = None,
    start_grace: Annotated[
        float, typer.Option(help="Seconds a run may start after its time before it is late.")
    ] = 60.0,
    imports: Annotated[
        list[str] | None,
        typer.Option(
            "--import",
            help="A module with the job-net's local functions (repeatable): each run imports it.",
        ),
    ] = None,
) -> None:
    """Add (or replace) a schedule: a cron/rate expression, or --after other job-nets."""
    from cfnops.jobs import load_calendar

    st = state(ctx)
    opts = _schedule_options(
        cron, after, calendar, day_rule, imports, exclusive, expected, deadline, start_grace
    )
    cal = load_calendar(calendar) if calendar else None
    tz = timezone or (cal.timezone if cal and cal.timezone else "UTC")
    defn, value = load_definition(definition), parse_input(input_)
    triggers = _triggers(st)
    if after:
        opts.update(_after_options(wait_timeout, notify, tz))
        _add_after(st, triggers, name, str(definition), defn, after, value, opts)
        return
    row = triggers.add_schedule(
        name,
        str(definition),
        defn,
        cron or "",
        tz,
        value,
        notify=notify,
        calendar=cal,
        day_rule=day_rule,
        options=opts,
    )
    _show(st, [row])


def _schedule_options(
    cron: str | None,
    after: list[str] | None,
    calendar: Path | None,
    day_rule: str | None,
    imports: list[str] | None,
    exclusive: str,
    expected: str | None,
    deadline: str | None,
    start_grace: float,
) -> dict[str, Any]:
    """The options of a schedule, checked: exactly one of --cron and --after, what goes
    with each, the monitoring settings and the modules each run imports."""
    from cfnops.errors import UsageError
    from cfnops.jobs import import_modules, monitor_options

    if (cron is None) == (not after):
        raise UsageError("give exactly one of --cron and --after", hint="see docs/jobs.md")
    if after and (calendar or day_rule):
        raise UsageError("--calendar and --day-rule go with --cron, not --after")
    opts = monitor_options(
        exclusive=exclusive, expected=expected, deadline=deadline, start_grace=start_grace
    )
    if imports:
        import_modules(imports)  # a wrong name is refused now, not at 02:00 in a worker
        opts["modules"] = list(imports)
    return opts


def _after_options(wait_timeout: str | None, notify: bool, tz: str) -> dict[str, Any]:
    from cfnops.jobs import duration_seconds

    opts: dict[str, Any] = {}
    if wait_timeout:
        opts["waitTimeout"] = duration_seconds(wait_timeout, "--wait-timeout")
    opts.update(notify=notify, timezone=tz)
    return opts


def _add_after(
    st: CliState,
    triggers: TriggerService,
    name: str,
    definition: str,
    defn: Any,
    after: list[str],
    value: Any,
    opts: dict[str, Any],
) -> None:
    """A schedule that starts when other job-nets succeed: a dependency."""
    from cfnops.jobs import add_dependency

    row = add_dependency(triggers.jobs, name, definition, defn, after, value, opts)
    _show(st, [triggers._public(row)])


@schedule_app.command("list")
def schedule_list(ctx: typer.Context) -> None:
    """List schedules (cron/rate and --after) with their next fire time."""
    st = state(ctx)
    triggers = _triggers(st)
    _show(st, triggers.entries("schedule") + triggers.entries("after"))


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
