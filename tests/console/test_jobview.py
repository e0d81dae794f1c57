"""The Job run page's model of a history: statuses per state, iterations, RunCommand rows."""

from __future__ import annotations

import json
from typing import Any

from cfnops.console._jobview import (
    fold,
    graph_elements,
    iteration_events,
    iterations,
    run_command_invocations,
)


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
        (9, "TaskScheduled", {"resource": "invoke"}),
        (10, "TaskFailed", {"error": "Fatal", "cause": "no"}),
        (11, "ExecutionFailed", {"error": "Fatal", "cause": "no"}),
    )
    views = fold(history)
    call, recover, last = views["Call"], views["Recover"], views["Last"]
    assert (call.status, call.retries, call.error, call.cause) == ("CAUGHT", 1, "Boom", "second")
    assert (recover.status, recover.output, recover.exited) == ("SUCCEEDED", {"ok": 1}, 1008.0)
    assert (last.status, last.error) == ("FAILED", "Fatal")


def test_map_iterations_are_told_apart_by_their_event_chain() -> None:
    def invocation(instance: str, out: str) -> dict[str, Any]:
        payload = {"CommandId": f"c-{instance}", "InstanceId": instance, "Status": "Success",
                   "ResponseCode": 0, "StandardOutputContent": out}  # fmt: skip
        return {"resource": "getCommandInvocation", "output": json.dumps(payload)}

    history = _history(
        (0, "MapStateEntered", {"name": "M", "input": "[]"}),
        (1, "MapIterationStarted", {"index": 0, "name": "M"}),
        (1, "MapIterationStarted", {"index": 1, "name": "M"}),
        (2, "TaskStateEntered", {"name": "Get", "input": '"a"'}),
        (3, "TaskStateEntered", {"name": "Get", "input": '"b"'}),
        (5, "TaskSucceeded", invocation("i-b", "from b")),
        (4, "TaskSucceeded", invocation("i-a", "from a")),
        (6, "TaskStateExited", {"name": "Get", "output": '"B"'}),
        (8, "MapIterationSucceeded", {"index": 1, "name": "M"}),
        (7, "TaskStateExited", {"name": "Get", "output": '"A"'}),
        (10, "MapIterationSucceeded", {"index": 0, "name": "M"}),
        (11, "MapStateExited", {"name": "M", "output": "[]"}),
    )
    assert iterations(history) == {"M": [0, 1]}
    first = fold(iteration_events(history, "M", 0))["Get"]
    second = fold(iteration_events(history, "M", 1))["Get"]
    assert (first.input, first.output) == ("a", "A")
    assert (second.input, second.output) == ("b", "B")
    rows = run_command_invocations(second, history)
    assert [(r["instanceId"], r["stdout"]) for r in rows] == [("i-b", "from b")]
    assert fold(history)["M"].status == "SUCCEEDED"


def test_graph_elements_nest_map_states_and_link_the_start() -> None:
    definition = {
        "StartAt": "M",
        "States": {
            "M": {
                "Type": "Map",
                "ItemProcessor": {"StartAt": "X", "States": {"X": {"Type": "Pass", "End": True}}},
                "Catch": [{"ErrorEquals": ["States.ALL"], "Next": "F"}],
                "End": True,
            },
            "F": {"Type": "Fail"},
        },
    }
    nodes = {
        e["data"]["id"]: e["data"] for e in graph_elements(definition) if "source" not in e["data"]
    }
    edges = {(e["data"]["source"], e["data"]["target"], e["data"]["label"])
             for e in graph_elements(definition) if "source" in e["data"]}  # fmt: skip
    assert nodes["M/iteration/X"]["parent"] == "M" and nodes["M"]["compound"] == "yes"
    assert ("__start", "M", "") in edges and ("M", "F", "catch") in edges
