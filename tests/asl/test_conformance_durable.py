"""ASL conformance through the durable job path: every case as a checkpointed job run.

The same 640 cases as ``test_conformance.py``, but each one started with
:meth:`cfnops.jobs.JobService.start` and awaited with :meth:`~cfnops.jobs.JobService.wait`
(what ``cfnops job run`` does): a DBOS workflow on SQLite, Tasks and Waits checkpointed by
position, history batched into the job store. A case's Lambda functions answer as local
functions (``register_function``), which is how the product runs offline Lambda tasks;
the function a name stands for is looked up per run (two cases may use one name).

One engine serves every case (the process's engine when a sibling suite started one);
cases run in parallel threads (some wait real seconds), then each is asserted on its own
with the same match rule, and the session prints "ASL conformance (durable job path)".
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from asl_cases import CASES_DIR, Outcome, case_files, case_id, matches
from tests._runtime import runtime_for

from cfnops.asl import InvalidDefinition, LambdaError, TaskContext, lambda_stand_in
from cfnops.config import load_settings
from cfnops.durable import Engine
from cfnops.jobs import JobService, register_function
from cfnops.jobs._functions import functions
from cfnops.jobs._tables import runs

# Cases that fail on this path only, each with the reason (kept visible, strict).
KNOWN_FAILURES: dict[str, str] = {}
MACHINE = "conformance"


class _StandIns:
    """The case functions of every run, by (run id, function name); counts finished calls
    (an answer the Task took: a call abandoned at its timeout does not count)."""

    def __init__(self) -> None:
        self._by_run: dict[tuple[str, str], Any] = {}
        self._lock = threading.Lock()
        self.finished: dict[str, int] = {}

    def add(self, run_id: str, lambdas: dict[str, Any]) -> None:
        with self._lock:
            for name, spec in lambdas.items():
                self._by_run[(run_id, name)] = lambda_stand_in(spec)

    def function(self, name: str) -> Any:
        def call(payload: Any, context: TaskContext) -> Any:
            run_id = context.execution_arn.rsplit(":", 1)[-1]
            with self._lock:
                found = self._by_run.get((run_id, name))
            if found is None:
                raise LambdaError("ResourceNotFoundException", f"no function {name} in {run_id}")
            try:
                return found(payload, context)
            finally:
                if not context.cancel.is_set():
                    with self._lock:
                        self.finished[run_id] = self.finished.get(run_id, 0) + 1

        return call


def _run_id(number: int) -> str:
    return f"conf-{number:04d}"


Results = dict[str, tuple[dict[str, Any], Outcome | BaseException]]


def _run_all(jobs: JobService, paths: list[Path]) -> tuple[Results, Results]:
    """Every case as a job run, then every ended run replayed from its checkpoints (what
    recovery after ``kill -9`` does): the same outcome, and no Task answered again."""
    stand_ins = _StandIns()
    cases = [json.loads(p.read_text()) for p in paths]
    names = {name for case in cases for name in case.get("lambdas") or {}}
    for name in names:
        register_function(name, stand_ins.function(name))

    def one(number: int) -> Outcome:
        case = cases[number]
        run_id = _run_id(number)
        stand_ins.add(run_id, case.get("lambdas") or {})
        try:
            jobs.start(case["definition"], case["input"], machine_name=MACHINE, name=run_id)
        except InvalidDefinition as exc:  # `job run` refuses it before any run exists
            return Outcome("INVALID_DEFINITION", error=exc.code, cause=exc.cause)
        if case["expected"]["status"] == "INVALID_DEFINITION":
            return Outcome("CREATED")
        result = jobs.wait(run_id, timeout=120)
        types = tuple(e["type"] for e in jobs.store.history(run_id))
        return Outcome(result.status, result.output, result.error, result.cause, types)

    def replay(number: int) -> Outcome:
        run_id = _run_id(number)
        if jobs.store.find_run(run_id) is None:  # refused at the start: nothing to replay
            first = outcomes[number]
            if isinstance(first, BaseException):
                raise first
            return first
        answered = stand_ins.finished.get(run_id, 0)
        with jobs.store.engine.begin() as conn:  # as if the process had died before the end
            conn.execute(runs.update().where(runs.c.run_id == run_id).values(status="RUNNING"))
        result = jobs.execute(run_id)
        again = stand_ins.finished.get(run_id, 0) - answered
        if again:
            raise AssertionError(f"the replay of {run_id} answered {again} Task(s) again")
        types = tuple(e["type"] for e in jobs.store.history(run_id))
        return Outcome(result.status, result.output, result.error, result.cause, types)

    def guarded(step: Callable[[int], Outcome]) -> Callable[[int], Outcome | BaseException]:
        def call(number: int) -> Outcome | BaseException:
            try:
                return step(number)
            except Exception as exc:
                return exc

        return call

    try:
        with ThreadPoolExecutor(max_workers=16) as pool:
            outcomes = list(pool.map(guarded(one), range(len(cases))))
            replays = list(pool.map(guarded(replay), range(len(cases))))
    finally:
        for name in names:
            functions.unregister(name)
    first = {case_id(p): (c, o) for p, c, o in zip(paths, cases, outcomes, strict=True)}
    second = {case_id(p): (c, o) for p, c, o in zip(paths, cases, replays, strict=True)}
    return first, second


@pytest.fixture(scope="session")
def durable_results(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Results, Results]]:
    paths = case_files()
    if not paths:
        pytest.skip(f"conformance data not found at {CASES_DIR}")
    engine = Engine.current()  # DBOS is one per process: reuse a sibling suite's engine
    started = engine is None
    if engine is None:
        db = tmp_path_factory.mktemp("asl-durable") / "jobs.sqlite"
        engine = Engine.start_process(runtime_for(load_settings(database_url=f"sqlite:///{db}")))
    try:
        results = _run_all(JobService(runtime_for(engine.settings)), paths)
        summary: list[str] = getattr(request.config, "cfnops_asl_summary", None) or []
        request.config.cfnops_asl_summary = summary  # type: ignore[attr-defined]
        for label, outcomes in zip(("", ", replayed"), results, strict=True):
            passed = sum(
                1 for case, out in outcomes.values()
                if isinstance(out, Outcome) and matches(case["expected"], out)
            )  # fmt: skip
            total = len(outcomes)
            summary.append(
                f"ASL conformance (durable job path{label}): {passed}/{total} "
                f"({100.0 * passed / total:.1f}%)"
            )
        yield results
    finally:  # kept for the session: later suites reuse it (as theirs do)
        if started and Engine.current() is engine:
            engine.shutdown(grace_seconds=1)


def _params() -> list[Any]:
    out = []
    for path in case_files():
        cid = case_id(path)
        marks = []
        if cid in KNOWN_FAILURES:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[cid]))
        out.append(pytest.param(cid, id=cid, marks=marks))
    if not out:
        out.append(pytest.param("", id="no-conformance-data"))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("case_id", _params())
@pytest.mark.parametrize("phase", ["run", "replay"])
def test_durable_conformance_case(
    case_id: str, phase: str, durable_results: tuple[Results, Results]
) -> None:
    case, outcome = durable_results[phase == "replay"][case_id]
    if isinstance(outcome, BaseException):
        raise outcome
    expected = case["expected"]
    assert matches(expected, outcome), (
        f"expected {expected['status']} output={expected.get('output')!r} "
        f"error={expected.get('error')!r} cause={expected.get('cause')!r}; "
        f"got {outcome}"
    )
