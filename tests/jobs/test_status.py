"""The one status derivation (``job show`` and the console): retries, catches, iterations."""

from __future__ import annotations

import json
from typing import Any

from cfnops.jobs import derive_status
from cfnops.jobs._views import state_views


def _history(*events: tuple[int, str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Events as (previous id, type, details); ids count from 1, one second apart."""
    return [
        {"id": i, "previousEventId": prev, "type": etype, "timestamp": 1000.0 + i, "details": d}
        for i, (prev, etype, d) in enumerate(events, 1)
    ]


def test_caught_failed_and_retried_states() -> None:
    history = _history(
        (0, "ExecutionStarted", {}),
        (1, "TaskStateEntered", {"name": "Call", "input": "{}"}),
        (2, "TaskScheduled", {"resource": "invoke"}),
        (3, "TaskFailed", {"error": "Boom", "cause": "first"}),
        (4, "TaskScheduled", {"resource": "invoke"}),
        (5, "TaskFailed", {"error": "Boom", "cause": "second"}),
        # Caught: the next state starts on the same branch without the Task exiting.
        (6, "PassStateEntered", {"name": "Recover", "input": "{}"}),
        (7, "PassStateExited", {"name": "Recover", "output": '{"ok": 1}'}),
        (8, "TaskStateEntered", {"name": "Last", "input": "{}"}),
        (9, "LambdaFunctionScheduled", {"resource": "fn"}),
        (10, "LambdaFunctionFailed", {"error": "Fatal", "cause": "no"}),
        (11, "ExecutionFailed", {"error": "Fatal", "cause": "no"}),
    )
    views = derive_status(history).states
    call, recover, last = views["Call"], views["Recover"], views["Last"]
    assert (call.status, call.retries, call.error, call.cause) == ("CAUGHT", 1, "Boom", "second")
    assert (recover.status, recover.output, recover.exited) == ("SUCCEEDED", {"ok": 1}, 1008.0)
    assert (last.status, last.error, last.retries) == ("FAILED", "Fatal", 0)
    assert state_views(history)["Call"].to_json()["retries"] == 1  # the CLI's view: the same


def _map_history() -> list[dict[str, Any]]:
    """Map M, two iterations interleaved: 0 retries and succeeds, 1 fails twice uncaught;
    the Map fails and its Catch goes on to F (the run then fails there)."""
    return _history(
        (0, "MapStateEntered", {"name": "M", "input": "[]"}),  # 1
        (1, "MapStateStarted", {}),  # 2
        (2, "MapIterationStarted", {"index": 0, "name": "M"}),  # 3
        (3, "MapIterationStarted", {"index": 1, "name": "M"}),  # 4
        (3, "TaskStateEntered", {"name": "Get", "input": '"a"'}),  # 5
        (4, "TaskStateEntered", {"name": "Get", "input": '"b"'}),  # 6
        (5, "LambdaFunctionScheduled", {}),  # 7
        (6, "LambdaFunctionScheduled", {}),  # 8
        (7, "LambdaFunctionFailed", {"error": "Flaky", "cause": "once"}),  # 9
        (8, "LambdaFunctionFailed", {"error": "Fatal", "cause": "b1"}),  # 10
        (9, "LambdaFunctionScheduled", {}),  # 11
        (10, "LambdaFunctionScheduled", {}),  # 12
        (11, "LambdaFunctionSucceeded", {"output": '"A"'}),  # 13
        (12, "LambdaFunctionFailed", {"error": "Fatal", "cause": "b2"}),  # 14
        (13, "TaskStateExited", {"name": "Get", "output": '"A"'}),  # 15
        (15, "MapIterationSucceeded", {"index": 0, "name": "M"}),  # 16
        (14, "MapIterationFailed", {"index": 1, "name": "M"}),  # 17
        (17, "MapStateFailed", {}),  # 18
        (18, "MapStateExited", {"name": "M", "output": '{"Error": "Fatal", "Cause": "b2"}'}),
        (19, "FailStateEntered", {"name": "F"}),  # 20
        (20, "ExecutionFailed", {"error": "Report", "cause": "failed"}),  # 21
    )


def test_a_caught_map_and_its_iterations() -> None:
    derived = derive_status(_map_history())
    assert (derived.states["M"].status, derived.states["M"].error) == ("CAUGHT", "Fatal")
    assert derived.states["F"].status == "FAILED"
    first, second = derived.iterations["M"]
    assert (first.status, first.retries, first.duration) == ("SUCCEEDED", 1, 13.0)
    assert (first.states["Get"].status, first.states["Get"].output) == ("SUCCEEDED", "A")
    assert (second.status, second.error, second.cause, second.retries) == (
        "FAILED", "Fatal", "b2", 1,
    )  # fmt: skip
    assert second.states["Get"].status == "FAILED"  # not RUNNING: its iteration failed
    # The whole run's view of Get: the worst of its iterations, retries summed.
    summary = derived.overall["Get"]
    assert (summary.status, summary.retries, summary.counts) == (
        "FAILED", 2, {"SUCCEEDED": 1, "FAILED": 1},
    )  # fmt: skip
    assert "Get" not in derived.states and derived.last_event == 21


def test_parallel_branches_and_a_redrive() -> None:
    definition = {"StartAt": "P", "States": {"P": {"Type": "Parallel", "End": True, "Branches": [
        {"StartAt": "L", "States": {"L": {"Type": "Pass", "End": True}}},
        {"StartAt": "R", "States": {"R": {"Type": "Task", "Resource": "x", "End": True}}},
    ]}}}  # fmt: skip
    history = _history(
        (0, "ParallelStateEntered", {"name": "P"}),  # 1
        (1, "ParallelStateStarted", {}),  # 2
        (2, "TaskStateEntered", {"name": "R"}),  # 3: branch 1 starts first
        (2, "PassStateEntered", {"name": "L"}),  # 4
        (4, "PassStateExited", {"name": "L", "output": "1"}),  # 5
        (3, "TaskScheduled", {}),  # 6
        (6, "TaskFailed", {"error": "E", "cause": "c"}),  # 7
        (7, "ParallelStateFailed", {}),  # 8
        (8, "ExecutionFailed", {"error": "E", "cause": "c"}),  # 9
    )
    derived = derive_status(history, definition)
    left, right = derived.iterations["P"]
    assert (left.index, left.states["L"].status) == (0, "SUCCEEDED")
    assert (right.index, right.states["R"].status, right.status) == (1, "FAILED", "FAILED")
    assert derived.states["P"].status == "FAILED"
    redriven = [*history, {"id": 10, "previousEventId": 9, "type": "ExecutionRedriven",
                           "timestamp": 1010.0, "details": {}}]  # fmt: skip
    again = derive_status(redriven, definition)
    assert again.states["P"].status == "RUNNING" and again.overall["R"].status == "RUNNING"


def test_the_map_run_json_is_plain() -> None:
    derived = derive_status(_map_history())
    text = json.dumps([i.to_json() for i in derived.iterations["M"]])
    assert '"status": "FAILED"' in text and '"retries": 1' in text
