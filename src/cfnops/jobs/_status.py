"""One derivation of a run's state statuses from its history (the CLI and the console use it).

Events are attributed by following ``previousEventId``: each event continues the
branch (and the Map iteration or Parallel branch) of the event it points at, so
the interleaved events of concurrent iterations land on the right state of the
right iteration. What it derives, per state visit:

- status: ``RUNNING``, ``SUCCEEDED``, ``FAILED``, ``CAUGHT`` (it failed and a
  Catch moved on; for a Map or Parallel, ``…StateFailed`` followed by its exit),
  ``ABORTED`` (``TaskStateAborted`` and the like: stopped because a sibling
  branch failed or the run was stopped; never the sibling's error); a run
  redriven after a failure turns its failed states back to ``RUNNING`` until
  they run again;
- attempts (retries = attempts - 1): every ``TaskScheduled`` or
  ``LambdaFunctionScheduled`` of the visit;
- error and cause of the last failure, entered and exited times, input, output;
  every visit, iteration and branch that has ended carries its end time.

Each Map iteration and Parallel branch gets its own states, status, times and
error. A Map iteration has its own end events; a Parallel branch has none, so it
ends SUCCEEDED when its ``End``/``Succeed`` state exits (with the definition) and
otherwise when its Parallel or the run ends, from what its own states did:
FAILED with its failed state's error, ABORTED when it was stopped, SUCCEEDED
(Step Functions' console shows a branch by what ran in it, never a succeeded
branch as failed). States inside a Map or
Parallel are summed up across iterations for the whole-run view (``counts``):
one failed iteration makes the state FAILED there, whatever the latest one did.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["IterationRun", "RunStatus", "StateRun", "decode_payload", "derive_status"]

_SCHEDULED = ("TaskScheduled", "LambdaFunctionScheduled", "ActivityScheduled")
_FAILED = (
    "TaskFailed", "TaskTimedOut", "LambdaFunctionFailed", "LambdaFunctionTimedOut",
    "LambdaFunctionScheduleFailed", "LambdaFunctionStartFailed", "TaskStartFailed",
    "TaskSubmitFailed", "ActivityFailed", "ActivityTimedOut", "ActivityScheduleFailed",
    "EvaluationFailed",
)  # fmt: skip
_SUCCEEDED = ("TaskSucceeded", "LambdaFunctionSucceeded", "ActivitySucceeded")
_GROUP_FAILED = ("MapStateFailed", "ParallelStateFailed", "MapRunFailed")
# A state stopped because a sibling branch failed or the run was stopped (Step
# Functions' history event types, API reference "HistoryEvent").
_ABORTED = ("TaskStateAborted", "MapStateAborted", "ParallelStateAborted", "WaitStateAborted")
_GROUP_ENDS = ("ParallelStateSucceeded", "ParallelStateFailed", "ParallelStateAborted")
_RUN_ENDS = {
    "ExecutionFailed": "FAILED",
    "ExecutionTimedOut": "FAILED",
    "ExecutionAborted": "ABORTED",
}
# Worst first: the whole-run view of a state inside a Map or Parallel.
_RANK = ("FAILED", "RUNNING", "ABORTED", "CAUGHT", "SUCCEEDED")


def decode_payload(value: Any) -> Any:
    """A history event's ``input``/``output`` detail as a value: JSON text is parsed,
    anything else (a value already, or text that is not JSON) is returned as it is."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


@dataclass
class StateRun:
    """The latest visit of one state in one scope (the run, or one iteration)."""

    name: str
    type: str
    status: str = "RUNNING"
    input: Any = None
    output: Any = None
    error: str | None = None
    cause: str | None = None
    entered: float | None = None
    exited: float | None = None
    attempts: int = 0
    visits: int = 0
    skipped: bool = False
    forced: bool = False
    tasks: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # iterations by status (nested)
    failed: bool = field(default=False, repr=False)  # failed since it was entered

    @property
    def retries(self) -> int:
        return max(0, self.attempts - 1)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "type": self.type, "status": self.status,
            "input": self.input, "output": self.output, "error": self.error,
            "cause": self.cause, "entered": self.entered, "exited": self.exited,
            "retries": self.retries, "visits": self.visits, "skipped": self.skipped,
            "forced": self.forced, **({"iterations": self.counts} if self.counts else {}),
        }  # fmt: skip


