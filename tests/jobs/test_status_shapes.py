"""derive_status over Parallel / Map / nested shapes and outcomes: Step Functions' semantics.

Each case is a history written as Step Functions records it (event types and
``previousEventId`` links from the API reference's ``HistoryEvent``,
https://docs.aws.amazon.com/step-functions/latest/apireference/API_HistoryEvent.html)
and what Step Functions' console shows for it: a branch or iteration by what ran
in it, a state aborted by a sibling's failure or a stop as ABORTED without any
error, a retried state with its retry count, a redriven run's failed states
running again. The expected values are written out, not computed.
"""

from __future__ import annotations

from typing import Any

import pytest

from cfnops.jobs import derive_status


class _H:
    """A history under construction: ``add(prev, type, **details)`` returns the event id."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def add(self, prev: int, etype: str, **details: Any) -> int:
        eid = len(self.events) + 1
        self.events.append(
            {"id": eid, "previousEventId": prev, "type": etype,
             "timestamp": 1000.0 + eid, "details": details}
        )  # fmt: skip
        return eid


def _task(h: _H, prev: int, name: str, *outcomes: str) -> int:
    """A Task visit: one LambdaFunctionScheduled per outcome ("ok", "fail:E", "abort")."""
    at = h.add(prev, "TaskStateEntered", name=name, input="{}")
    for outcome in outcomes:
        if outcome == "abort":
            return h.add(at, "TaskStateAborted")
        at = h.add(at, "LambdaFunctionScheduled", resource=name)
        if outcome == "ok":
            at = h.add(at, "LambdaFunctionSucceeded", output='"done"')
            return h.add(at, "TaskStateExited", name=name, output='"done"')
        at = h.add(at, "LambdaFunctionFailed", error=outcome[5:], cause=f"{name} broke")
    return at


PAR = {"StartAt": "P", "States": {"P": {"Type": "Parallel", "End": True, "Branches": [
    {"StartAt": "X", "States": {"X": {"Type": "Task", "Resource": "x", "End": True}}},
    {"StartAt": "Y", "States": {"Y": {"Type": "Task", "Resource": "y", "End": True}}},
]}}}  # fmt: skip


def _parallel(x: tuple[str, ...], y: tuple[str, ...], end: str) -> list[dict[str, Any]]:
    h = _H()
    h.add(0, "ExecutionStarted")
    entered = h.add(1, "ParallelStateEntered", name="P", input="{}")
    started = h.add(entered, "ParallelStateStarted")
    _task(h, started, "X", *x)
    _task(h, started, "Y", *y)
    if end == "succeeded":
        done = h.add(started, "ParallelStateSucceeded")
        done = h.add(done, "ParallelStateExited", name="P", output="[]")
        h.add(done, "ExecutionSucceeded")
    elif end == "caught":
        done = h.add(started, "ParallelStateFailed", error="E", cause="Y broke")
        done = h.add(done, "ParallelStateExited", name="P", output='{"Error": "E"}')
        h.add(done, "ExecutionSucceeded")
    elif end == "stopped":
        h.add(started, "ExecutionAborted")
    else:
        done = h.add(started, "ParallelStateFailed", error="E", cause="Y broke")
        last = h.add(done, "ExecutionFailed", error="E", cause="Y broke")
        if end == "redriven":
            h.add(last, "ExecutionRedriven")
    return h.events


def _map(first: tuple[str, ...], second: tuple[str, ...], ends: tuple[str, str]) -> list[Any]:
    h = _H()
    h.add(0, "ExecutionStarted")
    entered = h.add(1, "MapStateEntered", name="M", input="[]")
    started = h.add(entered, "MapStateStarted")
    for index, (outcome, end) in enumerate(((first, ends[0]), (second, ends[1]))):
        it = h.add(started, "MapIterationStarted", index=index, name="M")
        last = _task(h, it, "W", *outcome)
        h.add(last, f"MapIteration{end}", index=index, name="M")
    if "Failed" in ends:
        failed = h.add(started, "MapStateFailed", error="E", cause="W broke")
        h.add(failed, "ExecutionFailed", error="E", cause="W broke")
    else:
        done = h.add(started, "MapStateSucceeded")
        done = h.add(done, "MapStateExited", name="M", output="[]")
        h.add(done, "ExecutionSucceeded")
    return h.events


def _nested() -> list[dict[str, Any]]:
    """Parallel P: branch 0 a Map N whose iteration 1 fails; branch 1 Task Z, aborted."""
    h = _H()
    h.add(0, "ExecutionStarted")
    started = h.add(h.add(1, "ParallelStateEntered", name="P", input="{}"), "ParallelStateStarted")
    m_started = h.add(h.add(started, "MapStateEntered", name="N", input="[]"), "MapStateStarted")
    z = h.add(started, "TaskStateEntered", name="Z", input="{}")
    z = h.add(z, "LambdaFunctionScheduled", resource="z")
    for index, outcome in ((0, "ok"), (1, "fail:Boom")):
        it = h.add(m_started, "MapIterationStarted", index=index, name="N")
        last = _task(h, it, "W", outcome)
        h.add(last, "MapIterationSucceeded" if outcome == "ok" else "MapIterationFailed",
              index=index, name="N")  # fmt: skip
    h.add(m_started, "MapStateFailed", error="Boom", cause="W broke")
    h.add(z, "TaskStateAborted")
    failed = h.add(started, "ParallelStateFailed", error="Boom", cause="W broke")
    h.add(failed, "ExecutionFailed", error="Boom", cause="W broke")
    return h.events


def _forced(ok: bool, own_link: bool = True) -> list[dict[str, Any]]:
    """Parallel P: X and Y run; an operator forces Y (``cfnops job force``). cfnops
    records ``TaskForced`` after Y's own latest event, then Y's own answer as its Task
    ends. Runs recorded before that (``own_link=False``) have it after the run's latest
    event, which here is X's (the branches run side by side)."""
    h = _H()
    h.add(0, "ExecutionStarted")
    started = h.add(h.add(1, "ParallelStateEntered", name="P", input="{}"), "ParallelStateStarted")
    y = h.add(h.add(started, "TaskStateEntered", name="Y", input="{}"), "LambdaFunctionScheduled")
    x = h.add(h.add(started, "TaskStateEntered", name="X", input="{}"), "LambdaFunctionScheduled")
    link = y if own_link else x
    if ok:
        h.add(link, "TaskForced", name="Y", status="SUCCEEDED", output='"by hand"', actor="ops")
        y = h.add(y, "LambdaFunctionSucceeded", output='"by hand"')
        h.add(y, "TaskStateExited", name="Y", output='"by hand"')
        x = h.add(x, "LambdaFunctionSucceeded", output='"done"')
        h.add(x, "TaskStateExited", name="X", output='"done"')
        done = h.add(started, "ParallelStateSucceeded")
        h.add(h.add(done, "ParallelStateExited", name="P", output="[]"), "ExecutionSucceeded")
        return h.events
    h.add(link, "TaskForced", name="Y", status="FAILED", error="Operator.Failed", actor="ops")
    h.add(y, "LambdaFunctionFailed", error="Operator.Failed", cause="hung")
    h.add(x, "TaskStateAborted")
    failed = h.add(started, "ParallelStateFailed", error="Operator.Failed", cause="hung")
    h.add(failed, "ExecutionFailed", error="Operator.Failed", cause="hung")
    return h.events


