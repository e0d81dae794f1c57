"""``cfnops drift scan``: every stack of several accounts and regions, as a fleet report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from cfnops.cli._heap import settle_heap
from cfnops.cli._state import state
from cfnops.heal import plan_scan, run_scan, scan_html, scan_markdown
from cfnops.heal.errors import BadScanTarget


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def drift_scan(
    ctx: typer.Context,
    accounts: Annotated[
        str | None, typer.Option(help="Account ids, comma-separated (default: the caller's).")
    ] = None,
    organization: Annotated[
        bool, typer.Option("--organization", help="Every ACTIVE account of the organization.")
    ] = False,
    role_name: Annotated[
        str | None, typer.Option(help="Role to assume in each other account (STS AssumeRole).")
    ] = None,
    regions: Annotated[
        str | None, typer.Option(help="r1,r2 (default: the global --region).")
    ] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Stacks at once (adapts down).")] = 8,
    markdown: Annotated[Path | None, typer.Option(help="Write the Markdown report here.")] = None,
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Write the JSON report here.")
    ] = None,
    html: Annotated[Path | None, typer.Option(help="Write the HTML report here.")] = None,
    fail_on_unchecked: Annotated[
        bool, typer.Option("--fail-on-unchecked", help="Exit 1 unless everything was checked.")
    ] = False,
    schedule: Annotated[
        str | None,
        typer.Option(
            help="Run this [drift_scan.schedules.NAME] now: a durable run compared with the "
            "schedule's previous scan, notified when drift appeared or cleared.",
        ),
    ] = None,
) -> None:
    """Scan the fleet for drift: root stacks (nested followed) and StackSet instances.

    With --schedule NAME, the configured schedule runs once now, as `cfnops worker`
    runs it (see `cfnops drift schedules`).

    Exit codes: 0 scanned (drift or not), 1 a stack could not be scanned (or, with
    --fail-on-unchecked, something was not checked), 2 bad input.
    """
    st = state(ctx)
    if schedule is not None:
        given = [accounts, organization, role_name, regions, markdown, json_file, html]
        if any(given) or concurrency != 8 or fail_on_unchecked:
            raise BadScanTarget("--schedule", "the schedule's settings say what to scan and where")
        from cfnops.cli.drift_schedule import run_now

        run_now(st, schedule)
        return
    plan = plan_scan(
        st.runtime,
        accounts=accounts,
        organization=organization,
        role_name=role_name,
        regions=[r.strip() for r in (regions or "").split(",") if r.strip()],
    )
    settle_heap()  # the process's own heap policy: after the clients exist, before the scan
    result = run_scan(st.runtime, plan, concurrency=concurrency)
    data = result.to_json()
    if markdown is not None:
        _write(markdown, scan_markdown(result))
    if json_file is not None:
        _write(json_file, json.dumps(data, indent=2) + "\n")
    if html is not None:
        _write(html, scan_html(result))
    if st.output_format == "json":
        st.emit_json(data)
    else:
        typer.echo(scan_markdown(result), nl=False)
    failed = any(r.report is None for r in result.rows)
    if failed or (fail_on_unchecked and not result.coverage.complete):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("scan")(drift_scan)