@dataclass
class IterationRun:
    """One Map iteration (``kind="map"``) or Parallel branch (``kind="parallel"``)."""

    state: str
    index: int
    kind: str
    status: str = "RUNNING"
    started: float | None = None
    ended: float | None = None
    error: str | None = None
    cause: str | None = None
    states: dict[str, StateRun] = field(default_factory=dict)

    @property
    def retries(self) -> int:
        return sum(s.retries for s in self.states.values())

    @property
    def duration(self) -> float | None:
        return None if self.started is None or self.ended is None else self.ended - self.started

    def to_json(self) -> dict[str, Any]:
        return {
            "state": self.state, "index": self.index, "kind": self.kind,
            "status": self.status, "started": self.started, "ended": self.ended,
            "duration": self.duration, "error": self.error, "cause": self.cause,
            "retries": self.retries,
            "states": {n: s.status for n, s in self.states.items()},
        }  # fmt: skip


@dataclass
class RunStatus:
    """A run's derived state: top-level states, iterations, and the whole-run view."""

    states: dict[str, StateRun]  # top-level states by name
    iterations: dict[str, list[IterationRun]]  # Map/Parallel state → its iterations
    overall: dict[str, StateRun]  # every state by name: top level, nested summed up
    last_event: int = 0

    def iteration(self, state: str, index: int) -> IterationRun | None:
        return next((i for i in self.iterations.get(state, []) if i.index == index), None)

    def statuses(self) -> dict[str, str]:
        return {name: view.status for name, view in self.overall.items()}


@dataclass
class _Cursor:
    """What an event id continues: its scope and the state visit open on its branch."""

    scope: _Scope
    visit: StateRun | None


@dataclass
class _Scope:
    states: dict[str, StateRun] = field(default_factory=dict)
    iteration: IterationRun | None = None
    parent: _Cursor | None = None  # the scope and Map/Parallel visit it runs under


def _fail(visit: StateRun, details: Mapping[str, Any], when: float) -> None:
    visit.failed, visit.exited = True, when  # ended here unless a retry starts it again
    visit.error, visit.cause = details.get("error"), details.get("cause")


def _close_failed_group(visit: StateRun, output: Any) -> None:
    """A Map or Parallel that failed and still exited: its Catch moved on."""
    visit.status = "CAUGHT"
    if visit.error is None and isinstance(output, Mapping) and "Error" in output:
        visit.error, visit.cause = output.get("Error"), output.get("Cause")


def derive_status(
    history: Iterable[Mapping[str, Any]], definition: Mapping[str, Any] | None = None
) -> RunStatus:
    """Fold a run's history events (oldest first) into a :class:`RunStatus`.

    ``definition`` tells which Parallel branch a branch's first state belongs to;
    without it, branches are numbered in the order they start.
    """
    fold = _Fold(definition)
    for event in history:
        fold.add(event)
    for runs in fold.iterations.values():
        runs.sort(key=lambda r: r.index)
    top = fold.top
    return RunStatus(top.states, fold.iterations, _overall(top, fold.iterations), fold.last)


_ITERATION_ENDS = {
    "MapIterationSucceeded": "SUCCEEDED",
    "MapIterationFailed": "FAILED",
    "MapIterationAborted": "ABORTED",
}


