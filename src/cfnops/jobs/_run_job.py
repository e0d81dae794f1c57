"""What ``cfnops job run`` does between parsing and rendering, as one capability call.

:func:`run_job` checks what the caller named (a ``name`` already used by another
definition or input is refused; a RUNNING run of that name that nothing executes any
more is refused with the commands that continue or end it), starts the run on this
process's engine, follows it to its end (``on_progress`` sees each change) and stops
the engine if it started it. :func:`follow_job` is the following part alone (a
redrive, the demo).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cfnops.database import retry_while_unreachable
from cfnops.durable import Engine, RunStore
from cfnops.errors import UsageError
from cfnops.jobs._runner import JobResult
from cfnops.jobs._service import JobService
from cfnops.jobs._views import StateView, state_views
from cfnops.jobs.errors import UnknownJobRun
from cfnops.runtime import Runtime

__all__ = ["Progress", "follow_job", "run_job"]

# Called with the run id, each state's view and the run's status while a run is followed.
Progress = Callable[[str, Mapping[str, StateView], str], None]

_TICK = 0.25  # seconds between two looks at a run executed in another process


def run_job(
    runtime: Runtime,
    definition: Mapping[str, Any],
    value: Any,
    *,
    machine_name: str,
    name: str | None = None,
    reuse: bool = False,
    options: Mapping[str, Any] | None = None,
    modules: Sequence[str] = (),
    on_progress: Progress | None = None,
) -> JobResult:
    """Run a job-net to its end on this process's engine and return its result.

    ``name`` makes the run idempotent: the same name, definition and input attach to
    the run already made; another definition or input under that name raises
    :class:`~cfnops.errors.UsageError` unless ``reuse``. ``modules`` were imported by
    the caller (they may register local functions) and are recorded with the run.
    The engine is stopped afterwards when this call started it.
    """
    before = Engine.current()
    jobs = JobService(runtime)
    if name is not None and not reuse:
        _refuse_other_run(jobs, name, definition, value)
    if name is not None:
        _attachable(runtime, jobs, name)
    run_id = jobs.start(
        definition,
        value,
        machine_name=machine_name,
        name=name,
        options=options,
        modules=modules,
    )
    result = follow_job(jobs, run_id, on_progress)
    engine = Engine.current()
    if engine is not None and engine is not before:  # started by this call
        engine.shutdown(grace_seconds=1)
    return result


def follow_job(jobs: JobService, run_id: str, on_progress: Progress | None = None) -> JobResult:
    """Wait for ``run_id`` to end; ``on_progress`` sees the run id, each state's view and
    the run's status at every look (a storage blip is waited through, not reported)."""
    if on_progress is None:
        return jobs.wait(run_id)
    ended_before = False
    while True:
        views, row = retry_while_unreachable(
            lambda: (state_views(jobs.store.history(run_id)), jobs.store.get_run(run_id)),
            what=f"watching job run {run_id}",
            give_up_after=jobs.settings.worker.stranded_after_seconds,
        )
        on_progress(run_id, views, row.status)
        if row.status != "RUNNING" or ended_before:
            break  # ended; or its execution here is over and it is still RUNNING (cancelled)
        engine = Engine.current()  # wakes when the run ends, not at the next tick
        if engine is not None:
            engine.check_stranded(run_id)  # a storage fault stopped it: say so, exit 2
        ended_here = None if engine is None else engine.wait_local(run_id, _TICK)
        if ended_here:  # one more look shows its end (no spinning on a finished future)
            ended_before = True
        elif ended_here is None:
            time.sleep(_TICK)
    return jobs.wait(run_id)


def _attachable(runtime: Runtime, jobs: JobService, name: str) -> None:
    """``name`` of a RUNNING run: wait for it only if something can advance it.

    This process continues it when its executor is dead (or it waits on the workers'
    queue); a live executor keeps it. A run nothing executes any more (its execution
    ended without recording the run's end) would be waited for forever: exit 2 naming
    the commands that continue or end it.
    """
    try:
        row = jobs.store.get_run(name)
    except UnknownJobRun:
        return
    if row.status != "RUNNING":
        return
    if jobs.execution_state(row) in ("RUNNING", "QUEUED"):
        engine = Engine.start_process(runtime)
        engine.adopt(row.dbos_id)  # continued here only if its process is gone
        with RunStore(engine.runtime.database) as runs:
            record = runs.get(row.dbos_id)
        if record.needs is not None:  # handed over already: say so if no worker takes it
            engine.awaits_worker(row.dbos_id, record.needs, f"start {record.runs_on}")
        return
    raise UsageError(
        f"job run {name!r} is RUNNING but nothing executes it any more "
        "(its durable execution ended without recording the run's end)",
        hint=f"'cfnops job redrive {name}' runs it again from where it stopped; "
        f"'cfnops job stop {name}' ends it ABORTED",
    )


def _refuse_other_run(jobs: JobService, name: str, definition: Any, value: Any) -> None:
    """``name`` of an existing run with another definition or input: exit 2, not its result."""
    try:
        existing = jobs.store.get_run(name)
    except UnknownJobRun:
        return
    differs = [
        what
        for what, old, new in (
            ("definition", existing.definition, definition),
            ("input", existing.input, value),
        )
        if json.dumps(old, sort_keys=True) != json.dumps(new, sort_keys=True)
    ]
    if differs:
        raise UsageError(
            f"job run {name!r} already exists ({existing.status}) with another "
            f"{' and '.join(differs)}",
            hint=f"choose another --name, inspect it with 'cfnops job show {name}', or pass "
            "--reuse to attach to it anyway",
        )