def _skipped_iteration() -> list[dict[str, Any]]:
    """Map M: iteration 0's W runs; iteration 1's W is skipped by an operator (entered
    and left with the given output, never called)."""
    h = _H()
    h.add(0, "ExecutionStarted")
    started = h.add(h.add(1, "MapStateEntered", name="M", input="[]"), "MapStateStarted")
    first = h.add(started, "MapIterationStarted", index=0, name="M")
    h.add(_task(h, first, "W", "ok"), "MapIterationSucceeded", index=0, name="M")
    second = h.add(started, "MapIterationStarted", index=1, name="M")
    at = h.add(second, "TaskStateEntered", name="W", input="{}")
    at = h.add(at, "StateSkipped", name="W", output='"skipped"', actor="ops")
    at = h.add(at, "TaskStateExited", name="W", output='"skipped"')
    h.add(at, "MapIterationSucceeded", index=1, name="M")
    done = h.add(h.add(started, "MapStateSucceeded"), "MapStateExited", name="M", output="[]")
    h.add(done, "ExecutionSucceeded")
    return h.events


RERUN = {"StartAt": "A", "States": {
    "A": {"Type": "Task", "Resource": "a", "Next": "M"},
    "M": {"Type": "Map", "End": True, "ItemProcessor": {
        "StartAt": "W", "States": {"W": {"Type": "Task", "Resource": "w", "End": True}}}},
}}  # fmt: skip


