"""Scheduled drift scans: ``cfnops drift schedules``, ``drift scan --schedule``; the
worker fires them (:class:`cfnops.worker.Worker`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console

from cfnops.cli._state import CliState, state
from cfnops.cli._table import Table

if TYPE_CHECKING:
    from cfnops.config import Settings
    from cfnops.heal import DriftPlan


def config_source(st: CliState) -> str:
    """Where the settings were read: the file, else the environment."""
    from cfnops._config_file import find_config

    path = find_config(st.config)
    return str(path) if path is not None else "environment (CFNOPS_*)"


def plans(st: CliState, settings: Settings | None = None) -> list[DriftPlan]:
    """The configured schedules, checked (exit 2 naming the key when one is wrong)."""
    from cfnops.heal import plan_drift_schedules

    return plan_drift_schedules(settings or st.settings, config_source(st))


def run_now(st: CliState, name: str) -> None:
    """``cfnops drift scan --schedule NAME``: one run of that schedule now, waited for."""
    from cfnops.errors import UsageError
    from cfnops.heal import start_drift_scan

    found = {p.name: p for p in plans(st)}
    plan = found.get(name)
    if plan is None:
        known = ", ".join(found) or "none configured"
        raise UsageError(
            f"no drift-scan schedule named {name!r} (configured: {known})",
            hint="add [drift_scan.schedules.NAME] to cfnops.toml (see docs/heal.md)",
        )
    engine = st.engine(console=Console(stderr=True))
    run_id = start_drift_scan(engine, plan)
    out: dict[str, Any] = engine.result(run_id)
    if st.output_format == "json":
        st.emit_json(out)
    else:
        st.console.print(_summary(out), soft_wrap=True)
    if any(c["note"] == "ERROR" for c in out.get("notChecked", [])):
        raise typer.Exit(1)  # as `drift scan`: a stack could not be scanned


def _summary(out: dict[str, Any]) -> str:
    counts = ", ".join(f"{n} {s}" for s, n in out.get("counts", {}).items()) or "no stacks"
    text = (
        f"run {out['runId']}: {counts}; appeared {len(out['appeared'])}, "
        f"cleared {len(out['cleared'])}, changed {len(out['changed'])}"
    )
    for kind in ("appeared", "cleared", "changed"):
        for c in out[kind]:
            text += f"\n  {kind.upper():<9} {c['stack']} {', '.join(c['resources'])}".rstrip()
    if out.get("notChecked"):
        text += f"\n  not checked: {', '.join(c['stack'] for c in out['notChecked'])}"
    text += "\n" + ("notified" if out["notified"] else "nothing changed: no notification")
    if out.get("reportDir"):
        text += f"; reports in {out['reportDir']}"
    return text


def drift_schedules(ctx: typer.Context) -> None:
    """List the configured drift-scan schedules: next fire, newest run and what it found.

    Schedules are [drift_scan.schedules.NAME] tables of cfnops.toml; `cfnops worker`
    fires them. Exit 2 when one is invalid (bad cron/rate, a channel not enabled).
    """
    from cfnops.heal import describe_drift_schedules as describe

    st = state(ctx)
    rows = describe(plans(st), st.runtime.database)
    if st.output_format == "json":
        st.emit_json({"schedules": rows})
        return
    if not rows:
        st.console.print("no drift-scan schedules ([drift_scan.schedules.NAME] in cfnops.toml)")
        return
    table = Table("name", "schedule", "next fire", "last run", "status", "appeared/cleared")
    for r in rows:
        found = "" if r["appeared"] is None else f"{r['appeared']}/{r['cleared']}"
        table.add_row(
            r["name"],
            f"{r['schedule']} {r['timezone']}",
            r["nextFire"] or "disabled",
            r["lastRun"] or "-",
            r["lastStatus"] or "-",
            found,
        )
    st.console.print(table)


def register(app: typer.Typer) -> None:
    app.command("schedules")(drift_schedules)
