"""How ``cfnops diff`` shows a review: text, markdown, JSON or SARIF, and the notes on
stderr. What is shown is :func:`cfnops.review.review`'s."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from cfnops.cli._state import CliState
    from cfnops.review import ReviewResult

__all__ = ["render", "verdict"]


def render(st: CliState, fmt: str, found: ReviewResult) -> None:
    """Show ``found`` in ``fmt`` (text, json, markdown or sarif)."""
    for path in found.skipped:
        typer.echo(f"cfnops diff: skipped {path}: not a CloudFormation template", err=True)
    if found.assembly is not None:
        _assembly(st, fmt, found.assembly)
    else:
        _files(st, fmt, found.files, title=found.title)


def verdict(found: ReviewResult, fail_on: str | None) -> str | None:
    """Why ``--fail-on`` fails the command (``None``: it does not)."""
    if found.tripped is not None:
        names = ", ".join(f"{r.logical_id} ({r.impact.value})" for r in found.tripped)
        return f"cfnops diff: --fail-on {fail_on} tripped: {names or 'differences'}"
    if found.deploy_errors:
        failing = ", ".join(found.deploy_errors)
        return f"cfnops diff: --fail-on {fail_on}: the deploy would fail: {failing}"
    return None


def _assembly(st: CliState, fmt: str, result: Any) -> None:
    from cfnops.diff import assembly_json, assembly_markdown, assembly_text

    if fmt == "json":
        st.emit_json(assembly_json(result))
    elif fmt == "sarif":
        st.emit_json(sarif_for(None, result))
    elif fmt == "markdown":
        typer.echo(assembly_markdown(result), nl=False)
    else:
        st.console.print(assembly_text(result))


def _files(st: CliState, fmt: str, found: tuple[Any, ...], *, title: str) -> None:
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


def several_json(results: tuple[Any, ...]) -> dict[str, Any]:
    """JSON for several templates (``--git-ref A.yaml B.yaml``)."""
    from cfnops.diff import to_json

    return {
        "differenceCount": sum(r.diff.difference_count for r in results),
        "templates": [{"template": r.path, "diff": to_json(r.diff)} for r in results],
    }


def sarif_for(results: tuple[Any, ...] | None, assembly: Any = None) -> dict[str, Any]:
    """The SARIF log of template diffs, or of a cloud-assembly diff (one target a stack)."""
    from cfnops.diff import SarifTarget, template_lines, to_sarif

    targets: list[SarifTarget] = []
    if assembly is not None:
        for stack in assembly.walk():
            lines = template_lines(stack.template_file) if stack.template_file else {}
            targets.append(SarifTarget(stack.template_file, stack.diff, lines, stack.artifact_id))
    for item in results or ():
        lines = template_lines(item.path, {k: v[0] for k, v in item.owners.items()})
        targets.append(SarifTarget(item.path, item.diff, lines))
    return to_sarif(targets)
