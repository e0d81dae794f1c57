"""What the Job run page shows, from :func:`cfnops.jobs.derive_status` (the CLI's derivation).

A snapshot carries the run's status, each state's status (for the whole run, or
for one Map iteration / Parallel branch), the iteration table, the timeline and
the actions that apply. :func:`delta` keeps only what changed between two
snapshots: a live update sends that and the events after the last one sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cfnops.console.errors import BadFilter
from cfnops.jobs import RunRow, RunStatus, StateRun

ENDED = ("FAILED", "TIMED_OUT", "ABORTED")
TIMELINE_ROWS = 400  # iterations drawn on the timeline at most (the table has them all)


@dataclass(frozen=True)
class Scope:
    """The selection of ``?state=NAME&iteration=N`` (``map=`` names the Map/Parallel)."""

    state: str | None = None
    group: str | None = None
    iteration: int | None = None


def _groups(definition: Mapping[str, Any], parent: str | None = None) -> Iterator[tuple[str, str]]:
    """(state, enclosing Map/Parallel) for every nested state; top-level ones have none."""
    for name, state in (definition.get("States") or {}).items():
        if parent is not None:
            yield name, parent
        if not isinstance(state, Mapping):
            continue
        for branch in state.get("Branches") or []:
            yield from _groups(branch, name)
        for key in ("ItemProcessor", "Iterator"):
            if isinstance(state.get(key), Mapping):
                yield from _groups(state[key], name)


def group_names(definition: Mapping[str, Any]) -> set[str]:
    found: set[str] = set()
    stack = [definition]
    while stack:
        machine = stack.pop()
        for name, state in (machine.get("States") or {}).items():
            if isinstance(state, Mapping) and state.get("Type") in ("Map", "Parallel"):
                found.add(name)
            for branch in state.get("Branches") or [] if isinstance(state, Mapping) else []:
                stack.append(branch)
            for key in ("ItemProcessor", "Iterator"):
                if isinstance(state, Mapping) and isinstance(state.get(key), Mapping):
                    stack.append(state[key])
    return found


def parse_scope(params: Mapping[str, str], definition: Mapping[str, Any]) -> Scope:
    """``state``, ``iteration`` (``index`` too) and ``map`` checked against the definition."""
    state = params.get("state") or None
    text = params.get("iteration") or params.get("index") or None
    group = params.get("map") or None
    if text is None:
        return Scope(state)
    if not text.isdigit():
        raise BadFilter("iteration", text, "an iteration index (0, 1, 2, ...)")
    groups = group_names(definition)
    if group is None and state is not None:
        group = state if state in groups else dict(_groups(definition)).get(state)
    if group is None or group not in groups:
        shown = ", ".join(sorted(groups)) or "none"
        raise BadFilter("map", group or "", f"a Map or Parallel state of this job-net ({shown})")
    return Scope(state, group, int(text))


def scoped_states(derived: RunStatus, scope: Scope) -> dict[str, StateRun]:
    """Every state's view: the whole run's, with the chosen iteration's states over it."""
    states = dict(derived.overall)
    if scope.group is not None and scope.iteration is not None:
        found = derived.iteration(scope.group, scope.iteration)
        if found is None:
            raise BadFilter(
                "iteration",
                str(scope.iteration),
                f"an iteration of {scope.group} that ran "
                f"({len(derived.iterations.get(scope.group, []))} so far)",
            )
        states.update(found.states)
    return states


def actions(row: RunRow, held: bool, roles: frozenset[str]) -> list[str]:
    """The run-level actions that apply now (and that the token may use)."""
    if "operator" not in roles:
        return []
    found = ["rerun"] if row.status != "RUNNING" else []
    if row.status == "RUNNING":
        found += ["stop", "release" if held else "hold"]
    if row.status in ENDED:
        found.append("redrive")
    return found


def state_actions(row: RunRow, visit: StateRun | None, roles: frozenset[str]) -> list[str]:
    """The actions of a state's panel: skip a state not reached, force a Task that can be."""
    if "operator" not in roles:
        return []
    if visit is None:
        return ["skip"] if row.status == "RUNNING" else []
    if visit.type != "Task":
        return []
    running = visit.status == "RUNNING" and row.status == "RUNNING"
    failed_in = visit.status == "FAILED" and row.status in ENDED
    return ["force"] if running or failed_in else []


