"""``cfnops job rerun``: each mode on a job-net with a Map and a Parallel, lineage, refusals."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cfnops.asl import LambdaError, TaskContext
from cfnops.cli.main import run
from cfnops.durable import AuditLog, Engine, Visit
from cfnops.jobs import JobService, RerunRequest, register_function
from cfnops.jobs.errors import RerunRefused, UnknownState

_lock = threading.Lock()
CALLS: list[tuple[str, Any]] = []
FAILING: set[Any] = set()


def _step(payload: Any, ctx: TaskContext) -> Any:
    with _lock:
        CALLS.append((ctx.state_name, payload))
    return {"from": ctx.state_name, "got": payload}


def _item(payload: Any, ctx: TaskContext) -> Any:
    with _lock:
        CALLS.append((ctx.state_name, payload))
        failing = payload in FAILING
    if failing:
        raise LambdaError("ItemBroken", json.dumps({"errorMessage": f"item {payload}"}))
    return payload * 10


register_function("rr-step", _step)
register_function("rr-item", _item)


def _task(fn: str, nxt: str | None, **extra: Any) -> dict[str, Any]:
    state: dict[str, Any] = {
        "Type": "Task",
        "Resource": f"arn:aws:lambda:us-east-1:123456789012:function:{fn}",
        **extra,
    }
    state.update({"Next": nxt} if nxt else {"End": True})
    return state


def _branch(name: str) -> dict[str, Any]:
    return {"StartAt": name, "States": {name: _task("rr-step", None, InputPath="$.tag")}}


NET: dict[str, Any] = {
    "StartAt": "A",
    "States": {
        "A": {"Type": "Pass", "Assign": {"who.$": "$.who"}, "Next": "B"},
        "B": _task("rr-step", "M", ResultPath="$.b"),
        "M": {
            "Type": "Map",
            "ItemsPath": "$.items",
            "ItemProcessor": {"StartAt": "I", "States": {"I": _task("rr-item", None)}},
            "ResultPath": "$.m",
            "Next": "P",
        },
        "P": {
            "Type": "Parallel",
            "Branches": [_branch("P0"), _branch("P1")],
            "ResultPath": "$.p",
            "Next": "C",
        },
        "C": _task("rr-step", None, Parameters={"who.$": "$who", "m.$": "$.m"}),
    },
}
INPUT = {"who": "ops", "items": [1, 2, 3], "tag": "t"}


@pytest.fixture(autouse=True)
def _clean() -> Iterator[None]:
    CALLS.clear()
    FAILING.clear()
    yield
    FAILING.clear()


def _calls() -> list[tuple[str, Any]]:
    with _lock:
        out = list(CALLS)
        CALLS.clear()
    return out


def _origin(jobs: JobService, name: str, failing: set[Any] | None = None) -> str:
    FAILING.update(failing or set())
    run_id = jobs.start(NET, INPUT, machine_name="rerun-net", name=name)
    jobs.wait(run_id, timeout=60)
    FAILING.clear()
    _calls()
    return run_id


def _rerun(jobs: JobService, run_id: str, mode: str, **kw: Any) -> tuple[str, Any]:
    new_id = jobs.rerun(run_id, RerunRequest(mode, **kw), actor="tester", reason="test")
    return new_id, jobs.wait(new_id, timeout=60)


def _entered(jobs: JobService, run_id: str) -> list[str]:
    return [
        e["details"]["name"]
        for e in jobs.store.history(run_id)
        if e["type"].endswith("StateEntered")
    ]


def test_failed_map_iteration_reruns_alone(jobs: JobService) -> None:
    origin = _origin(jobs, "rr-map-failed", failing={2})
    assert jobs.store.get_run(origin).status == "FAILED"
    done = {
        s.result // 10
        for s in jobs.store.list_steps(origin)
        if s.ok and Visit("I", 1) in s.position.segments
    }
    new_id, result = _rerun(jobs, origin, "from", state="M", iterations="failed")
    assert result.status == "SUCCEEDED", (result.error, result.cause)
    calls = _calls()
    rerun_items = {c[1] for c in calls if c[0] == "I"}
    assert 2 in rerun_items and not rerun_items & done  # finished iterations kept
    assert sorted(c[0] for c in calls if c[0] != "I") == ["C", "P0", "P1"]
    assert result.output["got"] == {"who": "ops", "m": [10, 20, 30]}  # variable kept
    assert _entered(jobs, new_id)[0] == "M"  # B is not run again
    assert jobs.store.lineage_of(new_id).origin_run_id == origin  # type: ignore[union-attr]


def test_one_iteration_by_index_and_one_parallel_branch(jobs: JobService) -> None:
    origin = _origin(jobs, "rr-map-index")
    _, result = _rerun(jobs, origin, "only", state="M", iterations="1")
    assert result.status == "SUCCEEDED"
    assert _calls() == [("I", 2)]
    assert result.output["m"] == [10, 20, 30]  # --only M: M's output is the run's
    _, branch = _rerun(jobs, origin, "only", state="P", iterations="0")
    assert branch.status == "SUCCEEDED"
    assert _calls() == [("P0", "t")]


def test_only_runs_one_state_with_its_recorded_input(jobs: JobService) -> None:
    origin = _origin(jobs, "rr-only")
    new_id, result = _rerun(jobs, origin, "only", state="B")
    assert result.status == "SUCCEEDED"
    assert _calls() == [("B", INPUT)]
    assert _entered(jobs, new_id) == ["B"]
    assert result.output["b"]["from"] == "B"


def test_after_failed_passes_the_failed_state(jobs: JobService) -> None:
    origin = _origin(jobs, "rr-after", failing={3})
    given = {**INPUT, "m": ["fixed"], "b": {}}
    new_id, result = _rerun(jobs, origin, "after-failed", output=given)
    assert result.status == "SUCCEEDED", (result.error, result.cause)
    calls = _calls()
    assert not [c for c in calls if c[0] in ("B", "I")]
    assert ("C", {"who": "ops", "m": ["fixed"]}) in calls
    skipped = [e for e in jobs.store.history(new_id) if e["type"] == "StateSkipped"]
    assert len(skipped) == 1 and skipped[0]["details"]["name"] == "M"


def test_from_start_and_from_a_state(jobs: JobService) -> None:
    origin = _origin(jobs, "rr-start")
    _, again = _rerun(jobs, origin, "from-start", input={**INPUT, "items": [5]})
    assert again.status == "SUCCEEDED" and again.output["got"]["m"] == [50]
    assert [c[0] for c in _calls()].count("B") == 1
    _, from_p = _rerun(jobs, origin, "from", state="P")
    assert from_p.status == "SUCCEEDED"
    assert sorted(c[0] for c in _calls()) == ["C", "P0", "P1"]
    assert from_p.output["got"]["m"] == [10, 20, 30]


def test_edited_definition_accepted_and_mismatching_one_refused(jobs: JobService) -> None:
    origin = _origin(jobs, "rr-edit")
    edited = json.loads(json.dumps(NET))
    edited["States"]["C"]["Parameters"] = {"who.$": "$who", "edited": True}
    _, result = _rerun(jobs, origin, "from", state="C", definition=edited)
    assert result.status == "SUCCEEDED"
    assert _calls() == [("C", {"who": "ops", "edited": True})]
    lacking = json.loads(json.dumps(NET))
    lacking["States"]["P"]["Next"] = "D"
    lacking["States"]["D"] = lacking["States"].pop("C")
    before = len(jobs.store.reruns_of(origin))
    with pytest.raises(UnknownState, match="no state 'C' in the edited definition"):
        jobs.rerun(origin, RerunRequest("from", state="C", definition=lacking), actor="t")
    assert len(jobs.store.reruns_of(origin)) == before  # nothing created


def test_bad_requests_change_nothing(jobs: JobService) -> None:
    origin = _origin(jobs, "rr-bad")
    cases: list[tuple[RerunRequest, type[Exception], str]] = [
        (RerunRequest("from", state="Nope"), UnknownState, "no state 'Nope'"),
        (RerunRequest("from", state="I"), UnknownState, "inside Map 'M'"),
        (RerunRequest("after-failed", output={}), RerunRefused, "SUCCEEDED"),
        (RerunRequest("from", state="B", iterations="failed"), RerunRefused, "Map or Parallel"),
        (RerunRequest("from", state="M", iterations="failed"), RerunRefused, "no iteration"),
        (RerunRequest("from", state="M", iterations="7"), RerunRefused, "no iteration 7"),
    ]
    for request, error, text in cases:
        with pytest.raises(error, match=text):
            jobs.rerun(origin, request, actor="t")
    assert jobs.store.reruns_of(origin) == []


def test_rerun_of_a_running_run_is_refused(jobs: JobService) -> None:
    wait = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 30, "End": True}}}
    run_id = jobs.start(wait, {}, machine_name="rr-running", name="rr-running-1")
    try:
        with pytest.raises(RerunRefused, match="still RUNNING"):
            jobs.rerun(run_id, RerunRequest("from-start"), actor="t")
    finally:
        jobs.stop(run_id)
        jobs.wait(run_id, timeout=30)


# -- the CLI: exit 2 on bad input, lineage in show/list, audit rows ------------------------
def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = run(list(args))
    captured = capsys.readouterr()
    # On success the answer is stdout (stderr may carry progress lines); a refusal is stderr.
    return code, captured.out if code == 0 else captured.out + captured.err


@pytest.fixture
def db_env(job_engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CFNOPS_DATABASE_URL", job_engine.settings.database_url)


def test_cli_rerun_lineage_and_audit(
    jobs: JobService, db_env: None, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    origin = _origin(jobs, "rr-cli", failing={1})
    code, out = _cli(
        capsys, "-o", "json", "job", "rerun", origin, "--from", "M",
        "--map-iterations", "failed", "--name", "rr-cli-again", "--reason", "item 1 fixed",
    )  # fmt: skip
    assert code == 0, out
    assert json.loads(out)["status"] == "SUCCEEDED"
    code, out = _cli(capsys, "-o", "json", "job", "show", "rr-cli-again")
    lineage = json.loads(out)["lineage"]
    assert lineage["rerunOf"] == {
        "runId": "rr-cli-again", "originRunId": origin, "mode": "from", "state": "M"
    }  # fmt: skip
    code, out = _cli(capsys, "-o", "json", "job", "show", origin)
    assert [r["runId"] for r in json.loads(out)["lineage"]["reruns"]] == ["rr-cli-again"]
    code, out = _cli(capsys, "-o", "json", "job", "list", "--limit", "500")
    listed = {r["runId"]: r for r in json.loads(out)}
    assert listed["rr-cli-again"]["rerunOf"] == origin and listed[origin]["rerunOf"] is None
    with AuditLog(jobs.runtime.database) as audit:
        entry = audit.list(target=origin, action="rerun")[0]
    assert entry.reason == "item 1 fixed" and entry.detail["rerunRunId"] == "rr-cli-again"

    bad = tmp_path / "lacking.asl.json"
    bad.write_text(json.dumps({"StartAt": "A", "States": {"A": {"Type": "Succeed"}}}))
    refusals = [
        (["--from", "M", "--only", "M"], "exactly one of"),
        (["--from", "Nope"], "no state 'Nope'"),
        (["--from", "C", "--definition", str(bad)], f"no state 'C' in the definition {bad}"),
        (["--only", "B", "--output-json", "{}"], "--output-json goes with --after-failed"),
    ]
    for args, text in refusals:
        code, out = _cli(capsys, "job", "rerun", origin, *args)
        assert code == 2, (args, out)
        assert text in " ".join(out.split()), (args, out)
    assert [r["runId"] for r in jobs.lineage(origin)["reruns"]] == ["rr-cli-again"]
