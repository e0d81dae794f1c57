"""``cfnops drift accept`` / ``cfnops drift accepted``: intended drift, until a date."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Annotated, Any

import botocore.exceptions
import typer

from cfnops.aws import error_message
from cfnops.cli._state import CliState, state
from cfnops.cli._table import Table
from cfnops.heal import AcceptedDrift, AcceptedStore
from cfnops.heal import export_accepted as export
from cfnops.heal.errors import BadAcceptance

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def parse_until(text: str, now: dt.datetime) -> dt.datetime:
    """``YYYY-MM-DD`` (through the end of that day, UTC) or an ISO 8601 time; in the future."""
    value = text.strip()
    try:
        if _DATE.match(value):
            until = dt.datetime.fromisoformat(value).replace(tzinfo=dt.UTC) + dt.timedelta(days=1)
        else:
            until = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
            until = until if until.tzinfo else until.replace(tzinfo=dt.UTC)
    except ValueError as exc:
        raise BadAcceptance(
            "--until", f"{text!r} is not a date: use YYYY-MM-DD or an ISO 8601 time"
        ) from exc
    if until <= now:
        raise BadAcceptance("--until", f"{text} is in the past: give a later date")
    return until.astimezone(dt.UTC)


def check_path(path: str | None) -> str:
    """The PATH argument as heal stores it: ``""`` (the whole resource) or ``/Value``."""
    if path is None or path == "":
        return ""
    if not path.startswith("/"):
        raise BadAcceptance("PATH", f"{path!r} is not a property path: write it like /Value")
    return path.removeprefix("/Properties") or "/"


def _check_target(st: CliState, stack: str, resource: str) -> str:
    """The stack's name, after checking that it has ``resource`` (nothing is written otherwise)."""
    cfn = st.clients.client("cloudformation")
    try:
        found = cfn.describe_stack_resource(StackName=stack, LogicalResourceId=resource)
    except botocore.exceptions.ClientError as exc:
        message = error_message(exc, str(exc))
        raise BadAcceptance(f"{stack} {resource}", message) from exc
    return str(found["StackResourceDetail"].get("StackName") or stack)


def accept(
    ctx: typer.Context,
    stack: Annotated[str, typer.Argument(help="Stack name.")],
    resource: Annotated[str, typer.Argument(help="Logical id of the drifted resource.")],
    path: Annotated[
        str | None, typer.Argument(help="Property path (/Value, /Tags); default: all of it.")
    ] = None,
    until: Annotated[
        str, typer.Option(help="YYYY-MM-DD (through that day, UTC) or an ISO 8601 time.")
    ] = "",
    reason: Annotated[str, typer.Option(help="Why this drift is intended.")] = "",
) -> None:
    """Accept a resource's drift (or one path of it) until a date: reported, never healed."""
    st = state(ctx)
    now = dt.datetime.now(dt.UTC)
    if not until:
        raise BadAcceptance("--until", "is required (the date the drift is flagged again)")
    expires = parse_until(until, now)
    where = check_path(path)
    if not reason.strip():
        raise BadAcceptance("--reason", "is required: say why the drift is intended")
    name = _check_target(st, stack, resource)
    entry = AcceptedDrift(
        region=st.clients.region,
        stack=name,
        logical_id=resource,
        path=where,
        until=expires,
        reason=reason.strip(),
        by=_actor(),
        at=now,
        account=st.clients.account_id(),  # where the stack was found: not other accounts'
    )
    AcceptedStore(st.runtime.database).accept(entry)
    _audit(st, entry)
    if st.output_format == "json":
        st.emit_json(entry.to_json())
    else:
        target = f"{name} {resource}{where}"
        st.console.print(
            f"accepted drift of {target} {entry.until_text()} by {entry.by}: {entry.reason}"
        )


def _actor() -> str:
    from cfnops.durable import AuditLog

    return AuditLog.default_actor()


def _audit(st: CliState, entry: AcceptedDrift) -> None:
    from cfnops.durable import AuditLog

    with AuditLog(st.runtime.database) as audit:
        audit.record(
            actor=entry.by,
            action="drift-accept",
            target=f"{entry.region}/{entry.stack}/{entry.logical_id}{entry.path}",
            reason=entry.reason,
            # as the operator wrote it ("through 2026-12-31 (UTC)"), and the instant it ends
            detail={"until": entry.until_text(), "expiresAt": entry.until.isoformat()},
        )


def accepted(
    ctx: typer.Context,
    stack: Annotated[str | None, typer.Option(help="Only this stack.")] = None,
    all_entries: Annotated[
        bool, typer.Option("--all", help="Expired acceptances too (marked expired).")
    ] = False,
    export_to: Annotated[
        Path | None,
        typer.Option("--export", help="Also write them to this JSON file (for the repository)."),
    ] = None,
) -> None:
    """List accepted drift (active ones unless --all)."""
    st = state(ctx)
    now = dt.datetime.now(dt.UTC)
    entries = [
        e
        for e in AcceptedStore(st.runtime.database).list(stack=stack)
        if all_entries or e.active(now)
    ]
    if export_to is not None:
        export(entries, export_to)
    if st.output_format == "json":
        st.emit_json(
            [{**e.to_json(), "untilText": e.until_text(), "active": e.active(now)} for e in entries]
        )
        return
    table = Table("stack", "resource", "path", "until", "by", "reason", "state", title="accepted")
    for e in entries:
        row: list[Any] = [e.stack, e.logical_id, e.path or "(all)", e.until_text(), e.by]
        table.add_row(*row, e.reason, "active" if e.active(now) else "expired")
    st.console.print(table)


def register(app: typer.Typer) -> None:
    app.command("accept")(accept)
    app.command("accepted")(accepted)
