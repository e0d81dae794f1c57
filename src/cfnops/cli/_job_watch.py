"""Following a job run in the terminal: a live tree of its states, lines for logs, the result.

Shared by ``job run``, ``job redrive``, ``job rerun`` and the job-net demo.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import typer

from cfnops.cli._progress import PhaseLines
from cfnops.cli._state import CliState
from cfnops.errors import ExitCode
from cfnops.jobs import StateView

if TYPE_CHECKING:
    from rich.tree import Tree

    from cfnops.durable import Engine
    from cfnops.jobs import JobResult, JobService, Progress

_ICON = {
    "SUCCEEDED": "[green]✔[/]",
    "RUNNING": "[cyan]…[/]",
    "FAILED": "[red]✘[/]",
    "CAUGHT": "[yellow]↷[/]",
    "ABORTED": "[yellow]■[/]",
}


def current_engine() -> Engine | None:
    from cfnops.durable import Engine

    return Engine.current()


def state_tree(definition: dict[str, Any], views: Mapping[str, StateView], title: str) -> Tree:
    from rich.tree import Tree

    def add(node: Tree, defn: dict[str, Any]) -> None:
        for name, st in defn.get("States", {}).items():
            view = views.get(name)
            icon = _ICON.get(view.status, " ") if view else "[dim]·[/]"
            extra = f" x{view.visits}" if view and view.visits > 1 else ""
            child = node.add(f"{icon} {name} [dim]{st.get('Type')}{extra}[/]")
            for sub in st.get("Branches", []) or []:
                add(child, sub)
            for key in ("ItemProcessor", "Iterator"):
                if isinstance(st.get(key), dict):
                    add(child, st[key])

    tree = Tree(title)
    add(tree, definition)
    return tree


@contextmanager
def progress(st: CliState, defn: dict[str, Any]) -> Iterator[Progress | None]:
    """How a followed run is shown: in text mode a live tree of its states; when stderr is
    not a terminal, also one line per state's and the run's status change (any mode)."""
    lines = PhaseLines()
    if st.output_format == "json" and not lines.enabled:
        yield None
        return

    def note(run_id: str, views: Mapping[str, StateView], status: str) -> None:
        for view in views.values():
            lines.note(
                f"job {run_id} state {view.name}", view.status, run_id=run_id, state=view.name
            )
        lines.note(f"job {run_id}", status, run_id=run_id)

    if st.output_format == "json":
        yield note
        return
    from rich.live import Live

    live = Live(console=st.console, refresh_per_second=4, transient=False)

    def show(run_id: str, views: Mapping[str, StateView], status: str) -> None:
        note(run_id, views, status)
        live.update(state_tree(defn, views, f"[bold]{run_id}[/] {status}"))
        if not live.is_started:  # from the run's first look: a refusal before draws nothing
            live.start()

    try:
        yield show
    finally:
        if live.is_started:
            live.stop()
    st.console.print()


def watch(st: CliState, jobs: JobService, run_id: str, defn: dict[str, Any]) -> JobResult:
    """Wait for the run, shown as :func:`progress` says."""
    from cfnops.jobs import follow_job

    with progress(st, defn) as on_progress:
        return follow_job(jobs, run_id, on_progress)


def finish(st: CliState, result: JobResult, engine_before: object) -> None:
    engine = current_engine()
    if engine is not None and engine is not engine_before:  # started by this command
        engine.shutdown(grace_seconds=1)
    render_result(st, result)


def render_result(st: CliState, result: JobResult) -> None:
    """The run's result (exit 1 unless it SUCCEEDED)."""
    if st.output_format == "json":
        st.emit_json(result.to_json())
    elif result.status == "SUCCEEDED":
        st.console.print(f"{result.run_id}: [green]SUCCEEDED[/]")
        st.console.print_json(json.dumps(result.output))
    else:
        reason = ": ".join(str(x) for x in (result.error, result.cause) if x is not None)
        st.console.print(f"{result.run_id}: [red]{result.status}[/] {reason}".rstrip())
    if result.status != "SUCCEEDED":
        raise typer.Exit(int(ExitCode.FAILED))
