"""Map and Parallel: fan out branches through the BranchExecutor port, gather results.

Each iteration / branch is a :class:`~cfnops.asl._engine.Branch` over its own state list,
so a durable engine can run each one as a separate unit (see ``run_branch``).
See https://docs.aws.amazon.com/step-functions/latest/dg/state-map-inline.html and
https://docs.aws.amazon.com/step-functions/latest/dg/state-parallel.html
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, wait
from dataclasses import replace
from typing import Any

from cfnops.asl import _jsonata
from cfnops.asl._dataflow import (
    StateError,
    apply_input_path,
    apply_template,
    evaluate_assign_jsonpath,
    resolve,
)
from cfnops.asl._engine import Aborted, Branch, CancelToken, Execution, StateOutcome, handler
from cfnops.asl._handling import error_output, run_with_handling
from cfnops.asl._history import NullRecorder
from cfnops.asl._jsonata_fields import (
    evaluate_assign,
    evaluate_expression,
    evaluate_field,
    evaluate_integer,
    expect_type,
)
from cfnops.asl._jsonpath import PathNotFound
from cfnops.asl._ports import BranchJob
from cfnops.asl._states import _next, jsonata_env, jsonpath_env, jsonpath_output
from cfnops.asl._values import dumps_compact
from cfnops.asl.errors import StatesFailure

__all__: list[str] = []


def _processor(state: Mapping[str, Any]) -> Mapping[str, Any]:
    processor: Mapping[str, Any] = state.get("ItemProcessor") or state["Iterator"]
    return processor


def _is_distributed(state: Mapping[str, Any]) -> bool:
    config = _processor(state).get("ProcessorConfig") or {}
    return config.get("Mode") == "DISTRIBUTED"


def _runtime(detail: str) -> StateError:
    return StateError("States.Runtime", detail)


def _path_number(
    branch: Branch, state: Mapping[str, Any], field: str, effective: Any, ctx: dict[str, Any],
    *, integer: bool,
) -> float | None:  # fmt: skip
    if field in state:
        value = state[field]
        if branch.query_language_of(state) == "JSONata":
            env = jsonata_env(branch, effective, ctx)
            if integer:
                return float(evaluate_integer(value, env, field))
            value = evaluate_field(value, env, field)
            if not isinstance(value, int | float) or isinstance(value, bool):
                expect_type(value, "number", str(state[field]), field)
        return float(value)
    path_field = field + "Path"
    if path_field not in state:
        return None
    path = state[path_field]
    try:
        value = resolve(path, jsonpath_env(branch, effective, ctx))
    except PathNotFound:
        raise _runtime(f"The {path_field} field refers to a missing value: {path}") from None
    if isinstance(value, str):
        # Step Functions parses numeric text here ("1" is accepted, "NoNumber" is not).
        with contextlib.suppress(ValueError):
            value = int(value) if integer else float(value)
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if integer:
        ok = ok and float(value).is_integer()
    if not ok:
        shown = value if isinstance(value, str) else dumps_compact(value)
        kind = "integer" if integer else "float"
        raise _runtime(
            f'The {path_field} field refers to value "{shown}" which is not a valid {kind}: {path}'
        )
    return float(value)


def _items(branch: Branch, state: Mapping[str, Any], effective: Any, ctx: dict[str, Any]) -> Any:
    if branch.query_language_of(state) == "JSONata":
        if "Items" in state:
            items = state["Items"]
            if _jsonata.is_expression(items):
                expr = _jsonata.expression_of(items)
                env = jsonata_env(branch, effective, ctx)
                value = evaluate_expression(expr, env, "Items")
                if value is _jsonata.UNDEFINED:
                    raise StateError(
                        "States.QueryEvaluationError",
                        f"The JSONata expression '{expr}' specified for the field 'Items' "
                        "returned nothing (undefined).",
                        "Items",
                    )
                expect_type(value, "array", expr, "Items")
                return value
            return evaluate_field(items, jsonata_env(branch, effective, ctx), "Items")
        items = effective
    elif "ItemsPath" in state:
        path = state["ItemsPath"]
        try:
            items = resolve(path, jsonpath_env(branch, effective, ctx))
        except PathNotFound:
            raise _runtime(
                f"The JSONPath '{path}' specified for the field 'ItemsPath' could not be found "
                f"in the input '{dumps_compact(effective)}'"
            ) from None
    else:
        items = effective
    if not isinstance(items, list):
        error = (
            "States.QueryEvaluationError"
            if branch.query_language_of(state) == "JSONata"
            else "States.Runtime"
        )
        raise StateError(error, f"Map state input must be an array but was: {dumps_compact(items)}")
    return items


def _item_input(
    branch: Branch, state: Mapping[str, Any], effective: Any, ctx: dict[str, Any], index: int,
    item: Any,
) -> Any:  # fmt: skip
    selector = state.get("ItemSelector", state.get("Parameters"))
    if selector is None:
        return item
    ictx = dict(ctx)
    ictx["Map"] = {"Item": {"Index": index, "Value": item}}
    if branch.query_language_of(state) == "JSONata":
        return evaluate_field(selector, jsonata_env(branch, effective, ictx), "ItemSelector")
    return apply_template(selector, jsonpath_env(branch, effective, ictx))


def _run_jobs(
    branch: Branch,
    jobs: Sequence[BranchJob],
    max_concurrency: int,
    group: CancelToken,
    tolerated: Callable[[int, int], bool],
    has_tolerance: bool = False,
) -> list[Any]:
    """Run branch jobs; fail fast unless the failure count is tolerated.

    A failing job cancels its siblings itself, before it returns, so that no queued
    job starts after a failure that ends the state.
    """
    total = len(jobs)
    lock = threading.Lock()
    failures = [0]
    decisive: list[StatesFailure] = []

    def guarded(job: BranchJob) -> BranchJob:
        def run() -> Any:
            try:
                return job.run()
            except StatesFailure as exc:
                with lock:
                    failures[0] += 1
                    if not decisive and not tolerated(failures[0], total):
                        decisive.append(exc)
                        group.cancel("aborted")
                raise
            except Aborted:
                raise
            except BaseException:
                group.cancel("aborted")
                raise

        return replace(job, run=run)

    futures: list[Future[Any]] = branch.execution.branch_executor.submit_all(
        [guarded(j) for j in jobs], max_concurrency
    )
    wait(futures)
    results = _results(futures)
    if decisive:
        if has_tolerance:
            raise StatesFailure(
                "States.ExceedToleratedFailureThreshold",
                "The specified tolerated failure threshold was exceeded",
            )
        raise decisive[0]
    if branch.cancel.cancelled:
        raise Aborted(branch.cancel.reason)
    return results


def _results(futures: Sequence[Future[Any]]) -> list[Any]:
    """The jobs' outputs in order: a failed job's is its error output, an aborted one's
    None; any other exception is raised again."""
    results: list[Any] = [None] * len(futures)
    for i, fut in enumerate(futures):
        exc = fut.exception()
        if exc is None:
            results[i] = fut.result()
        elif isinstance(exc, StatesFailure):
            results[i] = error_output(exc)
        elif not isinstance(exc, Aborted):
            raise exc
    return results


@handler("Map")
def _map(
    branch: Branch, name: str, state: Mapping[str, Any], raw: Any, ctx: dict[str, Any]
) -> StateOutcome:
    jsonata = branch.query_language_of(state) == "JSONata"
    # Step Functions records MapStateFailed for a failed Map, except when the failure
    # comes from the tolerated-failure settings (then the execution fails right away).
    failed_event = [True]

    def attempt(retry_count: int) -> StateOutcome:
        failed_event[0] = True
        if jsonata:
            effective = raw
        else:
            effective = apply_input_path(
                raw, state.get("InputPath"), jsonpath_env(branch, raw, ctx),
                present="InputPath" in state,
            )  # fmt: skip
        failed_event[0] = False
        max_conc = _path_number(branch, state, "MaxConcurrency", effective, ctx, integer=True)
        if max_conc is not None and max_conc < 0:
            raise _runtime(
                f"Expected non-negative integer for MaxConcurrency, got '{int(max_conc)}' instead."
            )
        failed_event[0] = True
        items = _items(branch, state, effective, ctx)
        branch.emit("MapStateStarted", {"length": len(items)})
        failed_event[0] = False
        count = _path_number(branch, state, "ToleratedFailureCount", effective, ctx, integer=True)
        pct = _path_number(
            branch, state, "ToleratedFailurePercentage", effective, ctx, integer=False
        )
        if count is not None and count < 0:
            raise _runtime("ToleratedFailureCount cannot be negative.")
        if pct is not None and not 0 <= pct <= 100:
            raise _runtime("ToleratedFailurePercentage must be between 0 and 100.")
        failed_event[0] = True
        results = _run_iterations(branch, name, state, effective, ctx, items, max_conc, count, pct)
        branch.emit("MapStateSucceeded", {})
        return _finish(branch, state, raw, ctx, results, jsonata)

    def on_final_failure(failure: StatesFailure) -> None:
        if failed_event[0]:
            branch.emit("MapStateFailed", {})

    return run_with_handling(branch, state, raw, ctx, attempt, on_final_failure)


def _tolerance(count: float | None, pct: float | None) -> Callable[[int, int], bool]:
    def tolerated(failures: int, total: int) -> bool:
        if count is None and pct is None:
            return False
        if count is not None and failures <= count:
            return True
        return pct is not None and total > 0 and failures * 100.0 / total <= pct

    return tolerated


def _run_iterations(
    branch: Branch, name: str, state: Mapping[str, Any], effective: Any, ctx: dict[str, Any],
    items: list[Any], max_conc: float | None, count: float | None, pct: float | None,
) -> list[Any]:  # fmt: skip
    processor = _processor(state)
    distributed = _is_distributed(state)
    group = CancelToken(branch.cancel)
    inputs = [_item_input(branch, state, effective, ctx, i, item) for i, item in enumerate(items)]
    if distributed:
        label = state.get("Label", name)
        info = branch.execution.info
        branch.emit(
            "MapRunStarted",
            {"mapRunArn": f"{info.state_machine_arn.replace(':stateMachine:', ':mapRun:')}"
                          f"/{label}:{info.name}"},
        )  # fmt: skip
    # Each iteration's start links to the latest event of the iterations before it.
    cursor = [branch.last_event]

    snapshot = branch.scope.flatten()

    def make_job(index: int) -> BranchJob:
        def job() -> Any:
            if group.cancelled:
                raise Aborted(group.reason)
            if distributed:
                return _distributed_iteration(branch, processor, inputs[index], group)
            started = branch.emit(
                "MapIterationStarted", {"index": index, "name": name}, previous=cursor[0]
            )
            child = branch.child(processor, cancel=CancelToken(group), previous_event=started)
            try:
                out = child.run(inputs[index])
            except StatesFailure:
                branch.emit(
                    "MapIterationFailed", {"index": index, "name": name}, previous=child.last_event
                )
                raise
            except Aborted:
                branch.emit(
                    "MapIterationAborted", {"index": index, "name": name},
                    previous=child.last_event,
                )  # fmt: skip
                raise
            branch.emit(
                "MapIterationSucceeded", {"index": index, "name": name}, previous=child.last_event
            )
            cursor[0] = child.last_event
            return out

        kind = "map-iteration"
        return BranchJob(f"{name}/{index}", kind, index, processor, inputs[index], snapshot, job)

    jobs = [make_job(i) for i in range(len(items))]
    conc = int(max_conc) if max_conc else 0
    try:
        results = _run_jobs(
            branch, jobs, conc, group, _tolerance(count, pct),
            # A distributed Map run fails as a whole once its threshold (default 0) is passed.
            has_tolerance=distributed or count is not None or pct is not None,
        )  # fmt: skip
    except StatesFailure:
        if distributed:
            branch.emit("MapRunFailed", {})
        raise
    if distributed:
        branch.emit("MapRunSucceeded", {})
    return results


def _distributed_iteration(
    branch: Branch, processor: Mapping[str, Any], value: Any, group: CancelToken
) -> Any:
    """A distributed-Map child runs as its own execution history (not in the parent's)."""
    parent = branch.execution
    sub = Execution(
        info=parent.info,
        execution_input=value,
        invoker=parent.invoker,
        clock=parent.clock,
        recorder=NullRecorder(),
        branch_executor=parent.branch_executor,
        cancel=group,
        rng=parent.rng,
        default_query_language=branch.query_language,
    )
    child = Branch(
        sub,
        processor,
        scope=branch.child(processor, cancel=group, previous_event=0).scope,
        cancel=CancelToken(group),
        previous_event=0,
        query_language=processor.get("QueryLanguage", branch.query_language),
    )
    return child.run(value)


def _finish(
    branch: Branch, state: Mapping[str, Any], raw: Any, ctx: dict[str, Any], results: list[Any],
    jsonata: bool,
) -> StateOutcome:  # fmt: skip
    if jsonata:
        env = jsonata_env(branch, raw, ctx, result=results)
        assigned = evaluate_assign(state["Assign"], env) if "Assign" in state else None
        output = evaluate_field(state["Output"], env, "Output") if "Output" in state else results
        return StateOutcome(_next(state), output, assigned)
    result: Any = results
    if "ResultSelector" in state:
        result = apply_template(state["ResultSelector"], jsonpath_env(branch, results, ctx))
    assigned = None
    if "Assign" in state:
        assigned = evaluate_assign_jsonpath(state["Assign"], jsonpath_env(branch, result, ctx))
    return StateOutcome(_next(state), jsonpath_output(state, raw, result, ctx, branch), assigned)


@handler("Parallel")
def _parallel(
    branch: Branch, name: str, state: Mapping[str, Any], raw: Any, ctx: dict[str, Any]
) -> StateOutcome:
    jsonata = branch.query_language_of(state) == "JSONata"

    def attempt(retry_count: int) -> StateOutcome:
        if jsonata:
            env = jsonata_env(branch, raw, ctx)
            value = (
                evaluate_field(state["Arguments"], env, "Arguments")
                if ("Arguments" in state)
                else raw
            )
        else:
            effective = apply_input_path(
                raw, state.get("InputPath"), jsonpath_env(branch, raw, ctx),
                present="InputPath" in state,
            )  # fmt: skip
            value = (
                apply_template(state["Parameters"], jsonpath_env(branch, effective, ctx))
                if "Parameters" in state
                else effective
            )
        branch.emit("ParallelStateStarted", {})
        group = CancelToken(branch.cancel)
        start_event = branch.last_event

        snapshot = branch.scope.flatten()

        def make_job(index: int, program: Mapping[str, Any]) -> BranchJob:
            def job() -> Any:
                child = branch.child(program, cancel=CancelToken(group), previous_event=start_event)
                return child.run(value)

            key = f"{name}/branch-{index}"
            return BranchJob(key, "parallel-branch", index, program, value, snapshot, job)

        jobs = [make_job(i, p) for i, p in enumerate(state["Branches"])]
        results = _run_jobs(branch, jobs, 0, group, lambda failures, total: False)
        branch.emit("ParallelStateSucceeded", {})
        return _finish(branch, state, raw, ctx, results, jsonata)

    def on_final_failure(failure: StatesFailure) -> None:
        branch.emit("ParallelStateFailed", {})

    return run_with_handling(branch, state, raw, ctx, attempt, on_final_failure)