def _rerun_from_map() -> list[dict[str, Any]]:
    """``cfnops job rerun --from M --map-iterations failed`` of a run whose iteration 1
    failed: a new run that starts at M (A is not run again: its entry links to no
    event, as cfnops records it); iteration 0 replays its recorded result, iteration 1
    runs again and now succeeds after one retry."""
    h = _H()
    h.add(0, "ExecutionStarted")
    started = h.add(h.add(0, "MapStateEntered", name="M", input="[]"), "MapStateStarted")
    for index, outcome in ((0, ("ok",)), (1, ("fail:E", "ok"))):
        it = h.add(started, "MapIterationStarted", index=index, name="M")
        h.add(_task(h, it, "W", *outcome), "MapIterationSucceeded", index=index, name="M")
    done = h.add(h.add(started, "MapStateSucceeded"), "MapStateExited", name="M", output="[]")
    h.add(done, "ExecutionSucceeded")
    return h.events


NESTED = {"StartAt": "P", "States": {"P": {"Type": "Parallel", "End": True, "Branches": [
    {"StartAt": "N", "States": {"N": {"Type": "Map", "End": True, "ItemProcessor": {
        "StartAt": "W", "States": {"W": {"Type": "Task", "Resource": "w", "End": True}}}}}},
    {"StartAt": "Z", "States": {"Z": {"Type": "Task", "Resource": "z", "End": True}}},
]}}}  # fmt: skip

