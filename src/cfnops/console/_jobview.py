"""A job run as the Job run page shows it: graph elements, state panels, iterations.

History events are attributed to states by following ``previousEventId``: each
event continues the branch of the event it points at, so the interleaved events
of concurrent Map iterations still land on the right state. A Map iteration is
the events reachable from its ``MapIterationStarted`` up to its end event.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

_FAILED = ("TaskFailed", "TaskTimedOut", "LambdaFunctionFailed", "LambdaFunctionTimedOut")
_SUCCEEDED = ("TaskSucceeded", "LambdaFunctionSucceeded")


def _load(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


@dataclass
class Visit:
    """The latest visit of one state, with what the page's state panel shows."""

    name: str
    type: str
    status: str = "RUNNING"  # RUNNING SUCCEEDED FAILED CAUGHT ABORTED
    input: Any = None
    output: Any = None
    error: str | None = None
    cause: str | None = None
    entered: float | None = None
    exited: float | None = None
    attempts: int = 0
    visits: int = 0
    tasks: list[dict[str, Any]] = field(default_factory=list)

    @property
    def retries(self) -> int:
        return max(0, self.attempts - 1)


def fold(history: Iterable[Mapping[str, Any]]) -> dict[str, Visit]:
    """One :class:`Visit` per state name (the latest visit), attributing by event chain."""
    visits: dict[str, Visit] = {}
    owner: dict[int, Visit | None] = {}
    failure: dict[int, tuple[str | None, str | None]] = {}
    for event in history:
        etype, eid = str(event["type"]), int(event["id"])
        details = event.get("details") or {}
        current = owner.get(int(event.get("previousEventId") or 0))
        if etype.endswith("StateEntered"):
            if current is not None and current.status == "RUNNING" and id(current) in failure:
                current.status = "CAUGHT"  # left by a Catch without exiting
            name = str(details.get("name"))
            view = visits.get(name) or Visit(name, etype[: -len("StateEntered")])
            view.status, view.output, view.error, view.cause = "RUNNING", None, None, None
            view.input, view.entered, view.exited = (
                _load(details.get("input")),
                event["timestamp"],
                None,
            )
            view.attempts, view.tasks = 0, []
            view.visits += 1
            failure.pop(id(view), None)
            visits[name] = view
            current = view
        elif etype.endswith("StateExited") and str(details.get("name")) in visits:
            done = visits[str(details.get("name"))]
            done.status = "CAUGHT" if id(done) in failure else "SUCCEEDED"
            done.output, done.exited = _load(details.get("output")), event["timestamp"]
            owner[eid] = None  # the branch is between states until the next one is entered
            continue
        elif current is not None and etype == "TaskScheduled":
            current.attempts += 1
        elif current is not None and etype in _FAILED:
            failure[id(current)] = (details.get("error"), details.get("cause"))
            current.error, current.cause = failure[id(current)]
        elif current is not None and etype in _SUCCEEDED:
            failure.pop(id(current), None)
            current.error = current.cause = None
            current.tasks.append(
                {"resource": details.get("resource"), "output": _load(details.get("output"))}
            )
        if etype in ("ExecutionFailed", "ExecutionAborted", "ExecutionTimedOut"):
            for view in visits.values():
                if view.status == "RUNNING":
                    view.status = "ABORTED" if etype == "ExecutionAborted" else "FAILED"
                    if view.status == "FAILED" and view.error is None:
                        view.error, view.cause = details.get("error"), details.get("cause")
        owner[eid] = current
    return visits


def iterations(history: Iterable[Mapping[str, Any]]) -> dict[str, list[int]]:
    """Map and Parallel states that ran, with the iteration (branch) indexes seen."""
    found: dict[str, set[int]] = {}
    for event in history:
        if event["type"] == "MapIterationStarted":
            d = event.get("details") or {}
            found.setdefault(str(d.get("name")), set()).add(int(d.get("index", 0)))
    return {name: sorted(idx) for name, idx in found.items()}


def iteration_events(
    history: Iterable[Mapping[str, Any]], map_name: str, index: int
) -> list[Mapping[str, Any]]:
    """The events of one Map iteration, from its start to its end."""
    members: set[int] = set()
    out: list[Mapping[str, Any]] = []
    for event in history:
        etype, details = str(event["type"]), event.get("details") or {}
        is_iter = etype.startswith("MapIteration") and details.get("name") == map_name
        if is_iter and etype == "MapIterationStarted" and details.get("index") == index:
            members.add(int(event["id"]))
            out.append(event)
        elif members and int(event.get("previousEventId") or 0) in members:
            if is_iter:  # another iteration's start, or this one's end: not followed
                if details.get("index") == index:
                    out.append(event)
                continue
            members.add(int(event["id"]))
            out.append(event)
    return out


def run_command_invocations(
    visit: Visit, history: Iterable[Mapping[str, Any]]
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
        out = _load(d.get("output"))
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
        for src, dst, label in _edges(states):
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


def _edges(states: Mapping[str, Any]) -> Iterator[tuple[str, str, str]]:
    for name, state in states.items():
        if "Next" in state:
            yield name, str(state["Next"]), ""
        for rule in state.get("Choices", []) or []:
            if "Next" in rule:
                yield name, str(rule["Next"]), "choice"
        if "Default" in state:
            yield name, str(state["Default"]), "default"
        for catcher in state.get("Catch", []) or []:
            yield name, str(catcher.get("Next")), "catch"
