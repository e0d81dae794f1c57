"""``cfnops diff``: offline template diff with replacement analysis.

Exit codes: 0 done (with or without differences); 1 the ``--fail-on`` gate
tripped, or an AWS call failed; 2 bad input (unreadable template, bad flag).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from cfnops.cli._diff_params import given_parameters
from cfnops.cli._state import CliState, state
from cfnops.errors import UsageError

_FORMATS = ("text", "json", "markdown", "sarif")
_FAIL_ON_HELP = (
    "Exit 1 when: replace = a resource is WILL_REPLACE, MAY_REPLACE or WILL_DESTROY; "
    "destroy = WILL_DESTROY; any = any difference."
)
_USAGE_HINT = (
    "cfnops diff old.yaml new.yaml | cfnops diff old/cdk.out new/cdk.out | "
    "cfnops diff --stack web new.yaml | cfnops diff --git-ref origin/main a.yaml b.yaml"
)


def diff(
    ctx: typer.Context,
    templates: Annotated[
        list[Path],
        typer.Argument(
            metavar="[OLD] NEW",
            help="OLD NEW (templates or cdk.out directories), NEW with --stack, "
            "or TEMPLATE... with --git-ref.",
        ),
    ],
    stack: Annotated[
        str | None,
        typer.Option(
            help="Compare NEW (a template, or a cdk.out with this artifact) with this stack."
        ),
    ] = None,
    git_ref: Annotated[
        str | None,
        typer.Option("--git-ref", help="Compare each TEMPLATE with its content at this git ref."),
    ] = None,
    parameters: Annotated[
        list[str] | None,
        typer.Option(
            "--parameters",
            metavar="FILE",
            help="Parameter values for NEW from a CloudFormation parameter file "
            '([{ParameterKey, ParameterValue}], ["K=V"], {Parameters: {K: V}} or {K: V}).',
        ),
    ] = None,
    parameter: Annotated[
        list[str] | None,
        typer.Option("--parameter", metavar="KEY=VALUE", help="A value for NEW (repeatable)."),
    ] = None,
    region: Annotated[
        str | None, typer.Option(help="Region of the update-behaviour table and the stack.")
    ] = None,
    output: Annotated[
        str | None, typer.Option("--output", "-o", help="text|json|markdown|sarif")
    ] = None,
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
    validate: Annotated[
        bool,
        typer.Option(
            "--validate",
            help="Will it deploy? Check the changed resources' properties against the "
            "registry schema (cfn-lint) and, with --stack, explicit names against the account.",
        ),
    ] = False,
) -> None:
    """Show what deploying NEW does: in-place updates, replacements (and the reference
    chains causing them), creations, deletions and orphans."""
    from cfnops.diff import FailOn, gate

    st = state(ctx)
    fmt = output or st.output or "text"
    if fmt not in _FORMATS:
        raise UsageError(f"--output {fmt!r}: expected text, json, markdown or sarif")
    if fail_on is not None and fail_on not in {f.value for f in FailOn}:
        raise UsageError(
            f"--fail-on {fail_on!r}: expected replace, destroy or any",
            hint="replace: exit 1 on a replacement; destroy: also on a deletion; any: any change",
        )
    wanted = (1,) if stack else (1, 2, 3, 4, 5, 6, 7, 8, 9) if git_ref else (2,)
    if (
        (len(templates) not in wanted and not (git_ref and templates))
        or ((change_set or drift) and not stack)
        or (git_ref and stack)
    ):
        raise UsageError(
            "expected OLD NEW, --stack NAME NEW or --git-ref REF TEMPLATE... "
            "(--change-set and --drift need --stack)",
            hint=_USAGE_HINT,
        )
    st.region = region or st.region
    given = given_parameters(parameters or [], parameter or [])
    if not stack and not git_ref and all(is_assembly(t) for t in templates):
        results = _assemblies(st, fmt, templates, given)
    elif git_ref:
        results = _against_git(st, fmt, git_ref, templates, given, code, validate)
    else:
        results = _one(st, fmt, templates, stack, given, code, (change_set, drift, validate))
    trips = [gate(d, FailOn(fail_on), strict=strict) for d in results] if fail_on else []
    if any(t is not None for t in trips):
        tripped = [r for t in trips for r in (t or ())]
        names = ", ".join(f"{r.logical_id} ({r.impact.value})" for r in tripped) or "differences"
        typer.echo(f"cfnops diff: --fail-on {fail_on} tripped: {names}", err=True)
        raise typer.Exit(1)
    failing = [f for d in results for f in d.deploy_findings if f.level == "error"]
    if fail_on is not None and failing:
        typer.echo(
            f"cfnops diff: --fail-on {fail_on}: the deploy would fail: "
            + ", ".join(sorted({f"{f.logical_id} ({f.rule})" for f in failing})),
            err=True,
        )
        raise typer.Exit(1)


def is_assembly(path: Path) -> bool:
    """A CDK cloud assembly: a folder with a manifest.json (checked without importing it)."""
    return path.is_dir() and (path / "manifest.json").is_file()


def _one(
    st: CliState,
    fmt: str,
    templates: list[Path],
    stack: str | None,
    given: dict[str, str],
    code: Path | None,
    modes: tuple[bool, bool, bool],
) -> list[Any]:
    """One template against another or a stack; ``modes``: change set, drift, validate."""
    from cfnops.cli._diff_sources import FileDiff, diff_pair
    from cfnops.diff import load_template

    change_set, drift, validate = modes
    new_path = templates[-1]
    if is_assembly(new_path):
        if not stack:
            raise UsageError(
                f"{new_path} is a cloud assembly: compare it with another one "
                "(OLD/cdk.out NEW/cdk.out) or with a deployed stack (--stack NAME)",
                hint=_USAGE_HINT,
            )
        new_path, stack = _artifact_template(new_path, stack)
    new = load_template(new_path)
    if stack:
        from cfnops.diff.stack import diff_against_stack

        found = FileDiff(
            str(new_path),
            diff_against_stack(
                st.clients.client("cloudformation"),
                stack,
                new,
                parameters=given,
                region=st.clients.region,
                change_set=change_set,
            ),
        )
    else:
        old = load_template(templates[0])
        found = diff_pair(
            old,
            new,
            str(new_path),
            region=_table_region(st),
            given=given,
            old_source=str(templates[0]),
        )
    result = _with_guard_findings(found.diff, new_path, code)
    result = _validated(st, result, new_path, validate)
    if validate and stack:
        from cfnops.cli._diff_names_live import taken_names

        taken = taken_names(st.clients, new, result)
        result = replace(result, deploy_findings=(*result.deploy_findings, *taken))
    if drift and stack:
        result = _with_live_drift(st, stack, result)
    found = replace(found, diff=result)
    _render(st, fmt, [found], title=f"Stack {stack}" if stack else "Template diff")
    return [result]


def _artifact_template(assembly_dir: Path, stack: str) -> tuple[Path, str]:
    """The template of the artifact named ``stack`` (artifact id or stack name), and the
    name of the stack it deploys."""
    from cfnops.diff import load_assembly

    assembly = load_assembly(assembly_dir)
    artifact = assembly.stack(stack)
    if artifact is None:
        names = ", ".join(sorted(assembly.stacks)) or "none"
        raise UsageError(
            f"{assembly_dir}: no stack artifact {stack!r} (artifact ids: {names})",
            hint="--stack takes an artifact id or the stack name it deploys",
        )
    return artifact.template_file, artifact.stack_name


def _assemblies(st: CliState, fmt: str, dirs: list[Path], given: dict[str, str]) -> list[Any]:
    from cfnops.cli._diff_sources import diff_pair, sarif_for
    from cfnops.diff import (
        assembly_json,
        assembly_markdown,
        assembly_text,
        diff_assemblies,
        load_assembly,
    )

    region = _table_region(st)
    result = diff_assemblies(
        load_assembly(dirs[0]),
        load_assembly(dirs[1]),
        lambda old, new: diff_pair(old, new, "", region=region, given=given).diff,
    )
    if fmt == "json":
        st.emit_json(assembly_json(result))
    elif fmt == "sarif":
        st.emit_json(sarif_for(None, result))
    elif fmt == "markdown":
        typer.echo(assembly_markdown(result), nl=False)
    else:
        st.console.print(assembly_text(result))
    return [s.diff for s in result.walk()]


def _against_git(
    st: CliState,
    fmt: str,
    ref: str,
    templates: list[Path],
    given: dict[str, str],
    code: Path | None,
    validate: bool = False,
) -> list[Any]:
    from cfnops.cli._diff_sources import diff_pair, git_text
    from cfnops.diff import TemplateLoadError, load_template, parse_template

    found = []
    for path in templates:
        try:
            new = load_template(path)
        except TemplateLoadError as exc:
            if "not a CloudFormation template" not in exc.message:
                raise
            typer.echo(f"cfnops diff: skipped {path}: not a CloudFormation template", err=True)
            continue
        text = git_text(ref, path)
        old = parse_template(text, f"{ref}:{path}") if text and text.strip() else {}
        item = diff_pair(
            old,
            new,
            str(path),
            region=_table_region(st),
            given=given,
            old_source=f"{ref}:{path}",
        )
        checked = _validated(st, _with_guard_findings(item.diff, path, code), path, validate)
        found.append(replace(item, diff=checked))
    _render(st, fmt, found, title=f"Template diff against {ref}")
    return [f.diff for f in found]


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


def _validated(st: CliState, result: Any, template: Path, validate: bool) -> Any:
    """With ``--validate``: the changed resources' properties against the registry schema."""
    if not validate:
        return result
    from cfnops.cli._diff_validate import schema_findings

    found = schema_findings(template, result, _table_region(st))
    return replace(result, deploy_findings=(*result.deploy_findings, *found))


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


def _render(st: CliState, fmt: str, found: list[Any], *, title: str) -> None:
    from cfnops.cli._diff_sources import sarif_for, several_json
    from cfnops.diff import render_markdown, render_text, to_json

    for item in found:  # a warning (the SAM transform rejected a template) also on stderr
        for note in item.diff.notes:
            if note.startswith("warning: "):
                typer.echo(f"cfnops diff: {note}", err=True)
    if fmt == "sarif":
        st.emit_json(sarif_for(found))
    elif fmt == "json":
        st.emit_json(to_json(found[0].diff) if len(found) == 1 else several_json(found))
    elif fmt == "markdown":
        for item in found:
            name = title if len(found) == 1 else f"{item.path}"
            typer.echo(render_markdown(item.diff, title=name), nl=False)
    else:
        for item in found:
            name = title if len(found) == 1 else f"{item.path}"
            st.console.print(render_text(item.diff, title=name))


def register(app: typer.Typer) -> None:
    app.command(
        "diff",
        help="Template diff with replacement analysis: which changes update in place, may "
        "replace, require replacement, destroy or orphan, propagated through references.\n\n"
        "Exit codes: 0 done; 1 the --fail-on gate tripped (or an AWS call failed); "
        "2 bad input.",
    )(diff)
