"""``cfnops job pool …`` (resource pools) and ``cfnops job alerts`` (delay monitoring)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated

import typer
from rich.table import Table

from cfnops.cli._state import CliState, state
from cfnops.jobs._pools import Pool, PoolStore

pool_app = typer.Typer(
    help="Resource pools: a Task whose Comment has cfnops:pool=NAME takes a slot while it runs.",
    no_args_is_help=True,
)


def _pools(st: CliState) -> PoolStore:
    from cfnops.jobs import JobStore

    return PoolStore(JobStore(st.settings).engine)


def _show(st: CliState, rows: list[Pool]) -> None:
    if st.output_format == "json":
        st.emit_json([p.to_json() for p in rows])
        return
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
    from cfnops.jobs import JobService
    from cfnops.jobs._delays import list_alerts

    st = state(ctx)
    rows = list_alerts(JobService(st.settings), run_id)
    if st.output_format == "json":
        st.emit_json(rows)
        return
    table = Table("RUN", "CONDITION", "AT (UTC)", "DETAILS")
    for r in rows:
        at = datetime.fromtimestamp(r["at"], UTC).isoformat(timespec="seconds")
        table.add_row(r["runId"], r["condition"], at, json.dumps(r["details"])[:80])
    st.console.print(table if rows else "no alerts")


def register_manager(job_app: typer.Typer) -> None:
    job_app.add_typer(pool_app, name="pool")
    job_app.command("alerts")(alerts_cmd)
