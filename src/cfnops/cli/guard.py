"""``cfnops guard``: custom-resource lifecycle safety for a template's handlers.

Exit codes: 0 no error-severity finding, 1 at least one error-severity finding
(or, with ``--fail-on-unchecked``, a handler that could not be analysed or, with
``--exercise``, exercised), 2 bad input (missing or malformed template, bad flag).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cfnops.cli._state import CliState, state
from cfnops.errors import UsageError

if TYPE_CHECKING:
    from cfnops.guard import GuardReport

_OUTPUTS = ("text", "json", "sarif")


def guard_command(
    ctx: typer.Context,
    template: Annotated[Path, typer.Argument(help="CloudFormation/SAM template (JSON or YAML).")],
    code: Annotated[
        Path | None,
        typer.Option(
            "--code",
            help="Folder with handler code not in the template (DIR/<FunctionId>/ or DIR/).",
        ),
    ] = None,
    output: Annotated[
        str | None, typer.Option("--output", "-o", help="text | json | sarif.")
    ] = None,
    fail_on_unchecked: Annotated[
        bool,
        typer.Option(
            "--fail-on-unchecked",
            help="Exit 1 when any handler could not be analysed (or, with --exercise, run).",
        ),
    ] = False,
    exercise: Annotated[
        bool,
        typer.Option(
            "--exercise",
            help="Also run each handler with generated Create/Update/Delete requests against a "
            "local sandbox (or --endpoint-url) and report the ids it answers.",
        ),
    ] = False,
) -> None:
    """Find custom-resource handlers with an unstable PhysicalResourceId or a Delete ignoring it.

    An id that changes on update makes CloudFormation delete the old resource.
    A Delete handler that ignores the id may delete what another resource still uses.

    With --exercise each handler (Python, Node.js) also runs, in a child process,
    with Create, Update (properties unchanged and changed), a failing Update and
    Delete requests; its AWS calls go to a sandbox started for the run (or to the
    --endpoint-url given: never a real account).

    Exit codes: 0 no error-severity finding, 1 error-severity findings (or, with
    --fail-on-unchecked, a handler not analysed or not exercised), 2 bad input."""
    from cfnops.guard import check_template, render_text, to_json, to_sarif

    st = state(ctx)
    fmt = output or st.output or "text"
    if fmt not in _OUTPUTS:
        raise UsageError(
            f"--output {fmt!r}: expected text, json or sarif",
            hint="e.g. cfnops guard template.yaml -o sarif > guard.sarif",
        )
    report = check_template(template, code)
    if exercise:
        report = _exercised(st, report, code)
    if fmt == "json":
        st.emit_json(to_json(report))
    elif fmt == "sarif":
        st.emit_json(to_sarif(report))
    else:
        render_text(report, st.console)
    unrun = any(not run.exercised for run in report.exercised)
    if report.has_errors or (fail_on_unchecked and (report.not_analysed or unrun)):
        raise typer.Exit(1)


def _exercised(st: CliState, report: GuardReport, code: Path | None) -> GuardReport:
    """``report`` with the handlers run: against --endpoint-url, or a sandbox started here."""
    from cfnops.guard import exercise

    region = st.aws_region or "us-east-1"
    if st.endpoint_url:
        return exercise(report, st.endpoint_url, code, region=region)
    from cfnops.sandbox import Sandbox

    with Sandbox(region=region) as sandbox:
        return exercise(report, sandbox.endpoint_url, code, region=region)


def register(app: typer.Typer) -> None:
    app.command("guard")(guard_command)
