"""The Job run page's graph elements (statuses: tests/jobs/test_status.py)."""

from __future__ import annotations

import json
from typing import Any

from cfnops.console._jobview import graph_elements, run_command_invocations


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


def test_run_command_rows_come_from_the_runs_own_invocation_results() -> None:
    from cfnops.jobs import StateRun

    def result(instance: str, out: str) -> dict[str, Any]:
        payload = {"CommandId": "c-1", "InstanceId": instance, "Status": "Success",
                   "ResponseCode": 0, "StandardOutputContent": out}  # fmt: skip
        details = {"resource": "getCommandInvocation", "output": json.dumps(payload)}
        return {"type": "TaskSucceeded", "details": details}

    visit = StateRun("Send", "Task", "SUCCEEDED")
    visit.tasks = [{"resource": "sendCommand", "output": {"Command": {"CommandId": "c-1"}}}]
    rows = run_command_invocations(visit, [result("i-a", "from a"), result("i-b", "from b")])
    assert [(r["instanceId"], r["stdout"]) for r in rows] == [("i-a", "from a"), ("i-b", "from b")]
    pending = run_command_invocations(visit, [])
    assert pending == [{"commandId": "c-1", "instanceId": "-", "status": "Pending"}]
