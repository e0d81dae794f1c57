"""``cfnops audit list``: who did what to which run (approve, stop, rerun, ...)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated

import typer

from cfnops.cli._state import state
from cfnops.cli._table import Table
from cfnops.durable import AuditLog
from cfnops.errors import UsageError

audit_app = typer.Typer(help="The audit log of operator actions.", no_args_is_help=True)


def _since(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        value = datetime.fromisoformat(text)
    except ValueError as exc:
        raise UsageError(
            f"--since {text!r} is not an ISO 8601 time",
            hint="e.g. --since 2026-11-24T18:00:00Z",
        ) from exc
    return value if value.tzinfo else value.replace(tzinfo=UTC)


@audit_app.command("list")
def list_entries(
    ctx: typer.Context,
    target: Annotated[
        str | None, typer.Option(help="Only entries about this target (a run id, a schedule).")
    ] = None,
    action: Annotated[
        str | None, typer.Option(help="Only this action (approve, reject, stop, ...).")
    ] = None,
    since: Annotated[
        str | None, typer.Option(help="Only entries at or after this time (ISO 8601; UTC).")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many (newest first).")] = 100,
) -> None:
    """List audit entries, newest first."""
    st = state(ctx)
    with AuditLog(st.runtime.database) as audit:
        entries = audit.list(target=target, action=action, since=_since(since), limit=limit)
    if st.output_format == "json":
        st.emit_json([e.to_json() for e in entries])
        return
    if not entries:
        st.console.print("no audit entries")
        return
    table = Table("ID", "AT (UTC)", "ACTOR", "ACTION", "TARGET", "REASON", "DETAIL")
    from rich.markup import escape  # what operators typed is text, never markup

    for e in entries:
        detail = json.dumps(dict(e.detail), separators=(",", ":")) if e.detail else "-"
        table.add_row(
            str(e.id),
            e.at.strftime("%Y-%m-%d %H:%M:%S"),
            escape(e.actor),
            escape(e.action),
            escape(e.target),
            escape(e.reason or "-"),
            escape(detail),
        )
    st.console.print(table)


def register(app: typer.Typer) -> None:
    app.add_typer(audit_app, name="audit")
