"""Text rendering of ``cfnops job check`` (the command itself is in ``cli/job.py``)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape

from cfnops.asl import CheckReport, shape_text
from cfnops.cli._table import Table

__all__ = ["render_check"]


def _shapes(shapes: tuple[Any, ...], width: int) -> str:
    if not shapes:
        return "-"
    more = f" (+{len(shapes) - 1} variants)" if len(shapes) > 1 else ""
    return escape(shape_text(shapes[0], width) + more)


def render_check(console: Console, report: CheckReport, source: str, width: int = 70) -> None:
    """Findings first (with pointers and fixes), then one row per state."""
    table = Table("STATE", "TYPE", "INPUT", "TASK RECEIVES / RESULT", "OUTPUT")
    table.columns[0].overflow = "fold"
    for s in report.states:
        receives = ""
        if s.type in ("Task", "Map", "Parallel"):
            receives = (
                _shapes(s.payloads, width) + f"\n[dim]result: {escape(s.result_source or '-')}[/]"
            )
        table.add_row(
            escape(_display(s.pointer)),
            s.type,
            _shapes(s.inputs, width),
            receives,
            _shapes(s.outputs, width),
        )
    console.print(table)
    for p in report.unreached:
        console.print(f"[yellow]·[/] {escape(p)}: not reached with the sample data (not checked)")
    if report.not_checked:
        console.print(
            f"[yellow]{len(report.not_checked)} reference(s) not checked[/] "
            "(they read unknown Task results, or lie on branches the samples do not take; "
            "declare results with --task-results):"
        )
        for n in report.not_checked:
            console.print(f"  [dim]·[/] {escape(n.pointer)}: {escape(n.reason)}")
    for f in report.findings:
        mark = "[red]✘[/]" if f.severity == "error" else "[yellow]![/]"
        fix = f"\n    fix: {escape(f.suggestion)}" if f.suggestion else ""
        console.print(f"{mark} {escape(f.pointer)}: {escape(f.message)} [dim]({f.code})[/]{fix}")
    errors = len(report.errors)
    verdict = "[green]no errors[/]" if not errors else f"[red]{errors} error(s)[/]"
    console.print(f"{verdict}: {len(report.states)} states walked in {escape(source)}")


def _display(ptr: str) -> str:
    """``/States/M/ItemProcessor/States/S`` → ``M/S``."""
    parts = ptr.split("/")[1:]
    names = [parts[i + 1] for i, p in enumerate(parts[:-1]) if p == "States"]
    return "/".join(n.replace("~1", "/").replace("~0", "~") for n in names)