class _Fold:
    """The state of :func:`derive_status` while it reads the history, one event at a time."""

    def __init__(self, definition: Mapping[str, Any] | None) -> None:
        self.definition = definition
        self.top = _Scope()
        self.scopes: list[_Scope] = [self.top]
        self.cursors: dict[int, _Cursor] = {0: _Cursor(self.top, None)}
        self.iterations: dict[str, list[IterationRun]] = {}
        self.parallel_starts: dict[int, StateRun] = {}  # ParallelStateStarted id → the Parallel
        self.last = 0

    def add(self, event: Mapping[str, Any]) -> None:
        etype, eid = str(event["type"]), int(event["id"])
        details: Mapping[str, Any] = event.get("details") or {}
        when = float(event["timestamp"])
        prev = int(event.get("previousEventId") or 0)
        self.last = max(self.last, eid)
        scope, visit = self._locate(prev, etype, details, when)
        self.cursors[eid] = self._apply(eid, etype, details, when, scope, visit)

    def _locate(
        self, prev: int, etype: str, details: Mapping[str, Any], when: float
    ) -> tuple[_Scope, StateRun | None]:
        """The scope and open state visit an event continues (entering or leaving a branch)."""
        at = self.cursors.get(prev) or self.cursors[0]
        scope, visit = at.scope, at.visit
        if prev in self.parallel_starts and etype.endswith("StateEntered"):
            group = self.parallel_starts[prev]
            scope = _branch_scope(group, details, self.definition, self.iterations, when)
            scope.parent = _Cursor(at.scope, group)
            self.scopes.append(scope)
        while scope.parent is not None and _leaves(scope, etype, details):
            up = scope.parent
            scope, visit = up.scope, up.visit
        return scope, visit

    def _apply(
        self,
        eid: int,
        etype: str,
        details: Mapping[str, Any],
        when: float,
        scope: _Scope,
        visit: StateRun | None,
    ) -> _Cursor:
        """Apply one event; returns the cursor the events that follow it continue."""
        if etype == "MapIterationStarted":
            return self._start_iteration(scope, visit, details, when)
        if etype in _ITERATION_ENDS:
            return _end_iteration(scope, _ITERATION_ENDS[etype], when)
        if etype.endswith("StateEntered"):
            visit = _enter(scope, visit, etype, details, when)
        elif etype.endswith("StateExited") and visit is not None:
            _exit(scope, visit, details, when, self.definition)
            return _Cursor(scope, None)
        elif etype == "TaskForced":
            forced = _forced_task(self.scopes, visit, str(details.get("name")))
            if forced is not None:
                forced.forced = True
        elif visit is not None:
            _update_visit(visit, etype, details, when)
            if etype == "ParallelStateStarted":
                self.parallel_starts[eid] = visit
        self._settle_ends(etype, details, when, visit)
        return _Cursor(scope, visit)

    def _start_iteration(
        self, scope: _Scope, visit: StateRun | None, details: Mapping[str, Any], when: float
    ) -> _Cursor:
        index = int(details.get("index", 0))
        run = IterationRun(str(details.get("name")), index, "map", started=when)
        self.iterations.setdefault(run.state, []).append(run)
        sibling = scope.iteration is not None and scope.iteration.state == run.state
        parent = scope.parent if sibling and scope.parent else _Cursor(scope, visit)
        scope = _Scope(run.states, run, parent)
        self.scopes.append(scope)
        return _Cursor(scope, None)

    def _settle_ends(
        self, etype: str, details: Mapping[str, Any], when: float, visit: StateRun | None
    ) -> None:
        """What the end of a Parallel, the end of the run or a redrive does to other scopes."""
        if etype in _GROUP_ENDS and visit is not None:
            for branch in self.iterations.get(visit.name, []):
                _settle(branch, when)
        if etype in _RUN_ENDS:
            self._end_run(_RUN_ENDS[etype], details, when)
        if etype == "ExecutionRedriven":
            self._redrive()

    def _end_run(self, status: str, details: Mapping[str, Any], when: float) -> None:
        for each in self.scopes:
            if each.iteration is None:
                _end_open(each, status, details, when)
            elif each.iteration.status == "RUNNING":
                # Inside a branch or iteration: its own failure, else stopped with the run.
                _settle(each.iteration, when)
            else:
                _end_open(each, "ABORTED", None, when)

    def _redrive(self) -> None:
        for each in self.scopes:
            for view in each.states.values():
                if view.status in ("FAILED", "ABORTED"):
                    view.status = "RUNNING"
            if each.iteration is not None and each.iteration.status in ("FAILED", "ABORTED"):
                each.iteration.status = "RUNNING"


def _end_iteration(scope: _Scope, status: str, when: float) -> _Cursor:
    ending = scope.iteration
    if ending is not None:
        ending.ended = when
        ending.status = status
        _end_open(scope, ending.status, None, when)
        if ending.status == "FAILED":
            failing = next((s for s in scope.states.values() if s.status == "FAILED"), None)
            if failing is not None:
                ending.error, ending.cause = failing.error, failing.cause
    return scope.parent or _Cursor(scope, None)


