"""``cfnops job pool …`` (resource pools), ``job alerts`` (delay monitoring) and
``job calendar …`` (business calendars)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cfnops.cli._state import CliState, state

if TYPE_CHECKING:  # imported where used: every `cfnops job …` command loads this module
    from cfnops.jobs import Pool, PoolStore

pool_app = typer.Typer(
    help="Resource pools: a Task whose Comment has cfnops:pool=NAME takes a slot while it runs.",
    no_args_is_help=True,
)


def _pools(st: CliState) -> PoolStore:
    from cfnops.jobs import JobStore, PoolStore

    return PoolStore(JobStore(st.runtime.database).engine)


def _show(st: CliState, rows: list[Pool]) -> None:
    if st.output_format == "json":
        st.emit_json([p.to_json() for p in rows])
        return
    from cfnops.cli._table import Table  # Rich: not on every job command's path

    table = Table("POOL", "CAPACITY", "IN USE", "HELD BY")
    for p in rows:
        held = ", ".join(f"{r} ({h.rsplit(':', 1)[-1]})" for r, h in p.holders[:5])
        table.add_row(p.name, str(p.capacity), str(p.in_use), held or "-")
    st.console.print(table if rows else "no pools")


@pool_app.command("set")
def pool_set(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Pool name.")],
    capacity: Annotated[int, typer.Option(help="Tasks that may hold a slot at once.")],
) -> None:
    """Create a pool, or change its capacity."""
    st = state(ctx)
    _show(st, [_pools(st).set(name, capacity)])


@pool_app.command("list")
def pool_list(ctx: typer.Context) -> None:
    """Pools, their capacity and who holds their slots."""
    st = state(ctx)
    _show(st, _pools(st).list())


@pool_app.command("remove")
def pool_remove(ctx: typer.Context, name: Annotated[str, typer.Argument()]) -> None:
    """Remove a pool (Tasks naming it then fail to start)."""
    st = state(ctx)
    removed = _pools(st).remove(name)
    if st.output_format == "json":
        st.emit_json({"name": name, "removed": removed})
    else:
        st.console.print(f"{name}: {'removed' if removed else 'not found'}")


def alerts_cmd(
    ctx: typer.Context,
    run_id: Annotated[str | None, typer.Option("--run", help="Only this run's alerts.")] = None,
) -> None:
    """Delay alerts (late-start, long-run, deadline), skipped starts, dependency timeouts."""
    from cfnops.jobs import JobService, list_alerts

    st = state(ctx)
    rows = list_alerts(JobService(st.runtime), run_id)
    if st.output_format == "json":
        st.emit_json(rows)
        return
    from cfnops.cli._table import Table  # Rich: not on every job command's path

    table = Table("RUN", "CONDITION", "AT (UTC)", "DETAILS")
    for r in rows:
        at = datetime.fromtimestamp(r["at"], UTC).isoformat(timespec="seconds")
        table.add_row(r["runId"], r["condition"], at, json.dumps(r["details"])[:80])
    st.console.print(table if rows else "no alerts")


calendar_app = typer.Typer(
    help="Business calendars: check a file, and preview the fire times of a day rule.",
    no_args_is_help=True,
)
CalendarFile = Annotated[Path, typer.Argument(help="Calendar file (TOML).")]


@calendar_app.command("show")
def calendar_show(
    ctx: typer.Context,
    calendar: CalendarFile,
    month: Annotated[str | None, typer.Option(help="YYYY-MM (default: this month).")] = None,
) -> None:
    """Open and closed days of one month (checks the file; exit 2 when it is invalid)."""
    from cfnops.errors import UsageError
    from cfnops.jobs import load_calendar

    st = state(ctx)
    cal = load_calendar(calendar)
    try:
        first = date.fromisoformat(f"{month}-01") if month else date.today().replace(day=1)
    except ValueError:
        raise UsageError(f"--month {month!r} is not YYYY-MM") from None
    days: list[dict[str, Any]] = []
    day = first
    while day.month == first.month:
        days.append(
            {"date": day.isoformat(), "weekday": day.strftime("%a"), "open": cal.is_open(day)}
        )
        day += timedelta(days=1)
    if st.output_format == "json":
        st.emit_json({"calendar": cal.to_json(), "days": days})
        return
    from cfnops.cli._table import Table  # Rich: not on every job command's path

    table = Table("DATE", "DAY", "OPEN", title=f"{cal.name} {first:%Y-%m}")
    for d in days:
        table.add_row(d["date"], d["weekday"], "open" if d["open"] else "[red]closed[/]")
    st.console.print(table)


@calendar_app.command("next")
def calendar_next(
    ctx: typer.Context,
    calendar: CalendarFile,
    cron: Annotated[str, typer.Option(help="cron(m h dom mon dow year).")],
    day_rule: Annotated[
        str, typer.Option(help="open | next-open | previous-open | nth-open:N | last-open.")
    ] = "open",
    timezone: Annotated[str | None, typer.Option(help="Default: the calendar's, else UTC.")] = None,
    count: Annotated[int, typer.Option(min=1, max=100, help="How many fire times.")] = 5,
    after: Annotated[
        str | None, typer.Option(help="ISO time to start from (default: now).")
    ] = None,
) -> None:
    """The next fire times of a schedule with this calendar and day rule."""
    from zoneinfo import ZoneInfo  # here: every `job` command loads this module

    from cfnops.errors import UsageError
    from cfnops.jobs import CalendarSchedule, load_calendar, parse_day_rule, parse_schedule

    st = state(ctx)
    cal = load_calendar(calendar)
    tz = timezone or cal.timezone or "UTC"
    sched = CalendarSchedule(parse_schedule(cron, tz), cal, parse_day_rule(day_rule))
    try:
        at = datetime.fromisoformat(after) if after else datetime.now(UTC)
    except ValueError:
        raise UsageError(f"--after {after!r} is not an ISO 8601 time") from None
    at = at if at.tzinfo else at.replace(tzinfo=ZoneInfo(tz))
    fires = []
    for _ in range(count):
        at = sched.next_after(at)
        fires.append(at.astimezone(ZoneInfo(tz)).isoformat())
    if st.output_format == "json":
        st.emit_json({"calendar": cal.name, "timezone": tz, "dayRule": day_rule, "fires": fires})
        return
    for fire in fires:
        st.console.print(fire)


@calendar_app.command("forecast")
def calendar_forecast(
    ctx: typer.Context,
    folder: Annotated[Path, typer.Argument(help="The --out folder of cfnops job import.")],
    days: Annotated[int, typer.Option(min=1, max=1100, help="How many days.")] = 31,
    start: Annotated[
        str | None, typer.Option("--from-date", help="YYYY-MM-DD (default: today).")
    ] = None,
) -> None:
    """Run dates of imported job-nets, from their schedules and calendar files."""
    from cfnops.errors import UsageError
    from cfnops.jobimport import forecast_files

    st = state(ctx)
    try:
        first = date.fromisoformat(start) if start else date.today()
    except ValueError:
        raise UsageError(f"--from-date {start!r} is not YYYY-MM-DD") from None
    rows = forecast_files(folder, first, days)
    if st.output_format == "json":
        st.emit_json({"from": first.isoformat(), "days": days, "jobNets": rows})
        return
    for row in rows:
        runs = row["runs"]
        st.console.print(f"{row['jobNet']}: {len(runs)} runs", markup=False, highlight=False)
        for run in runs:
            st.console.print(f"  {run}", markup=False, highlight=False)


def register_manager(job_app: typer.Typer) -> None:
    job_app.add_typer(pool_app, name="pool")
    job_app.command("alerts")(alerts_cmd)
    job_app.add_typer(calendar_app, name="calendar")
