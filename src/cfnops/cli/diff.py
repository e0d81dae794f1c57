"""``cfnops diff``: offline template diff with replacement analysis.

Exit codes: 0 done (with or without differences); 1 the ``--fail-on`` gate
tripped, or an AWS call failed; 2 bad input (unreadable template, bad flag).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from cfnops.cli._state import CliState, state
from cfnops.errors import UsageError

_FORMATS = ("text", "json", "markdown")
_FAIL_ON_HELP = (
    "Exit 1 when: replace = a resource is WILL_REPLACE, MAY_REPLACE or WILL_DESTROY; "
    "destroy = WILL_DESTROY; any = any difference."
)


def _key_values(items: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--parameters {item!r}: expected KEY=VALUE", hint="e.g. Env=prod")
        out[key] = value
    return out


def diff(
    ctx: typer.Context,
    templates: Annotated[
        list[Path],
        typer.Argument(metavar="[OLD] NEW", help="OLD NEW, or only NEW with --stack."),
    ],
    stack: Annotated[str | None, typer.Option(help="Compare NEW with this stack.")] = None,
    parameters: Annotated[
        list[str] | None, typer.Option("--parameters", help="KEY=VALUE for NEW (repeatable).")
    ] = None,
    region: Annotated[
        str | None, typer.Option(help="Region of the update-behaviour table and the stack.")
    ] = None,
    output: Annotated[str | None, typer.Option("--output", "-o", help="text|json|markdown")] = None,
    fail_on: Annotated[str | None, typer.Option("--fail-on", help=_FAIL_ON_HELP)] = None,
    change_set: Annotated[
        bool, typer.Option("--change-set", help="With --stack: merge a change set's answers.")
    ] = False,
    code: Annotated[
        Path | None,
        typer.Option("--code", help="Custom-resource handler code for the guard's findings."),
    ] = None,
    drift: Annotated[
        bool,
        typer.Option("--drift", help="With --stack: show the stack's live drift beside it."),
    ] = False,
    strict: Annotated[
        bool,
        typer.Option("--strict", help="--fail-on also trips on mangled-equivalent changes."),
    ] = False,
) -> None:
    """Show what deploying NEW does: in-place updates, replacements (and the reference
    chains causing them), creations, deletions and orphans."""
    from cfnops.diff import FailOn, diff_templates, gate, load_template, parameter_values

    st = state(ctx)
    fmt = output or st.output or "text"
    if fmt not in _FORMATS:
        raise UsageError(f"--output {fmt!r}: expected text, json or markdown")
    if fail_on is not None and fail_on not in {f.value for f in FailOn}:
        raise UsageError(f"--fail-on {fail_on!r}: expected replace, destroy or any")
    if len(templates) != (1 if stack else 2) or ((change_set or drift) and not stack):
        raise UsageError(
            "expected OLD NEW, or --stack NAME NEW (--change-set and --drift need --stack)",
            hint="cfnops diff old.yaml new.yaml   |   cfnops diff --stack web new.yaml",
        )
    st.region = region or st.region
    given = _key_values(parameters or [])
    new = load_template(templates[-1])
    if stack:
        from cfnops.diff.stack import diff_against_stack

        result = diff_against_stack(
            st.clients.client("cloudformation"),
            stack,
            new,
            parameters=given,
            region=st.clients.region,
            change_set=change_set,
        )
    else:
        old = load_template(templates[0])
        values = parameter_values(old, new, given) if given else ()
        result = diff_templates(old, new, region=_table_region(st), parameter_values=values)
    result = _with_guard_findings(result, templates[-1], code)
    if drift and stack:
        result = _with_live_drift(st, stack, result)
    _render(st, fmt, result, title=f"Stack {stack}" if stack else "Template diff")
    tripped = gate(result, FailOn(fail_on), strict=strict) if fail_on else None
    if tripped is not None:
        names = ", ".join(f"{r.logical_id} ({r.impact.value})" for r in tripped) or "differences"
        typer.echo(f"cfnops diff: --fail-on {fail_on} tripped: {names}", err=True)
        raise typer.Exit(1)


_CUSTOM = "AWS::CloudFormation::CustomResource"


def _with_guard_findings(result: Any, template: Path, code: Path | None) -> Any:
    """Attach ``cfnops guard`` findings to changed custom resources (if there are any)."""
    if not any(r.type.startswith("Custom::") or r.type == _CUSTOM for r in result.resources):
        return result
    from cfnops.diff import annotate, escalate
    from cfnops.guard import GuardInputError, diff_annotations, replacement_reasons

    try:
        annotated = annotate(result, diff_annotations(template, code))
        return escalate(annotated, replacement_reasons(template, code))
    except GuardInputError:  # the guard could not read it: the plain diff still stands
        return result


def _with_live_drift(st: CliState, stack: str, result: Any) -> Any:
    """Detect the stack's drift (cfnops.heal, at this edge) and attach it to the diff."""
    from cfnops.diff import DriftedProperty, with_drift
    from cfnops.heal import drift_report

    cfn = st.clients.client("cloudformation")
    report = drift_report(cfn, stack, ignore=st.settings.heal.ignore, follow_nested=False)
    drifted: list[DriftedProperty] = []
    for res in report.resources:
        if res.effective_status == "DELETED":
            drifted.append(DriftedProperty(res.logical_id, res.resource_type, "DELETED"))
        elif res.effective_status == "MODIFIED":
            drifted.extend(
                DriftedProperty(
                    res.logical_id,
                    res.resource_type,
                    "MODIFIED",
                    p.path,
                    p.expected,
                    p.actual,
                    p.difference_type,
                )
                for p in res.properties
                if not p.ignored
            )
    return with_drift(result, drifted)


def _table_region(st: CliState) -> str:
    """The table's region without building an AWS session: flag, settings, us-east-1."""
    return st.aws_region or "us-east-1"


def _render(st: CliState, fmt: str, result: object, *, title: str) -> None:
    from cfnops.diff import TemplateDiff, render_markdown, render_text, to_json

    assert isinstance(result, TemplateDiff)
    if fmt == "json":
        st.emit_json(to_json(result))
    elif fmt == "markdown":
        typer.echo(render_markdown(result, title=title), nl=False)
    else:
        st.console.print(render_text(result, title=title))


def register(app: typer.Typer) -> None:
    app.command(
        "diff",
        help="Template diff with replacement analysis: which changes update in place, may "
        "replace, require replacement, destroy or orphan, propagated through references.\n\n"
        "Exit codes: 0 done; 1 the --fail-on gate tripped (or an AWS call failed); "
        "2 bad input.",
    )(diff)