def _enter(
    scope: _Scope, visit: StateRun | None, etype: str, details: Mapping[str, Any], when: float
) -> StateRun:
    """A state entered: a new visit (or the next visit of a state entered before)."""
    if visit is not None and visit.status == "RUNNING" and visit.failed:
        visit.status = "CAUGHT"  # left by a Catch without exiting
        visit.exited = when
    name = str(details.get("name"))
    visit = scope.states.get(name) or StateRun(name, etype[: -len("StateEntered")])
    visit.status, visit.output, visit.error, visit.cause = "RUNNING", None, None, None
    visit.input, visit.entered, visit.exited = decode_payload(details.get("input")), when, None
    visit.attempts, visit.tasks, visit.failed = 0, [], False
    visit.skipped = visit.forced = False
    visit.visits += 1
    scope.states[name] = visit
    return visit


def _exit(
    scope: _Scope,
    visit: StateRun,
    details: Mapping[str, Any],
    when: float,
    definition: Mapping[str, Any] | None,
) -> None:
    output = decode_payload(details.get("output"))
    if visit.failed and visit.type in ("Map", "Parallel"):
        _close_failed_group(visit, output)
    else:
        visit.status = "CAUGHT" if visit.failed else "SUCCEEDED"
    visit.output, visit.exited = output, when
    if _ends_branch(scope, visit, definition):
        assert scope.iteration is not None
        scope.iteration.status, scope.iteration.ended = "SUCCEEDED", when


def _update_visit(visit: StateRun, etype: str, details: Mapping[str, Any], when: float) -> None:
    """A task scheduled, failed, succeeded or aborted, or a state skipped, within a visit."""
    if etype in _SCHEDULED:
        visit.attempts, visit.exited = visit.attempts + 1, None
    elif etype in _FAILED or etype in _GROUP_FAILED:
        _fail(visit, details, when)
    elif etype in _SUCCEEDED:
        visit.failed, visit.error, visit.cause = False, None, None
        visit.tasks.append(
            {"resource": details.get("resource"), "output": decode_payload(details.get("output"))}
        )
    elif etype in _ABORTED:
        visit.status, visit.exited, visit.failed = "ABORTED", when, False
        visit.error = visit.cause = None
    elif etype == "StateSkipped":
        visit.skipped = True


def _forced_task(scopes: list[_Scope], visit: StateRun | None, name: str) -> StateRun | None:
    """The Task a ``TaskForced`` event ends: named in the event. cfnops links the event to
    the Task's own latest event; runs recorded before that linked it to the run's latest
    event, which can be another branch's while branches run side by side, so its link
    alone may point at the wrong state: then, among running Tasks of that name (Map
    iterations), the one entered last."""
    if visit is not None and visit.name == name:
        return visit
    running = [
        each.states[name]
        for each in scopes
        if name in each.states and each.states[name].status == "RUNNING"
    ]
    return max(running, key=lambda v: v.entered or 0.0, default=None)


def _leaves(scope: _Scope, etype: str, details: Mapping[str, Any]) -> bool:
    """Whether an event that points into an iteration belongs to the Map/Parallel itself."""
    run = scope.iteration
    if run is None:
        return False
    prefix = "Map" if run.kind == "map" else "Parallel"
    if etype in (f"{prefix}StateExited", f"{prefix}StateEntered"):
        return details.get("name") == run.state
    return etype.startswith((f"{prefix}State", f"{prefix}Run"))


def _branch_scope(
    parallel: StateRun,
    details: Mapping[str, Any],
    definition: Mapping[str, Any] | None,
    iterations: dict[str, list[IterationRun]],
    when: float,
) -> _Scope:
    """A Parallel branch starts: its index is the branch whose StartAt is this state."""
    known = iterations.setdefault(parallel.name, [])
    index = len(known)
    for i, branch in enumerate(_branches(definition, parallel.name)):
        if branch.get("StartAt") == details.get("name") and all(r.index != i for r in known):
            index = i
            break
    run = IterationRun(parallel.name, index, "parallel", started=when)
    known.append(run)
    return _Scope(run.states, run)


