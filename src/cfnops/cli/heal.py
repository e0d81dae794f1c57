"""``cfnops heal``, ``cfnops approve``, ``cfnops reject``: durable heal runs from the CLI.

Exit codes: 0 healed / in sync / change set created, 1 failed, 2 usage,
3 held for review (approve with ``cfnops approve RUN_ID``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import replace
from typing import Annotated, NoReturn

import typer
from rich.console import Console, Group
from rich.live import Live

from cfnops.aws import check_region
from cfnops.cli._exit import LeaveThreads
from cfnops.cli._progress import PhaseLines
from cfnops.cli._state import CliState, state
from cfnops.cli._table import Table
from cfnops.durable import Engine, RunStore
from cfnops.errors import UsageError
from cfnops.heal import (
    FleetRow,
    FleetSummary,
    FleetTarget,
    answer_approval,
    plan_heal,
    run_heal,
    run_outcome,
)
from cfnops.notify import ConsoleNotifier

_COLOUR = {
    "HEALED": "green",
    "NOT_HEALED": "red",
    "IN_SYNC": "green",
    "HELD": "yellow",
    "CHANGE_SET_CREATED": "cyan",
    "FAILED": "red",
    "RUNNING": "blue",
}


def progress_table(rows: tuple[FleetRow, ...]) -> Table:
    table = Table("STACK", "REGION", "RUN", "STATUS", "PHASE", "DETAIL", title="heal")
    for r in rows:
        colour = _COLOUR.get(r.status, "white")
        table.add_row(
            f"{r.target.account}:{r.target.stack}" if r.target.account else r.target.stack,
            r.target.region or "-",
            r.run_id or "-",
            f"[{colour}]{r.status}[/]",
            r.phase,
            r.detail,
        )
    return table


def summary_table(summary: FleetSummary) -> Table:
    # heal_fleet counts every bucket, in its order, zeros included
    table = Table(*(b.upper() for b in summary.counts), title="summary")
    table.add_row(*(str(n) for n in summary.counts.values()))
    return table


@contextmanager
def engine_for(st: CliState, console: Console | None = None) -> Iterator[Engine]:
    """The process's engine, handing this command's runtime to the runs it executes."""
    engine = st.engine(console=console)
    try:
        yield engine
    finally:
        # Held runs stay pending: the next cfnops process (approve, worker) resumes them.
        engine.shutdown(grace_seconds=0)


def run_fleet(
    st: CliState,
    targets: list[FleetTarget],
    *,
    only: bool,
    concurrency: int | None,
    poll_seconds: float | None = None,
) -> FleetSummary:
    console = st.console
    lines = PhaseLines()
    st.register_workflows()  # the heal workflow, for the runs this command starts
    if st.output_format == "json":
        summary = run_heal(
            replace(st.runtime, console_channel=ConsoleNotifier(Console(stderr=True))),
            targets,
            concurrency=concurrency,
            only=only,
            on_update=lines.fleet,
            poll_seconds=poll_seconds,
        )
        st.emit_json(
            {
                "counts": summary.counts,
                "coverage": summary.coverage.to_json(),
                "runs": [r.to_json() for r in summary.rows],
            }
        )
        return summary
    with Live(console=console, refresh_per_second=4, transient=False) as live:

        def update(rows: tuple[FleetRow, ...]) -> None:
            live.update(progress_table(rows))
            lines.fleet(rows)

        summary = run_heal(
            replace(st.runtime, console_channel=ConsoleNotifier(console)),
            targets,
            concurrency=concurrency,
            only=only,
            on_update=update,
            poll_seconds=poll_seconds,
        )
        live.update(Group(progress_table(summary.rows), summary_table(summary)))
    console.print()
    console.print(f"fleet {summary.coverage.text()}")
    for row in summary.rows:
        if row.coverage is not None and not row.coverage.complete:
            console.print(f"{row.target.stack}: {row.coverage.text()}")
        if row.status == "HELD":
            console.print(
                f"held: {row.target.stack} — approve with 'cfnops approve {row.run_id}' "
                f"or reject with 'cfnops reject {row.run_id}' (reasons: "
                f"'cfnops runs show {row.run_id}')",
                soft_wrap=True,  # one line: the commands are copied whole
            )
    return summary


def finish(code: int) -> NoReturn:
    """Exit with ``code``, even while a held run's thread still waits in this process
    (its state is in the database: the next cfnops process resumes it)."""
    raise LeaveThreads(code)


def _parse_tags(tags: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for tag in tags:
        key, sep, value = tag.partition("=")
        if not sep or not key:
            raise UsageError(f"bad --tag {tag!r}", hint="use --tag key=value")
        out[key] = value
    return out


def heal(
    ctx: typer.Context,
    stacks: Annotated[list[str] | None, typer.Argument(help="Stack names.")] = None,
    review: Annotated[
        bool, typer.Option("--review", help="Create the change set only (CreateChangeSetOnly).")
    ] = False,
    all_stacks: Annotated[bool, typer.Option("--all", help="Every matching stack.")] = False,
    tag: Annotated[list[str] | None, typer.Option("--tag", help="With --all: key=value.")] = None,
    name: Annotated[list[str] | None, typer.Option("--name", help="With --all: name glob.")] = None,
    regions: Annotated[
        str | None,
        typer.Option(
            "--regions",
            "--region",
            help="r1,r2: heal in each of these regions (default: the global --region).",
        ),
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option(min=1, help="Runs at once (default [heal] fleet_concurrency).")
    ] = None,
    fail_on_unchecked: Annotated[
        bool,
        typer.Option(
            "--fail-on-unchecked", help="Exit 1 when any resource could not be checked (CI)."
        ),
    ] = False,
    accounts: Annotated[
        str | None,
        typer.Option(help="Account ids, comma-separated: heal in each (default: the caller's)."),
    ] = None,
    role_name: Annotated[
        str | None, typer.Option(help="Role to assume in each other account (STS AssumeRole).")
    ] = None,
) -> None:
    """Heal drifted stacks with durable runs (detect → REVERT_DRIFT change set → gate → execute).

    Exit codes: 0 healed or in sync, 1 failed (or, with --fail-on-unchecked,
    something not checked), 2 usage, 3 held for review.
    """
    st = state(ctx)
    given = [check_region(r.strip()) for r in (regions or "").split(",") if r.strip()]
    targets = plan_heal(
        st.runtime,
        stacks or [],
        all_stacks=all_stacks,
        tags=_parse_tags(tag or []),
        names=name or [],
        regions=list(given) or [None],
        accounts=accounts,
        role_name=role_name,
    )
    summary = run_fleet(st, targets, only=review, concurrency=concurrency)
    code = summary.exit_code
    if fail_on_unchecked and not summary.coverage.complete and code in (0, 3):
        typer.echo(f"not everything was checked: {summary.coverage.text()}", err=True)
        code = 1
    finish(code)


_PAST = {"approve": "approved", "reject": "rejected"}


def _answer(ctx: typer.Context, run_id: str, verdict: str, reason: str, wait: bool) -> None:
    st = state(ctx)
    answer = answer_approval(st.runtime.database, run_id, verdict, reason=reason)  # audited
    if st.output_format != "json":
        st.console.print(
            f"{run_id}: {_PAST[verdict]} by {answer['by']}" + (f": {reason}" if reason else "")
        )
    if not wait:
        if st.output_format == "json":
            st.emit_json({"runId": run_id, "answer": answer})
        return
    # This process continues the run if its previous process is gone (a live one, or a
    # worker, keeps it). The outcome is read from the record below, whatever result() raises.
    with engine_for(st) as engine, st.console.status(f"{run_id}: finishing …"), suppress(Exception):
        engine.adopt(run_id)
        engine.result(run_id)
    with RunStore(st.runtime.database) as store:
        record = store.get(run_id)
    outcome = run_outcome(record)
    if st.output_format == "json":
        st.emit_json({"runId": run_id, "answer": answer, "outcome": outcome, "error": record.error})
    else:
        st.console.print(f"{run_id}: {outcome}" + (f" — {record.error}" if record.error else ""))
    finish(0 if outcome in ("HEALED", "REJECTED", "IN_SYNC") else 1)


def approve(
    ctx: typer.Context,
    run_id: Annotated[str, typer.Argument(help="The held heal run.")],
    reason: Annotated[str, typer.Option(help="Why (recorded with who approved).")] = "",
    wait: Annotated[bool, typer.Option(help="Wait for the run to finish.")] = True,
) -> None:
    """Approve a held change set: the run executes it and reports."""
    _answer(ctx, run_id, "approve", reason, wait)


def reject(
    ctx: typer.Context,
    run_id: Annotated[str, typer.Argument(help="The held heal run.")],
    reason: Annotated[str, typer.Option(help="Why (recorded with who rejected).")] = "",
    wait: Annotated[bool, typer.Option(help="Wait for the run to finish.")] = True,
) -> None:
    """Reject a held change set: the run deletes it and ends as REJECTED."""
    _answer(ctx, run_id, "reject", reason, wait)


def register(app: typer.Typer) -> None:
    app.command("heal")(heal)
    app.command("approve")(approve)
    app.command("reject")(reject)
