"""Operator actions on live runs: hold/release, skip, force ok/ng — history events, audit."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from cfnops.asl import LambdaError, TaskContext
from cfnops.cli.main import run
from cfnops.durable import AuditLog, Engine
from cfnops.jobs import JobService, derive_status, register_function
from cfnops.jobs.errors import ActionRefused, UnknownState

_lock = threading.Lock()
CALLS: list[str] = []
GATES: dict[str, threading.Event] = {}
FAIL: set[str] = set()


def _work(payload: Any, ctx: TaskContext) -> Any:
    mark = payload["mark"]
    with _lock:
        CALLS.append(mark)
    gate = GATES.get(mark)
    if gate is not None:  # block until the test opens the gate, or the task is abandoned
        while not gate.wait(0.05):
            if ctx.cancel.is_set():
                return {"abandoned": mark}
    if mark in FAIL:
        raise LambdaError("Broken", json.dumps({"errorMessage": mark}))
    return {"done": mark, "in": payload.get("in")}


register_function("op-work", _work)


def _task(mark: str, nxt: str | None, **extra: Any) -> dict[str, Any]:
    state: dict[str, Any] = {
        "Type": "Task",
        "Resource": "arn:aws:lambda:us-east-1:123456789012:function:op-work",
        "Parameters": {"mark": mark, "in.$": "$"},
        **extra,
    }
    state.update({"Next": nxt} if nxt else {"End": True})
    return state


NET = {
    "StartAt": "T1",
    "States": {"T1": _task("t1", "T2"), "T2": _task("t2", "T3"), "T3": _task("t3", None)},
}


@pytest.fixture(autouse=True)
def _clean() -> Iterator[None]:
    CALLS.clear()
    GATES.clear()
    FAIL.clear()
    yield
    for gate in GATES.values():
        gate.set()


def _start(jobs: JobService, name: str, definition: dict[str, Any] = NET) -> str:
    return jobs.start(definition, {"n": 1}, machine_name="op-net", name=name)


def _until(predicate: Any, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _read_by_run(jobs: JobService, monkeypatch: pytest.MonkeyPatch, action: str) -> threading.Event:
    """Set once a thread other than the test's (the run's watcher, or its read before a
    state) has read an operator action ``action`` from the store: the run has seen it."""
    seen = threading.Event()
    here = threading.get_ident()
    store_type = type(jobs.store)
    original = store_type.list_controls

    def watched(self: Any, run_id: str, *, after: int = 0) -> Any:
        rows = original(self, run_id, after=after)
        if threading.get_ident() != here and any(r.action == action for r in rows):
            seen.set()
        return rows

    monkeypatch.setattr(store_type, "list_controls", watched)
    return seen


def _types(jobs: JobService, run_id: str) -> list[str]:
    return [e["type"] for e in jobs.store.history(run_id)]


def _event(jobs: JobService, run_id: str, kind: str) -> dict[str, Any]:
    found = [e for e in jobs.store.history(run_id) if e["type"] == kind]
    assert len(found) == 1, (kind, _types(jobs, run_id))
    return dict(found[0]["details"])


def _audit(jobs: JobService, run_id: str) -> list[tuple[str, str | None]]:
    with AuditLog(jobs.runtime.database) as audit:
        return [(e.action, e.reason) for e in reversed(audit.list(target=run_id))]


def test_hold_lets_the_running_task_finish_and_starts_nothing_until_release(
    jobs: JobService,
) -> None:
    GATES["t1"] = threading.Event()
    run_id = _start(jobs, "op-hold-1")
    _until(lambda: "t1" in CALLS)
    jobs.hold(run_id, actor="alice", reason="maintenance window")
    _until(lambda: "OperatorHold" in _types(jobs, run_id))
    GATES["t1"].set()  # the running task finishes while held
    _until(lambda: "TaskStateExited" in _types(jobs, run_id))
    time.sleep(1.0)
    assert CALLS == ["t1"] and jobs.store.get_run(run_id).status == "RUNNING"
    assert jobs.lineage(run_id)["held"] is True
    with pytest.raises(ActionRefused, match="held already"):
        jobs.hold(run_id, actor="alice")
    jobs.release(run_id, actor="bob", reason="done")
    result = jobs.wait(run_id, timeout=30)
    assert result.status == "SUCCEEDED" and CALLS == ["t1", "t2", "t3"]
    assert _event(jobs, run_id, "OperatorHold") == {
        "actor": "alice",
        "reason": "maintenance window",
    }
    assert _event(jobs, run_id, "OperatorRelease")["actor"] == "bob"
    types = _types(jobs, run_id)
    assert types.index("OperatorRelease") < [i for i, t in enumerate(types)
                                             if t == "TaskStateEntered"][1]  # fmt: skip
    assert _audit(jobs, run_id) == [("hold", "maintenance window"), ("release", "done")]
    # the run took both: `job show -o json` says so (it said applied: false)
    actions = jobs.lineage(run_id)["operatorActions"]
    assert [(a["action"], a["applied"]) for a in actions] == [("hold", True), ("release", True)]
    with pytest.raises(ActionRefused, match="SUCCEEDED, not RUNNING"):
        jobs.release(run_id, actor="bob")


def test_skip_passes_a_state_not_yet_started(
    jobs: JobService, monkeypatch: pytest.MonkeyPatch
) -> None:
    skip_seen = _read_by_run(jobs, monkeypatch, "skip")
    GATES["t1"] = threading.Event()
    run_id = _start(jobs, "op-skip-1")
    _until(lambda: "t1" in CALLS)
    with pytest.raises(ActionRefused, match="already reached"):
        jobs.skip(run_id, "T1", {}, actor="alice")
    with pytest.raises(UnknownState, match="no state 'T9'"):
        jobs.skip(run_id, "T9", {}, actor="alice")
    jobs.skip(run_id, "T2", {"skipped": True}, actor="alice", reason="not needed today")
    _until(skip_seen.is_set)  # the run reads actions every half second (and before states)
    GATES["t1"].set()
    result = jobs.wait(run_id, timeout=30)
    assert result.status == "SUCCEEDED"
    assert CALLS == ["t1", "t3"]
    assert result.output == {"done": "t3", "in": {"skipped": True}}
    event = _event(jobs, run_id, "StateSkipped")
    assert event["name"] == "T2" and json.loads(event["output"]) == {"skipped": True}
    assert event["actor"] == "alice" and event["reason"] == "not needed today"
    assert _audit(jobs, run_id) == [("skip", "not needed today")]
    assert jobs.lineage(run_id)["operatorActions"][0]["applied"] is True


def test_force_ok_and_ng_end_a_running_task(jobs: JobService) -> None:
    GATES["t2"] = threading.Event()
    ok_run = _start(jobs, "op-force-ok")
    _until(lambda: "t2" in CALLS)
    with pytest.raises(ActionRefused, match="'T3' is not running"):
        jobs.force(ok_run, "T3", ok=True, output={}, actor="alice")
    jobs.force(ok_run, "T2", ok=True, output={"forced": 1}, actor="alice", reason="done by hand")
    result = jobs.wait(ok_run, timeout=30)
    assert result.status == "SUCCEEDED"
    assert result.output == {"done": "t3", "in": {"forced": 1}}
    forced = _event(jobs, ok_run, "TaskForced")
    assert forced["name"] == "T2" and forced["status"] == "SUCCEEDED"
    assert forced["actor"] == "alice" and json.loads(forced["output"]) == {"forced": 1}
    assert _audit(jobs, ok_run) == [("force", "done by hand")]

    CALLS.clear()
    GATES["t2"] = threading.Event()
    ng_run = _start(jobs, "op-force-ng")
    _until(lambda: "t2" in CALLS)
    jobs.force(ng_run, "T2", ok=False, error="Operator.Failed", cause="hung", actor="bob")
    failed = jobs.wait(ng_run, timeout=30)
    assert (failed.status, failed.error, failed.cause) == ("FAILED", "Operator.Failed", "hung")
    assert CALLS == ["t2"] or CALLS == ["t1", "t2"]
    assert _event(jobs, ng_run, "TaskForced")["status"] == "FAILED"
    assert _audit(jobs, ng_run) == [("force", None)]


def _branch_of(history: list[dict[str, Any]], event_id: int) -> list[str]:
    """The states whose entries lie on the chain of ``previousEventId`` links from
    ``event_id`` back to the start, nearest first."""
    by_id = {e["id"]: e for e in history}
    found, at = [], by_id[event_id]["previousEventId"]
    while at:
        event = by_id[at]
        if event["type"].endswith("StateEntered"):
            found.append(event["details"]["name"])
        at = event["previousEventId"]
    return found


def test_a_forced_event_links_to_its_own_task_not_the_run_latest(jobs: JobService) -> None:
    """Parallel: branch 0 runs X1 (done) then X2 (waiting); branch 1 runs Y (waiting).
    Y is forced after X2 started, so the run's latest event is branch 0's; the
    ``TaskForced`` event follows Y's own latest event (its LambdaFunctionStarted), and the
    history's links put it in Y's branch: ``job show`` marks Y forced in branch 1 only."""
    net = {"StartAt": "P", "States": {"P": {"Type": "Parallel", "End": True, "Branches": [
        {"StartAt": "X1", "States": {"X1": _task("x1", "X2"), "X2": _task("x2", None)}},
        {"StartAt": "Y", "States": {"Y": _task("y", None)}},
    ]}}}  # fmt: skip
    GATES.update(x1=threading.Event(), y=threading.Event(), x2=threading.Event())
    run_id = _start(jobs, "op-force-branch", net)
    # X1 finishes only once Y has started, so that branch 0's X2 is recorded after Y's
    # last event whatever order the branches' threads run in.
    _until(lambda: {"x1", "y"} <= set(CALLS))
    _until(lambda: _types(jobs, run_id).count("LambdaFunctionStarted") == 2)
    GATES["x1"].set()
    _until(lambda: {"y", "x2"} <= set(CALLS))
    _until(lambda: _types(jobs, run_id).count("LambdaFunctionStarted") == 3)
    jobs.force(run_id, "Y", ok=True, output={"by": "hand"}, actor="alice")
    _until(lambda: "TaskForced" in _types(jobs, run_id))
    GATES["x2"].set()
    assert jobs.wait(run_id, timeout=30).status == "SUCCEEDED"
    history = jobs.store.history(run_id)
    forced = next(e for e in history if e["type"] == "TaskForced")
    linked = next(e for e in history if e["id"] == forced["previousEventId"])
    y_started = [e["id"] for e in history if e["type"] == "LambdaFunctionStarted"
                 and _branch_of(history, e["id"])[0] == "Y"]  # fmt: skip
    assert (linked["type"], [linked["id"]]) == ("LambdaFunctionStarted", y_started)
    assert _branch_of(history, forced["id"]) == ["Y", "P"]
    # Branch 0 recorded after Y's last event (X2 entered, scheduled, started): the run's
    # latest event when the force came was not Y's.
    x2_entered = next(e["id"] for e in history if e["type"] == "TaskStateEntered"
                      and e["details"]["name"] == "X2")  # fmt: skip
    assert y_started[0] < x2_entered < forced["id"]
    shown = derive_status(history, net)
    x_branch, y_branch = shown.iterations["P"]
    assert (y_branch.states["Y"].forced, x_branch.states["X2"].forced) == (True, False)
    assert (shown.overall["Y"].forced, shown.overall["X2"].forced) == (True, False)


def test_force_the_task_a_run_failed_in_continues_the_run(jobs: JobService) -> None:
    FAIL.add("t2")
    run_id = _start(jobs, "op-force-failed")
    assert jobs.wait(run_id, timeout=30).status == "FAILED"
    with pytest.raises(ActionRefused, match="'T3' did not fail"):
        jobs.force(run_id, "T3", ok=True, output={}, actor="alice")
    CALLS.clear()
    jobs.force(run_id, "T2", ok=True, output={"fixed": True}, actor="alice", reason="fixed")
    result = jobs.wait(run_id, timeout=30)
    assert result.status == "SUCCEEDED", (result.error, result.cause)
    assert CALLS == ["t3"]  # T1 kept its result, T2 ended as forced
    assert result.output == {"done": "t3", "in": {"fixed": True}}
    assert "TaskForced" in _types(jobs, run_id)
    assert jobs.store.get_run(run_id).redrive_count == 1


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = run(list(args))
    captured = capsys.readouterr()
    return code, " ".join((captured.out + captured.err).split())


def test_cli_actions_and_refusals(
    jobs: JobService,
    job_engine: Engine,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("CFNOPS_DATABASE_URL", job_engine.settings.database_url)
    skip_seen = _read_by_run(jobs, monkeypatch, "skip")
    GATES["t1"] = threading.Event()
    run_id = _start(jobs, "op-cli-1")
    _until(lambda: "t1" in CALLS)
    refusals = [
        (["skip", run_id, "T1"], "already reached"),
        (["skip", run_id, "Nope"], "no state 'Nope'"),
        (["force", run_id, "T1"], "exactly one of --ok and --ng"),
        (["force", run_id, "T1", "--ng"], "--ng needs --error"),
        (["release", run_id], "it is not held"),
        (["hold", "no-such-run"], "no job run 'no-such-run'"),
    ]
    for args, text in refusals:
        code, out = _cli(capsys, "job", *args)
        assert (code, text in out) == (2, True), (args, out)
    assert _audit(jobs, run_id) == []  # nothing was done
    code, out = _cli(capsys, "-o", "json", "job", "hold", run_id, "--reason", "look")
    assert code == 0 and json.loads(out) == {"runId": run_id, "action": "hold"}
    code, out = _cli(capsys, "job", "skip", run_id, "T3", "--output-json", '{"s": 1}')
    assert code == 0 and "T3 will be skipped" in out
    _until(skip_seen.is_set)  # seen by the run before T1 ends
    code, out = _cli(capsys, "job", "force", run_id, "T1", "--ok", "--output-json", "{}")
    assert code == 0, out
    code, out = _cli(capsys, "job", "release", run_id)
    assert code == 0, out
    result = jobs.wait(run_id, timeout=30)
    assert result.status == "SUCCEEDED" and result.output == {"s": 1}
    assert [a for a, _ in _audit(jobs, run_id)] == ["hold", "skip", "force", "release"]
    code, out = _cli(capsys, "-o", "json", "job", "show", run_id)
    actions = json.loads(out)["lineage"]["operatorActions"]
    assert [a["action"] for a in actions] == ["hold", "skip", "force", "release"]


def test_a_held_run_reads_held_in_run_listings(
    jobs: JobService,
    job_engine: Engine,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from cfnops.console._runs_query import RunFilter, RunsQuery

    monkeypatch.setenv("CFNOPS_DATABASE_URL", job_engine.settings.database_url)
    GATES["t1"] = threading.Event()
    run_id = _start(jobs, "op-held-list-1")
    _until(lambda: "t1" in CALLS)
    jobs.hold(run_id, actor="alice", reason="maintenance window")
    query = RunsQuery(jobs.store.engine)

    def listed(status: str | None) -> dict[str, tuple[str, str | None]]:
        page = query.page(RunFilter(status=status))
        return {r.run_id: (r.status, r.waiting) for r in page.rows}

    try:
        capsys.readouterr()
        code = run(["-o", "json", "runs", "list", "--limit", "200"])
        rows = {r["runId"]: r for r in json.loads(capsys.readouterr().out)}
        assert code == 0
        assert (rows[run_id]["status"], rows[run_id]["outcome"]) == ("RUNNING", "HELD")
        assert rows[run_id]["waiting"] == "held by an operator"
        code = run(["-o", "json", "job", "list", "--limit", "200"])
        jobs_listed = {r["runId"]: r for r in json.loads(capsys.readouterr().out)}
        assert jobs_listed[run_id]["status"] == "HELD"
        # The console's Runs page: HELD, its own filter, and not under RUNNING.
        assert listed(None)[run_id] == ("HELD", "held by an operator")
        assert run_id in listed("HELD") and run_id not in listed("RUNNING")
        jobs.release(run_id, actor="bob")
        assert listed(None)[run_id][0] == "RUNNING"
    finally:
        GATES["t1"].set()
    assert jobs.wait(run_id, timeout=30).status == "SUCCEEDED"