def _timeline(derived: RunStatus) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for name, view in derived.states.items():
        rows.append(_bar(name, None, view.status, view.entered, view.exited, view.retries))
        for it in derived.iterations.get(name, [])[:TIMELINE_ROWS]:
            label = f"{name} [{it.index}]"
            rows.append(_bar(label, (name, it.index), it.status, it.started, it.ended, it.retries))
    return rows


def _bar(
    label: str, key: tuple[str, int] | None, status: str, start: Any, end: Any, retries: int
) -> dict[str, Any]:
    bar = {"label": label, "status": status, "start": start, "end": end, "retries": retries}
    if key is not None:
        bar["map"], bar["iteration"] = key
    return bar


def snapshot(
    row: RunRow,
    derived: RunStatus,
    scope: Scope,
    held: bool,
    roles: frozenset[str],
    *,
    timeline: bool = False,
) -> dict[str, Any]:
    """Everything the page draws that can change while it is open (events apart).

    The timeline is fetched when its view is opened (``timeline=True``): the page and
    its live updates do not carry it otherwise.
    """
    states = scoped_states(derived, scope)
    found: dict[str, Any] = {
        "runId": row.run_id,
        "status": row.status,
        "error": row.error,
        "cause": row.cause,
        "held": held,
        "actions": actions(row, held, roles),
        "statuses": {name: v.status for name, v in states.items()},
        "retries": {name: v.retries for name, v in states.items() if v.retries},
        "iterations": {
            name: [_iteration_row(i) for i in runs] for name, runs in derived.iterations.items()
        },
        "lastEvent": derived.last_event,
    }
    if timeline:
        found["timeline"] = _timeline(derived)
    return found


def _iteration_row(it: Any) -> dict[str, Any]:
    return {"index": it.index, "status": it.status, "duration": it.duration,
            "error": it.error, "retries": it.retries, "kind": it.kind}  # fmt: skip


def delta(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> dict[str, Any]:
    """The keys of ``after`` that differ from ``before``; per state for statuses/retries."""
    if before is None:
        return dict(after)
    out: dict[str, Any] = {}
    for key, value in after.items():
        if value == before.get(key):
            continue
        if key in ("statuses", "retries") and isinstance(value, dict):
            old = before.get(key) or {}
            out[key] = {k: v for k, v in value.items() if old.get(k) != v}
            gone = [k for k in old if k not in value]
            if gone:
                out.setdefault("cleared", {})[key] = gone
        elif key == "iterations" and isinstance(value, dict):
            old = before.get(key) or {}
            changed: dict[str, list[Any]] = {}
            for name, rows in value.items():
                known = {r["index"]: r for r in old.get(name, [])}
                diff = [r for r in rows if known.get(r["index"]) != r]
                if diff:
                    changed[name] = diff
            out[key] = changed
        else:
            out[key] = value
    return out


def event_row(e: Mapping[str, Any]) -> dict[str, Any]:
    details = e.get("details") or {}
    text = json.dumps(details, ensure_ascii=False)
    return {
        "id": e["id"],
        "type": e["type"],
        "timestamp": e["timestamp"],
        "state": details.get("name", ""),
        "details": text if len(text) <= 400 else text[:400] + "…",
    }


def page_of(
    history: Sequence[Mapping[str, Any]], before: int | None, needle: str, limit: int
) -> tuple[list[dict[str, Any]], bool]:
    """Up to ``limit`` events older than ``before`` (newest first) matching ``needle``."""
    needle = needle.lower()
    out: list[dict[str, Any]] = []
    for e in reversed(history):
        if before is not None and int(e["id"]) >= before:
            continue
        found = event_row(e)
        if needle and needle not in f"{found['type']} {found['state']} {found['details']}".lower():
            continue
        if len(out) == limit:
            return out, True
        out.append(found)
    return out, False
