"""``cfnops guard``: custom-resource lifecycle safety for a template's handlers.

Exit codes: 0 no error-severity finding, 1 at least one error-severity finding
(or, with ``--fail-on-unchecked``, a handler that could not be analysed), 2 bad
input (missing or malformed template, bad flag).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cfnops.cli._state import state
from cfnops.errors import UsageError

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
        typer.Option("--fail-on-unchecked", help="Exit 1 when any handler could not be analysed."),
    ] = False,
) -> None:
    """Find custom-resource handlers with an unstable PhysicalResourceId or a Delete ignoring it.

    An id that changes on update makes CloudFormation delete the old resource.
    A Delete handler that ignores the id may delete what another resource still uses.

    Exit codes: 0 no error-severity finding, 1 error-severity findings (or, with
    --fail-on-unchecked, a handler not analysed), 2 bad input."""
    from cfnops.guard import check_template, render_text, to_json, to_sarif

    st = state(ctx)
    fmt = output or st.output or "text"
    if fmt not in _OUTPUTS:
        raise UsageError(
            f"--output {fmt!r}: expected text, json or sarif",
            hint="e.g. cfnops guard template.yaml -o sarif > guard.sarif",
        )
    report = check_template(template, code)
    if fmt == "json":
        st.emit_json(to_json(report))
    elif fmt == "sarif":
        st.emit_json(to_sarif(report))
    else:
        render_text(report, st.console)
    if report.has_errors or (fail_on_unchecked and report.not_analysed):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("guard")(guard_command)
