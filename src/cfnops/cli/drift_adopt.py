"""``cfnops drift adopt STACK [--resource R] > new-template``: make the template match reality.

The adopted template goes to stdout (nothing else does); the ``cfnops diff`` of
it, what was adopted and every "edit here" goes to stderr. ``-o json`` prints
all of it as one object instead.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from cfnops.cli._state import state
from cfnops.diff import diff_templates, parse_template, render_text, to_json
from cfnops.errors import UsageError
from cfnops.heal import AcceptedStore, adopt_template, drift_report
from cfnops.heal import selected_drift as selected


def adopt(
    ctx: typer.Context,
    stack: Annotated[str, typer.Argument(help="Stack name.")],
    resource: Annotated[
        list[str] | None, typer.Option("--resource", help="Only this drifted resource.")
    ] = None,
) -> None:
    """Write the stack's template declaring the actual (drifted) values, and show its diff."""
    st = state(ctx)
    cfn = st.clients.client("cloudformation")
    # Accepted and ignored differences stay as the template says (docs/heal.md): only the
    # drift nobody accepted is written into the template.
    accepted = AcceptedStore(st.runtime.database).list()
    report = drift_report(
        cfn,
        stack,
        ignore=st.settings.heal.ignore,
        poll_seconds=min(5, st.settings.heal.drift_poll_seconds),
        follow_nested=False,
        accepted=accepted,
        region=st.clients.region,
        account=st.clients.account_id() if any(e.account for e in accepted) else None,
    )
    drifted = report.drifted()
    if not drifted:
        kept = [r.logical_id for r in report.resources if r.effective_status == "ACCEPTED"]
        raise UsageError(
            f"stack {stack} has no drift to adopt (drift status {report.effective_status}"
            + (f"; accepted drift on {', '.join(kept)} is not adopted" if kept else "")
            + ")",
            hint="cfnops drift STACK shows its drift; cfnops drift accepted lists acceptances",
        )
    names = [r.logical_id for r in drifted]
    missing = [r for r in resource or [] if r not in names]
    if missing:
        raise UsageError(
            f"--resource {', '.join(missing)}: no drift to adopt there "
            f"(drifted: {', '.join(names)})",
            hint="pick one of the drifted resources",
        )
    body = cfn.get_template(StackName=report.stack_id, TemplateStage="Original")["TemplateBody"]
    adoption = adopt_template(body, selected(drifted, resource or []))
    old_text = body if isinstance(body, str) else adopt_template(body, ()).text
    diff = diff_templates(parse_template(old_text, "deployed"), parse_template(adoption.text))
    if st.output_format == "json":
        st.emit_json({"template": adoption.text, **adoption.to_json(), "diff": to_json(diff)})
        return
    err = Console(stderr=True, highlight=False)
    err.print(render_text(diff, title=f"{stack}: template after adopting its drift"))
    for logical_id, path, what in adoption.adopted:
        err.print(f"adopted {logical_id} {path}: {what}")
    for edit in adoption.edit_here:
        err.print(f"{edit.logical_id} {edit.path} {edit.text()}")
    for line in adoption.skipped:
        err.print(f"skipped: {line}")
    typer.echo(adoption.text, nl=False)


def register(app: typer.Typer) -> None:
    app.command("adopt")(adopt)
