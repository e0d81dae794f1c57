"""The console keeps a run's derived statuses while its history is unchanged, and only then."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests._runtime import runtime_for

from cfnops.config import load_settings
from cfnops.console._pages_jobs import _Derived
from cfnops.jobs import JobService

DEFINITION = {
    "StartAt": "A",
    "States": {"A": {"Type": "Pass", "Next": "B"}, "B": {"Type": "Pass", "End": True}},
}


def _entered(event_id: int, name: str, ts: float) -> tuple[int, int, str, float, str]:
    return (event_id, event_id - 1, "PassStateEntered", ts, json.dumps({"name": name}))


def test_a_changed_history_is_derived_again_an_unchanged_one_is_not(tmp_path: Path) -> None:
    jobs = JobService(
        runtime_for(load_settings(database_url=f"sqlite:///{tmp_path / 'runs.sqlite'}"))
    )
    jobs.store.create_run("r-1", "m", DEFINITION, {})
    t = time.time()
    jobs.store.write_events("r-1", [(1, 0, "ExecutionStarted", t, "{}"), _entered(2, "A", t)])
    cache = _Derived()
    history, derived = cache.get(jobs, jobs.store.get_run("r-1"))
    assert [e["id"] for e in history] == [1, 2]
    assert derived.overall["A"].status == "RUNNING"
    again = cache.get(jobs, jobs.store.get_run("r-1"))
    assert again[1] is derived  # unchanged: the same derivation, not a new one
    # an event added: derived again
    jobs.store.write_events("r-1", [_entered(3, "B", t + 1)])
    history, derived = cache.get(jobs, jobs.store.get_run("r-1"))
    assert [e["id"] for e in history] == [1, 2, 3]
    assert "B" in derived.overall
    # a replay deletes events and writes the same ids again (new times, another state):
    # same count and last id, still derived again
    jobs.store.delete_events_after("r-1", 2)
    jobs.store.write_events("r-1", [_entered(3, "A", t + 5)])
    history, rederived = cache.get(jobs, jobs.store.get_run("r-1"))
    assert rederived is not derived
    assert history[-1]["timestamp"] == t + 5


def test_only_the_last_few_runs_are_kept(tmp_path: Path) -> None:
    jobs = JobService(
        runtime_for(load_settings(database_url=f"sqlite:///{tmp_path / 'runs.sqlite'}"))
    )
    cache = _Derived()
    first = None
    for n in range(_Derived.SIZE + 1):
        jobs.store.create_run(f"r-{n}", "m", DEFINITION, {})
        jobs.store.write_events(f"r-{n}", [(1, 0, "ExecutionStarted", time.time(), "{}")])
        got = cache.get(jobs, jobs.store.get_run(f"r-{n}"))
        first = first or got
    # r-0 was the least recently used of SIZE + 1 runs: derived anew
    assert cache.get(jobs, jobs.store.get_run("r-0"))[1] is not first[1]
