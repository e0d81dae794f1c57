"""``cfnops diff``: offline template diff with replacement analysis.

Exit codes: 0 done (with or without differences); 1 the ``--fail-on`` gate
tripped, or an AWS call failed; 2 bad input (unreadable template, bad flag).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cfnops.cli._state import state
from cfnops.errors import UsageError

_FORMATS = ("text", "json", "markdown", "sarif")
_FAIL_ON_HELP = (
    "Exit 1 when: replace = a resource is WILL_REPLACE, MAY_REPLACE or WILL_DESTROY; "
    "destroy = WILL_DESTROY; any = any difference."
)


_Templates = Annotated[
    list[Path],
    typer.Argument(
        metavar="[OLD] NEW",
        help="OLD NEW (templates or cdk.out directories), NEW with --stack, "
        "or TEMPLATE... with --git-ref.",
    ),
]
_Stack = Annotated[
    str | None,
    typer.Option(help="Compare NEW (a template, or a cdk.out with this artifact) with this stack."),
]
_GitRef = Annotated[
    str | None,
    typer.Option("--git-ref", help="Compare each TEMPLATE with its content at this git ref."),
]
_ParameterFiles = Annotated[
    list[str] | None,
    typer.Option(
        "--parameters",
        metavar="FILE",
        help="Parameter values for NEW from a CloudFormation parameter file "
        '([{ParameterKey, ParameterValue}], ["K=V"], {Parameters: {K: V}} or {K: V}).',
    ),
]
_Parameter = Annotated[
    list[str] | None,
    typer.Option("--parameter", metavar="KEY=VALUE", help="A value for NEW (repeatable)."),
]
_Region = Annotated[
    str | None, typer.Option(help="Region of the update-behaviour table and the stack.")
]
_Output = Annotated[str | None, typer.Option("--output", "-o", help="text|json|markdown|sarif")]
_FailOn = Annotated[str | None, typer.Option("--fail-on", help=_FAIL_ON_HELP)]
_ChangeSet = Annotated[
    bool, typer.Option("--change-set", help="With --stack: merge a change set's answers.")
]
_Code = Annotated[
    Path | None,
    typer.Option("--code", help="Custom-resource handler code for the guard's findings."),
]
_Drift = Annotated[
    bool, typer.Option("--drift", help="With --stack: show the stack's live drift beside it.")
]
_Strict = Annotated[
    bool, typer.Option("--strict", help="--fail-on also trips on mangled-equivalent changes.")
]
_Validate = Annotated[
    bool,
    typer.Option(
        "--validate",
        help="Will it deploy? Check the changed resources' properties against the "
        "registry schema (cfn-lint) and, with --stack, explicit names against the account.",
    ),
]


def diff(
    ctx: typer.Context,
    templates: _Templates,
    stack: _Stack = None,
    git_ref: _GitRef = None,
    parameters: _ParameterFiles = None,
    parameter: _Parameter = None,
    region: _Region = None,
    output: _Output = None,
    fail_on: _FailOn = None,
    change_set: _ChangeSet = False,
    code: _Code = None,
    drift: _Drift = False,
    strict: _Strict = False,
    validate: _Validate = False,
) -> None:
    """Show what deploying NEW does: in-place updates, replacements (and the reference
    chains causing them), creations, deletions and orphans."""
    from cfnops.cli._diff_render import render, verdict
    from cfnops.review import ReviewRequest, review

    st = state(ctx)
    fmt = output or st.output or "text"
    if fmt not in _FORMATS:
        raise UsageError(f"--output {fmt!r}: expected text, json, markdown or sarif")
    st.region = region or st.region  # the stack's region too: before any client is built
    request = ReviewRequest(
        tuple(templates), stack=stack, git_ref=git_ref, region=region,
        parameter_files=tuple(parameters or ()), parameters=tuple(parameter or ()),
        fail_on=fail_on, strict=strict, change_set=change_set, drift=drift,
        validate=validate, code=code,
    )  # fmt: skip
    found = review(request, st)
    render(st, fmt, found)
    if failed := verdict(found, fail_on):
        typer.echo(failed, err=True)
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command(
        "diff",
        help="Template diff with replacement analysis: which changes update in place, may "
        "replace, require replacement, destroy or orphan, propagated through references.\n\n"
        "Exit codes: 0 done; 1 the --fail-on gate tripped (or an AWS call failed); "
        "2 bad input.",
    )(diff)