# id, history, definition, group → [(status, retries, error)], states → (status, retries, error)
CASES = [
    ("parallel-success", _parallel(("ok",), ("ok",), "succeeded"), PAR,
     {"P": [("SUCCEEDED", 0, None), ("SUCCEEDED", 0, None)]},
     {"P": ("SUCCEEDED", 0, None), "X": ("SUCCEEDED", 0, None), "Y": ("SUCCEEDED", 0, None)}),
    ("parallel-retried", _parallel(("ok",), ("fail:E", "ok"), "succeeded"), PAR,
     {"P": [("SUCCEEDED", 0, None), ("SUCCEEDED", 1, None)]},
     {"Y": ("SUCCEEDED", 1, None)}),
    ("parallel-failed", _parallel(("ok",), ("fail:E", "fail:E"), "failed"), PAR,
     {"P": [("SUCCEEDED", 0, None), ("FAILED", 1, "E")]},
     {"P": ("FAILED", 0, "E"), "X": ("SUCCEEDED", 0, None), "Y": ("FAILED", 1, "E")}),
    ("parallel-aborted", _parallel(("abort",), ("fail:E",), "failed"), PAR,
     {"P": [("ABORTED", 0, None), ("FAILED", 0, "E")]},
     {"X": ("ABORTED", 0, None), "Y": ("FAILED", 0, "E")}),
    ("parallel-caught", _parallel(("ok",), ("fail:E",), "caught"), PAR,
     {"P": [("SUCCEEDED", 0, None), ("FAILED", 0, "E")]},
     {"P": ("CAUGHT", 0, "E"), "Y": ("FAILED", 0, "E")}),
    ("parallel-stopped", _parallel(("ok",), (), "stopped"), PAR,
     {"P": [("SUCCEEDED", 0, None), ("ABORTED", 0, None)]},
     {"P": ("ABORTED", 0, None), "Y": ("ABORTED", 0, None)}),
    ("parallel-redriven", _parallel(("ok",), ("fail:E",), "redriven"), PAR,
     {"P": [("SUCCEEDED", 0, None), ("RUNNING", 0, "E")]},
     {"P": ("RUNNING", 0, "E"), "X": ("SUCCEEDED", 0, None), "Y": ("RUNNING", 0, "E")}),
    ("map-success", _map(("ok",), ("fail:E", "ok"), ("Succeeded", "Succeeded")), None,
     {"M": [("SUCCEEDED", 0, None), ("SUCCEEDED", 1, None)]},
     {"M": ("SUCCEEDED", 0, None), "W": ("SUCCEEDED", 1, None)}),
    ("map-failed", _map(("ok",), ("fail:E", "fail:E"), ("Succeeded", "Failed")), None,
     {"M": [("SUCCEEDED", 0, None), ("FAILED", 1, "E")]},
     {"M": ("FAILED", 0, "E"), "W": ("FAILED", 1, "E")}),
    ("map-aborted", _map(("abort",), ("fail:E",), ("Aborted", "Failed")), None,
     {"M": [("ABORTED", 0, None), ("FAILED", 0, "E")]},
     {"W": ("FAILED", 0, "E")}),
    ("nested", _nested(), NESTED,
     {"P": [("FAILED", 0, "Boom"), ("ABORTED", 0, None)],
      "N": [("SUCCEEDED", 0, None), ("FAILED", 0, "Boom")]},
     {"P": ("FAILED", 0, "Boom"), "N": ("FAILED", 0, "Boom"), "Z": ("ABORTED", 0, None)}),
    # forced: the Task ends as the operator said; it alone carries the mark
    ("parallel-forced", _forced(True), PAR,
     {"P": [("SUCCEEDED", 0, None), ("SUCCEEDED", 0, None)]},
     {"P": ("SUCCEEDED", 0, None), "X": ("SUCCEEDED", 0, None, "-"),
      "Y": ("SUCCEEDED", 0, None, "forced")}),
    ("parallel-forced-failed", _forced(False), PAR,
     {"P": [("ABORTED", 0, None), ("FAILED", 0, "Operator.Failed")]},
     {"P": ("FAILED", 0, "Operator.Failed"), "X": ("ABORTED", 0, None, "-"),
      "Y": ("FAILED", 0, "Operator.Failed", "forced")}),
    # forced, as runs recorded before TaskForced followed its own Task: linked to X
    ("parallel-forced-old-link", _forced(True, own_link=False), PAR,
     {"P": [("SUCCEEDED", 0, None), ("SUCCEEDED", 0, None)]},
     {"P": ("SUCCEEDED", 0, None), "X": ("SUCCEEDED", 0, None, "-"),
      "Y": ("SUCCEEDED", 0, None, "forced")}),
    ("parallel-forced-failed-old-link", _forced(False, own_link=False), PAR,
     {"P": [("ABORTED", 0, None), ("FAILED", 0, "Operator.Failed")]},
     {"P": ("FAILED", 0, "Operator.Failed"), "X": ("ABORTED", 0, None, "-"),
      "Y": ("FAILED", 0, "Operator.Failed", "forced")}),
    ("map-skipped", _skipped_iteration(), None,
     {"M": [("SUCCEEDED", 0, None), ("SUCCEEDED", 0, None)]},
     {"M": ("SUCCEEDED", 0, None), "W": ("SUCCEEDED", 0, None, "skipped")}),
    # rerun: a new run from M; A was not run in it
    ("map-rerun-from-state", _rerun_from_map(), RERUN,
     {"M": [("SUCCEEDED", 0, None), ("SUCCEEDED", 1, None)]},
     {"A": ("NOT RUN", 0, None), "M": ("SUCCEEDED", 0, None), "W": ("SUCCEEDED", 1, None)}),
]  # fmt: skip


