"""Retry and Catch around a Task, Map or Parallel state's attempt.

The decisions are pure (:mod:`cfnops.asl._retry`); this module applies them: it sleeps
through the Clock port between attempts and builds the Catcher's output.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from cfnops.asl._dataflow import StateError, apply_result_path, evaluate_assign_jsonpath
from cfnops.asl._engine import Branch, StateOutcome
from cfnops.asl._jsonata_fields import evaluate_assign, evaluate_field
from cfnops.asl._retry import decide_retry, find_catcher
from cfnops.asl._states import jsonata_env, jsonpath_env
from cfnops.asl.errors import StatesFailure

__all__ = ["error_output", "run_with_handling"]

Attempt = Callable[[int], StateOutcome]


def error_output(failure: StatesFailure) -> dict[str, Any]:
    """The ``{"Error": …, "Cause": …}`` object a Catcher passes on."""
    out: dict[str, Any] = {}
    if failure.error is not None:
        out["Error"] = failure.error
    if failure.cause is not None:
        out["Cause"] = failure.cause
    return out


def run_with_handling(
    branch: Branch,
    state: Mapping[str, Any],
    raw: Any,
    ctx: dict[str, Any],
    attempt: Attempt,
    on_final_failure: Callable[[StatesFailure], None] | None = None,
) -> StateOutcome:
    """Run ``attempt(retry_count)`` applying the state's Retry then Catch rules."""
    retriers = state.get("Retry", [])
    catchers = state.get("Catch", [])
    counts = [0] * len(retriers)
    retry_count = 0
    while True:
        try:
            return attempt(retry_count)
        except StateError as exc:
            failure = branch.state_failure(exc)
        except StatesFailure as exc:
            failure = exc
        decision = decide_retry(retriers, failure.error, counts, branch.execution.rng)
        if decision.retrier is not None and decision.delay is not None:
            counts[decision.retrier] += 1
            retry_count += 1
            branch.sleep(decision.delay)
            continue
        if on_final_failure is not None:
            on_final_failure(failure)
        index = find_catcher(catchers, failure.error)
        if index is None:
            raise failure
        return _caught(branch, state, catchers[index], raw, ctx, failure)


def _caught(
    branch: Branch,
    state: Mapping[str, Any],
    catcher: Mapping[str, Any],
    raw: Any,
    ctx: dict[str, Any],
    failure: StatesFailure,
) -> StateOutcome:
    err = error_output(failure)
    try:
        if branch.query_language_of(state) == "JSONata":
            env = jsonata_env(branch, raw, ctx, errorOutput=err)
            assigned = evaluate_assign(catcher["Assign"], env) if "Assign" in catcher else None
            output = (
                evaluate_field(catcher["Output"], env, "Output") if "Output" in catcher else err
            )
            return StateOutcome(catcher["Next"], output, assigned)
        assigned = None
        if "Assign" in catcher:
            assigned = evaluate_assign_jsonpath(catcher["Assign"], jsonpath_env(branch, err, ctx))
        output = apply_result_path(
            raw, err, catcher.get("ResultPath"), present="ResultPath" in catcher
        )
        return StateOutcome(catcher["Next"], output, assigned)
    except StateError as exc:
        raise branch.state_failure(exc) from None