def _branches(definition: Mapping[str, Any] | None, name: str) -> list[Mapping[str, Any]]:
    if not definition:
        return []
    stack = [definition]
    while stack:
        machine = stack.pop()
        for state_name, state in (machine.get("States") or {}).items():
            if not isinstance(state, Mapping):
                continue
            branches = list(state.get("Branches") or [])
            if state_name == name and branches:
                return branches
            stack.extend(branches)
            for key in ("ItemProcessor", "Iterator"):
                if isinstance(state.get(key), Mapping):
                    stack.append(state[key])
    return []


def _end_open(scope: _Scope, status: str, details: Mapping[str, Any] | None, when: float) -> None:
    for view in scope.states.values():
        if view.status == "RUNNING":
            view.status = status
            view.exited = view.exited if view.exited is not None else when
            if status == "FAILED" and view.error is None and details is not None:
                view.error, view.cause = details.get("error"), details.get("cause")


def _settle(run: IterationRun, when: float) -> None:
    """A branch or iteration ends with its group or the run: from what its own states did.

    Its failed state makes it FAILED with that state's error and cause; a state
    still running (or aborted) means it was stopped: ABORTED, its open states too;
    otherwise it SUCCEEDED (Step Functions shows a branch by what ran in it).
    """
    if run.status != "RUNNING":
        return
    views = list(run.states.values())
    failing = next(
        (v for v in views if v.status == "FAILED" or (v.failed and v.status == "RUNNING")), None
    )
    for view in views:
        if view.status == "RUNNING":
            view.status = "FAILED" if view is failing else "ABORTED"
            view.exited = view.exited if view.exited is not None else when
    ended = [v.exited for v in views if v.exited is not None]
    run.ended = max(ended) if ended else when
    if failing is not None:
        run.status, run.error, run.cause = "FAILED", failing.error, failing.cause
    elif any(v.status == "ABORTED" for v in views) or not views:
        run.status = "ABORTED"
    else:
        run.status = "SUCCEEDED"


def _ends_branch(scope: _Scope, visit: StateRun, definition: Mapping[str, Any] | None) -> bool:
    """Whether ``visit`` just ended its Parallel branch (an ``End`` or ``Succeed`` state)."""
    run = scope.iteration
    if run is None or run.kind != "parallel" or visit.status != "SUCCEEDED":
        return False
    branches = _branches(definition, run.state)
    if run.index >= len(branches):
        return False
    state = (branches[run.index].get("States") or {}).get(visit.name)
    return isinstance(state, Mapping) and (bool(state.get("End")) or state.get("Type") == "Succeed")


def _overall(top: _Scope, iterations: dict[str, list[IterationRun]]) -> dict[str, StateRun]:
    """Top-level states as they are; nested ones summed up over their iterations."""
    out = dict(top.states)
    nested: dict[str, list[StateRun]] = {}
    for runs in iterations.values():
        for run in runs:
            for name, view in run.states.items():
                nested.setdefault(name, []).append(view)
    for name, views in nested.items():
        if name in out:
            continue
        counts: dict[str, int] = {}
        for view in views:
            counts[view.status] = counts.get(view.status, 0) + 1
        worst = min(views, key=lambda v: _RANK.index(v.status) if v.status in _RANK else 99)
        latest = max(views, key=lambda v: v.entered or 0)
        # Times span the iterations: first entered, and (once the summed-up status has
        # ended, e.g. FAILED while other iterations still run) the last end among them.
        entered = min((v.entered for v in views if v.entered is not None), default=None)
        ends = [v.exited for v in views if v.exited is not None and v.status != "RUNNING"]
        exited = None if worst.status == "RUNNING" else max(ends, default=latest.exited)
        summary = StateRun(
            name, latest.type, worst.status, latest.input, latest.output,
            worst.error, worst.cause, entered, exited,
            attempts=sum(v.retries for v in views) + 1,
            visits=sum(v.visits for v in views), tasks=latest.tasks, counts=counts,
            skipped=any(v.skipped for v in views), forced=any(v.forced for v in views),
        )  # fmt: skip
        out[name] = summary
    return out