@pytest.mark.parametrize(("history", "definition", "groups", "states"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])  # fmt: skip
def test_status_of_every_shape(
    history: list[dict[str, Any]],
    definition: dict[str, Any] | None,
    groups: dict[str, list[tuple[str, int, str | None]]],
    states: dict[str, tuple[Any, ...]],
) -> None:
    derived = derive_status(history, definition)
    for group, expected in groups.items():
        got = [(i.status, i.retries, i.error) for i in derived.iterations[group]]
        assert got == expected, group
        for run in derived.iterations[group]:
            if run.status != "RUNNING":
                assert run.started is not None and run.ended is not None, (group, run.index)
            for name, view in run.states.items():
                # Every ended state of every iteration carries its end time.
                if view.status != "RUNNING":
                    assert view.exited is not None, (group, run.index, name)
                    assert view.entered is not None and view.exited >= view.entered, name
    for name, expected in states.items():
        if expected[0] == "NOT RUN":
            assert name not in derived.overall, name
            continue
        view = derived.overall[name]
        assert (view.status, view.retries, view.error) == expected[:3], name
        if len(expected) > 3:  # "forced", "skipped" or "-" (neither)
            mark = "forced" if view.forced else "skipped" if view.skipped else "-"
            assert mark == expected[3], name
    for name, view in derived.overall.items():
        if view.status == "ABORTED":
            assert (view.error, view.cause) == (None, None), name
        if view.status not in ("RUNNING",):
            assert view.exited is not None, name


def test_forced_and_skipped_marks_stay_on_their_own_branch_and_iteration() -> None:
    """The mark is on the Task the operator acted on, in its own branch or iteration."""
    for ok in (True, False):
        for own_link in (True, False):
            x_branch, y_branch = derive_status(_forced(ok, own_link), PAR).iterations["P"]
            assert (x_branch.states["X"].forced, y_branch.states["Y"].forced) == (False, True)
    ran, skipped = derive_status(_skipped_iteration()).iterations["M"]
    assert (ran.states["W"].skipped, skipped.states["W"].skipped) == (False, True)
    assert (ran.states["W"].attempts, skipped.states["W"].attempts) == (1, 0)


def test_a_succeeded_branch_ends_when_its_end_state_exits_while_others_run() -> None:
    h = _H()
    h.add(0, "ExecutionStarted")
    started = h.add(h.add(1, "ParallelStateEntered", name="P", input="{}"), "ParallelStateStarted")
    _task(h, started, "X", "ok")
    h.add(started, "TaskStateEntered", name="Y", input="{}")
    left, right = derive_status(h.events, PAR).iterations["P"]
    assert (left.status, right.status) == ("SUCCEEDED", "RUNNING")
    assert left.ended == 1000.0 + 7


def test_a_failed_iteration_has_its_end_time_while_other_iterations_run() -> None:
    """A tolerated failed iteration in a Map still running: the failed Task shows when
    it ended, in its iteration and in the whole-run view (FAILED there); the running
    iteration's Task has no end yet."""
    h = _H()
    h.add(0, "ExecutionStarted")
    started = h.add(h.add(1, "MapStateEntered", name="M", input="[]"), "MapStateStarted")
    first = h.add(started, "MapIterationStarted", index=0, name="M")
    failed = _task(h, first, "W", "fail:E", "fail:E")  # retried once, failed: event 9
    h.add(failed, "MapIterationFailed", index=0, name="M")
    second = h.add(started, "MapIterationStarted", index=1, name="M")
    h.add(h.add(second, "TaskStateEntered", name="W", input="{}"), "LambdaFunctionScheduled")
    derived = derive_status(h.events)
    done, running = derived.iterations["M"]
    assert (done.status, done.states["W"].status) == ("FAILED", "FAILED")
    assert (done.states["W"].entered, done.states["W"].exited) == (1005.0, 1009.0)
    assert done.ended == 1010.0
    assert (running.status, running.states["W"].exited) == ("RUNNING", None)
    whole = derived.overall["W"]
    assert (whole.status, whole.error, whole.counts) == ("FAILED", "E", {"FAILED": 1, "RUNNING": 1})
    assert (whole.entered, whole.exited) == (1005.0, 1009.0)
    assert derived.overall["M"].status == "RUNNING" and derived.overall["M"].exited is None
