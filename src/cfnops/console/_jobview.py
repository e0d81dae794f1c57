"""A job run as the Job run page draws it: graph elements and SSM RunCommand rows.

State statuses come from :func:`cfnops.jobs.derive_status` (see ``_jobdata``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from cfnops.asl import transitions
from cfnops.jobs import StateRun, decode_payload


def run_command_invocations(
    visit: StateRun, history: Iterable[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """SSM RunCommand per instance, for a sendCommand or getCommandInvocation state.

    The instances' status and output come from the run's own getCommandInvocation
    results for the command id (the console reads the run store, not AWS).
    """
    command_ids: set[str] = set()
    for task in visit.tasks:
        out = task.get("output")
        if not isinstance(out, dict):
            continue
        if task.get("resource") == "sendCommand" and isinstance(out.get("Command"), dict):
            command_ids.add(str(out["Command"].get("CommandId")))
        if task.get("resource") == "getCommandInvocation" and out.get("CommandId"):
            command_ids.add(str(out["CommandId"]))
    if not command_ids:
        return []
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for event in history:
        d = event.get("details") or {}
        if event["type"] != "TaskSucceeded" or d.get("resource") != "getCommandInvocation":
            continue
        out = decode_payload(d.get("output"))
        if isinstance(out, dict) and str(out.get("CommandId")) in command_ids:
            found[(str(out["CommandId"]), str(out.get("InstanceId")))] = {
                "commandId": out.get("CommandId"),
                "instanceId": out.get("InstanceId"),
                "status": out.get("Status"),
                "responseCode": out.get("ResponseCode"),
                "stdout": out.get("StandardOutputContent") or "",
                "stderr": out.get("StandardErrorContent") or "",
            }
    if not found:  # sent, not read back yet
        return [
            {"commandId": c, "instanceId": "-", "status": "Pending"} for c in sorted(command_ids)
        ]
    return list(found.values())


def _nested(state: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for i, branch in enumerate(state.get("Branches", []) or []):
        yield f"branch {i}", branch
    for key in ("ItemProcessor", "Iterator"):
        if isinstance(state.get(key), Mapping):
            yield "iteration", state[key]


def graph_elements(definition: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Cytoscape.js elements: a node per state (Map/Parallel as compound nodes), edges."""
    elements: list[dict[str, Any]] = [{"data": {"id": "__start", "label": "Start", "kind": "end"}}]

    def machine(defn: Mapping[str, Any], prefix: str, parent: str | None) -> None:
        states = defn.get("States", {}) or {}
        for name, state in states.items():
            node = {"id": prefix + name, "name": name, "label": f"{name}\n{state.get('Type')}"}
            if parent:
                node["parent"] = parent
            nested = list(_nested(state))
            if nested:
                node["compound"] = "yes"
            elements.append({"data": node})
            for label, sub in nested:
                box = f"{prefix}{name}/{label}"
                inner_parent = prefix + name if len(nested) == 1 else box
                if len(nested) > 1:
                    elements.append({"data": {"id": box, "label": label, "parent": prefix + name}})
                machine(sub, box + "/", inner_parent)
        for src, dst, label, _ in transitions(states):
            if dst in states:
                elements.append(
                    {"data": {"id": f"{prefix}{src}->{dst}:{label}", "source": prefix + src,
                              "target": prefix + dst, "label": label}}
                )  # fmt: skip

    machine(definition, "", None)
    start = str(definition.get("StartAt", ""))
    elements.append(
        {"data": {"id": "__start->", "source": "__start", "target": start, "label": ""}}
    )
    return elements
