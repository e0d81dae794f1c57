"""``cfnops runs batch ACTION``: rerun, redrive, cancel, hold or release many job runs at once.

The runs are chosen by ``--filter KEY=VALUE`` (status, machine, text, since, until) and/or
``--run ID``; the list is shown first (``--dry-run`` stops there), then one confirmation
stating the count and the consequence (``--yes`` answers it in scripts), then each run is
acted on and audited with the one ``--reason``. What must execute goes to ``cfnops worker``.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from cfnops.cli._state import CliState, state
from cfnops.cli._table import Table
from cfnops.errors import CfnopsError, ExitCode, UsageError
from cfnops.jobs import BATCH_ACTIONS

_ACTIONS = ", ".join(BATCH_ACTIONS)


def _chosen(st: CliState, filters: list[str], runs: list[str]) -> list[str]:
    from cfnops.jobs import JobStore, parse_run_filter, select_runs

    if not filters and not runs:
        raise UsageError(
            "runs batch needs --filter KEY=VALUE or --run ID",
            hint="e.g. cfnops runs batch rerun --filter status=FAILED --filter machine=nightly "
            "--dry-run",
        )
    flt = parse_run_filter(filters)
    found = select_runs(JobStore(st.runtime.database), flt) if filters else []
    return list(dict.fromkeys([*runs, *found]))


def _show(st: CliState, rows: list[tuple[str, bool, str]], heading: str) -> None:
    table = Table("RUN ID", heading, "DETAIL")
    for run_id, ok, detail in rows:
        table.add_row(run_id, "yes" if ok else "no", detail)
    st.console.print(table)


def _confirmed(consequence: str, yes: bool) -> bool:
    if yes:
        return True
    if not sys.stdin.isatty():
        raise UsageError(
            "a batch action asks for confirmation and the input is not a terminal",
            hint="look at the list with --dry-run, then confirm with --yes",
        )
    return typer.confirm(f"{consequence} Go on?", default=False)


def _answer(
    action: str, dry_run: bool, count: int, consequence: str, runs: list[dict[str, Any]]
) -> dict[str, Any]:
    return {"action": action, "dryRun": dry_run, "count": count, "consequence": consequence,
            "runs": runs}  # fmt: skip


def batch(
    ctx: typer.Context,
    action: Annotated[str, typer.Argument(help=f"One of {_ACTIONS}.")],
    filters: Annotated[
        list[str] | None,
        typer.Option(
            "--filter",
            help="KEY=VALUE, repeatable: status (FAILED, RUNNING, …), machine, text (in the "
            "run id), since, until (ISO 8601 UTC).",
        ),
    ] = None,
    runs: Annotated[list[str] | None, typer.Option("--run", help="A run id (repeatable).")] = None,
    reason: Annotated[
        str | None, typer.Option(help="Why (kept in the audit log for each run).")
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="List the runs; do nothing.")] = False,
    yes: Annotated[bool, typer.Option("--yes", help="Confirm without asking.")] = False,
) -> None:
    """Act on many job runs at once: the list first, one confirmation, one result per run.

    A rerun starts each run again from its start as a new linked run; redrive goes on
    from the failed state; cancel stops running runs; hold and release act on running
    runs. A run the action does not apply to is listed with the reason and left alone.
    """
    from cfnops.cli.job_control import _actor, _service
    from cfnops.jobs import batch_consequence, plan_batch, run_batch

    st = state(ctx)
    if action not in BATCH_ACTIONS:
        raise UsageError(f"unknown batch action {action!r}", hint=f"use one of {_ACTIONS}")
    if not dry_run and not (reason or "").strip():
        raise UsageError("runs batch needs --reason", hint="say why; it goes to the audit log")
    jobs = _service(st)
    plan = plan_batch(jobs.store, action, _chosen(st, filters or [], runs or []))
    count = sum(1 for p in plan if p.ok)
    consequence = batch_consequence(action, count)
    if dry_run or count == 0:
        if st.output_format == "json":
            st.emit_json(_answer(action, True, count, consequence, [p.to_json() for p in plan]))
        else:
            _show(st, [(p.run_id, p.ok, p.detail) for p in plan], "WILL ACT")
            st.console.print(consequence if count else f"{action}: applies to none of these runs")
        return
    if st.output_format != "json":
        _show(st, [(p.run_id, p.ok, p.detail) for p in plan], "WILL ACT")
    if not _confirmed(consequence, yes):
        raise typer.Exit(int(ExitCode.FAILED))
    results = run_batch(
        jobs, action, [p.run_id for p in plan if p.ok], actor=_actor(), reason=str(reason)
    )
    done = sum(1 for r in results if r.ok)
    if st.output_format == "json":
        st.emit_json(_answer(action, False, done, consequence, [r.to_json() for r in results]))
    else:
        _show(st, [(r.run_id, r.ok, r.detail) for r in results], "DONE")
        st.console.print(f"{action}: {done} of {len(results)} runs done")
    if done < len(results):
        raise CfnopsError(
            f"{len(results) - done} of {len(results)} runs were not done",
            hint="each line above says why; cfnops audit list shows what was done",
        )
