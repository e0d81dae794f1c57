"""``cfnops demo``: end-to-end demonstrations on the embedded defaults."""

from __future__ import annotations

import time
import uuid
from typing import Annotated

import typer

from cfnops.cli._state import state

demo_app = typer.Typer(
    help="Demonstrations on the embedded defaults (local sandbox, SQLite).",
    invoke_without_command=True,
)


@demo_app.callback()
def demo(
    ctx: typer.Context,
    wait_seconds: Annotated[int, typer.Option(min=1, help="Length of the durable wait.")] = 2,
) -> None:
    """Without a sub-command: run the sample durable workflow and show its record.

    The run survives being killed: run this demo again (or 'cfnops worker --import
    cfnops.demo.workflows') and it resumes at its last finished step; 'cfnops runs
    show RUN_ID' shows it.
    """
    if ctx.invoked_subcommand is not None:
        return
    # imported here: other commands register demo sub-commands on this group
    from cfnops.cli.runs import _render_detail
    from cfnops.demo.workflows import SAMPLE_WORKFLOW
    from cfnops.durable import RunStore

    st = state(ctx)
    engine = st.engine()
    run_id = f"demo-{uuid.uuid4().hex[:8]}"
    try:
        engine.start(SAMPLE_WORKFLOW, {"wait_seconds": wait_seconds, "polls": 2}, run_id=run_id)
        with st.console.status(f"run {run_id}: running (durable wait {wait_seconds} s) …"):
            started = time.monotonic()
            output = engine.result(run_id)
        elapsed = time.monotonic() - started
    finally:
        engine.shutdown()
    with RunStore(st.runtime.database) as store:
        record, steps = store.get(run_id), store.steps(run_id)
    if st.output_format == "json":
        st.emit_json({"runId": run_id, "status": record.status, "output": output})
        return
    _render_detail(st, record, steps)
    st.console.print(f"finished in {elapsed:.1f} s; database {st.settings.database_url}")


def register(app: typer.Typer) -> None:
    app.add_typer(demo_app, name="demo")
