"""``run_job``: what ``cfnops job run`` calls between parsing and rendering, from Python."""

from __future__ import annotations

import uuid
from collections.abc import Mapping

import pytest

from cfnops.durable import Engine
from cfnops.errors import UsageError
from cfnops.jobs import StateView, run_job

DEFINITION = {
    "StartAt": "Double",
    "States": {
        "Double": {"Type": "Pass", "Parameters": {"n.$": "States.MathAdd($.n, $.n)"}, "End": True}
    },
}


def test_run_job_runs_follows_and_keeps_its_name(job_engine: Engine) -> None:
    runtime = job_engine.runtime
    name = f"run-job-{uuid.uuid4().hex[:8]}"
    seen: list[tuple[str, str, list[str]]] = []

    def progress(run_id: str, views: Mapping[str, StateView], status: str) -> None:
        seen.append((run_id, status, sorted(views)))

    result = run_job(
        runtime, DEFINITION, {"n": 2}, machine_name="run-job", name=name, on_progress=progress
    )
    assert (result.run_id, result.status, result.output) == (name, "SUCCEEDED", {"n": 4})
    assert seen[-1] == (name, "SUCCEEDED", ["Double"])
    # The same name, definition and input: the run already made, not a second one.
    again = run_job(runtime, DEFINITION, {"n": 2}, machine_name="run-job", name=name)
    assert (again.run_id, again.output) == (name, {"n": 4})
    with pytest.raises(UsageError, match="already exists \\(SUCCEEDED\\) with another input"):
        run_job(runtime, DEFINITION, {"n": 3}, machine_name="run-job", name=name)
    reused = run_job(runtime, DEFINITION, {"n": 3}, machine_name="run-job", name=name, reuse=True)
    assert reused.output == {"n": 4}  # attached to the existing run
    assert Engine.current() is job_engine  # the caller's engine: left running
