"""Replays (what recovery does) find every effect by its key: nothing runs twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sqlalchemy as sa
from tests._runtime import database_for

from cfnops.asl import FakeInvoker, TaskContext
from cfnops.config import load_settings
from cfnops.durable import Attempt, Branch, Position, Visit
from cfnops.jobs import JobStore
from cfnops.jobs._runner import execute_run, redrive_point, top_level_path
from cfnops.jobs._tables import runs

ITEM = {
    "StartAt": "Work",
    "States": {
        "Work": {
            "Type": "Task",
            "Resource": "arn:aws:lambda:us-east-1:1:function:work",
            "Next": "Nap",
        },
        "Nap": {"Type": "Wait", "Seconds": 1, "Next": "Fork"},
        "Fork": {
            "Type": "Parallel",
            "End": True,
            "Branches": [
                {
                    "StartAt": "Left",
                    "States": {
                        "Left": {
                            "Type": "Task",
                            "Resource": "arn:aws:lambda:us-east-1:1:function:work",
                            "TimeoutSeconds": 30,
                            "End": True,
                        }
                    },
                },
                {
                    "StartAt": "Right",
                    "States": {
                        "Right": {
                            "Type": "Task",
                            "Resource": "arn:aws:lambda:us-east-1:1:function:work",
                            "End": True,
                        }
                    },
                },
            ],
        },
    },
}
MACHINE = {
    "StartAt": "Each",
    "States": {
        "Each": {
            "Type": "Map",
            "ItemsPath": "$.items",
            "MaxConcurrency": 3,
            "End": True,
            "ItemProcessor": ITEM,
        }
    },
}


def _invoker(calls: list[Any]) -> FakeInvoker:
    def work(payload: Any, ctx: TaskContext) -> Any:
        calls.append(payload)
        return {"n": payload["n"] if isinstance(payload, dict) else payload, "seen": len(calls)}

    return FakeInvoker({"work": work})


def test_a_replay_calls_no_task_and_sleeps_no_wait(tmp_path: Path) -> None:
    store = JobStore(
        database_for(load_settings(database_url=f"sqlite:///{tmp_path / 'replay.sqlite'}"))
    )
    items = [{"n": i} for i in range(10)]
    store.create_run("replay-1", "replay", MACHINE, {"items": items})
    calls: list[Any] = []
    first = execute_run(store, "replay-1", lambda row: _invoker(calls), account="210987654321")
    assert first.status == "SUCCEEDED"
    assert len(calls) == 30
    keys = {s.position for s in store.list_steps("replay-1")}
    assert len([k for k in keys if isinstance(k.segments[-1], Attempt)]) == 30  # one per call
    left = Position.of(  # timeout helper thread: same shape
        Visit("Each", 1), Branch(1, 0), Visit("Fork", 1), Branch(1, 0), Visit("Left", 1), Attempt(1)
    )
    assert left in keys
    history = [e["type"] for e in store.history("replay-1")]

    # As if the process died just before recording the end: replay everything.
    with store.engine.begin() as conn:
        conn.execute(sa.update(runs).where(runs.c.run_id == "replay-1").values(status="RUNNING"))
    again: list[Any] = []
    replayed = execute_run(store, "replay-1", lambda row: _invoker(again), account="210987654321")
    assert again == []
    assert replayed.output == first.output
    assert sorted(e["type"] for e in store.history("replay-1")) == sorted(history)


def _entered(*names: str) -> list[dict[str, Any]]:
    return [{"type": "PassStateEntered", "details": {"name": n}} for n in names]


def test_redrive_point_counts_visits_across_redrives() -> None:
    top = frozenset({"A", "B", "C"})
    first = _entered("A", "B", "A", "B")  # failed in the 2nd visit of B
    assert top_level_path(first, top) == [("A", 1), ("B", 1), ("A", 2), ("B", 2)]
    assert redrive_point(first, top, []) == ("B", 2)
    failed = [Position.of(Visit("A", 2), Attempt(1)), Position.of(Visit("B", 2), Branch(1, 0))]
    assert redrive_point(first, top, failed) == ("A", 2)
    redriven = [*first, {"type": "ExecutionRedriven", "details": {}}, *_entered("B", "C", "A")]
    assert top_level_path(redriven, top)[-3:] == [("B", 2), ("C", 1), ("A", 3)]
    assert redrive_point(redriven, top, []) == ("A", 3)
    assert redrive_point(_entered("X"), top, []) is None
