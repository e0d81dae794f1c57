"""``cfnops drift``: drift reports for stacks (nested stacks followed); ``accept``/``accepted``.

``cfnops drift STACK…`` is ``cfnops drift report STACK…``: the group runs ``report``
when its first argument is not one of its commands.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text
from rich.tree import Tree
from typer.core import TyperGroup

from cfnops.cli._drift_markdown import report_markdown
from cfnops.cli._state import state
from cfnops.errors import UsageError
from cfnops.heal import (
    AcceptedStore,
    StackDriftReport,
    drift_reports,
    fleet_coverage,
    list_stacks,
)

_COLOUR = {"IN_SYNC": "green", "MODIFIED": "yellow", "DELETED": "red", "DRIFTED": "yellow"}


def _tree(report: StackDriftReport, parent: Tree | None = None) -> Tree:
    status = report.effective_status
    label = Text.assemble(
        ("stack " if parent is None else "nested stack ", "bold"),
        report.stack_name,
        " ",
        (status, _COLOUR.get(status, "cyan")),
    )
    if report.reason and status not in ("IN_SYNC", "DRIFTED"):
        label.append(f" ({report.reason})")
    label.append(f" — {report.coverage.text()}")
    node = Tree(label) if parent is None else parent.add(label)
    for r in report.resources:
        status = r.effective_status
        text = Text.assemble(
            (r.logical_id, "bold"), f" {r.resource_type} ", (status, _COLOUR.get(status, "cyan"))
        )
        if status == "ACCEPTED":
            text.append(f" ({r.status}: {r.accepted})")
        elif status != r.status:
            text.append(f" (drift ignored: {r.status})")
        if r.status == "NOT_CHECKED":
            text.append(f" — {r.reason or 'drift detection does not support this type'}")
        branch = node.add(text)
        if r.attribution is not None:
            branch.add(Text(r.attribution.text(), style="magenta"))
        for p in r.properties:
            mark = " [ignored]" if p.ignored else " [accepted]" if p.accepted else ""
            branch.add(
                Text(
                    f"{p.path}: expected {p.expected!r}, actual {p.actual!r} "
                    f"({p.difference_type}){mark}"
                )
            )
    for nested in report.nested:
        _tree(nested, node)
    return node


def render_reports(console: Console, reports: list[StackDriftReport]) -> None:
    for report in reports:
        console.print(_tree(report))
    console.print(f"fleet {fleet_coverage(reports).text()} ({len(reports)} stack(s))")


def drift(
    ctx: typer.Context,
    stacks: Annotated[list[str] | None, typer.Argument(help="Stack names or ids.")] = None,
    all_stacks: Annotated[bool, typer.Option("--all", help="Every stack of the region.")] = False,
    output: Annotated[
        str | None, typer.Option("--output", "-o", help="text | json | markdown.")
    ] = None,
    attribution: Annotated[
        bool,
        typer.Option(
            "--attribution/--no-attribution",
            help="Who changed each drifted resource (CloudTrail LookupEvents).",
        ),
    ] = True,
    fail_on_unchecked: Annotated[
        bool,
        typer.Option(
            "--fail-on-unchecked",
            help="Exit 1 when any resource was not checked or is unsupported (CI).",
        ),
    ] = False,
) -> None:
    """Detect drift and report each resource: status, property paths, expected vs actual.

    NOT_CHECKED resources are listed with the reason; nested stacks are followed.
    Ignore rules from \\[\\[heal.ignore]] mark differences as ignored. Each stack and
    the whole run state their coverage (checked / not checked / unsupported).
    """
    st = state(ctx)
    fmt = output or st.output_format
    if fmt not in ("text", "json", "markdown"):
        raise UsageError(f"unknown output format {fmt!r}", hint="use text, json or markdown")
    if bool(stacks) == all_stacks:
        raise UsageError("give stack names or --all (not both)", hint="cfnops drift web api")
    cfn = st.clients.client("cloudformation")
    names = stacks or [s["StackName"] for s in list_stacks(cfn) if not s.get("ParentId")]
    accepted = AcceptedStore(st.runtime.database).list()
    reports = drift_reports(
        cfn,
        names,
        ignore=st.settings.heal.ignore,
        poll_seconds=min(5, st.settings.heal.drift_poll_seconds),
        cloudtrail=st.clients.client("cloudtrail") if attribution else None,
        accepted=accepted,
        region=st.clients.region,
        account=st.clients.account_id() if any(e.account for e in accepted) else None,
    )
    coverage = fleet_coverage(reports)
    if fmt == "json":
        st.emit_json({"stacks": [r.to_json() for r in reports], "coverage": coverage.to_json()})
    elif fmt == "markdown":
        typer.echo(report_markdown(reports), nl=False)
    else:
        render_reports(st.console, reports)
    if fail_on_unchecked and not coverage.complete:
        typer.echo(f"not everything was checked: {coverage.text()}", err=True)
        raise typer.Exit(1)


class _DriftGroup(TyperGroup):
    """Runs ``report`` when the first argument is not a sub-command (``cfnops drift web``)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("-h", "--help")):
            args = ["report", *args]
        result: list[str] = super().parse_args(ctx, args)
        return result


def register(app: typer.Typer) -> None:
    from cfnops.cli.drift_accept import register as register_accept
    from cfnops.cli.drift_adopt import register as register_adopt
    from cfnops.cli.drift_scan import register as register_scan
    from cfnops.cli.drift_schedule import register as register_schedules

    drift_app = typer.Typer(
        cls=_DriftGroup,
        help="Drift reports (`cfnops drift STACK…` = `cfnops drift report STACK…`), "
        "accepted drift.",
    )
    drift_app.command("report")(drift)
    register_accept(drift_app)
    register_adopt(drift_app)
    register_scan(drift_app)
    register_schedules(drift_app)
    app.add_typer(drift_app, name="drift")
