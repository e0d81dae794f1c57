"""The ASL conformance cases (../shared/conformance/asl) through ``cfnops job test``.

Each case becomes a mock configuration with one test case: every Task answer recorded in
the case's history (``LambdaFunctionSucceeded``/``TaskSucceeded`` → ``Return``,
``…Failed`` → ``Throw``) is the next attempt of the state that made it. The run
(instant clock, one branch at a time) must end as AWS recorded it, by the folder's match
rule. Cases that mocks cannot express are counted apart, with the reason.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

from cfnops.asl import InvalidDefinition
from cfnops.jobs import JobNetTest

CASES = Path(__file__).resolve().parents[2] / ".." / "shared" / "conformance" / "asl" / "cases"
_spec = importlib.util.spec_from_file_location(
    "asl_cases_rule", Path(__file__).resolve().parents[1] / "asl" / "asl_cases.py"
)
assert _spec is not None and _spec.loader is not None
RULE = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("asl_cases_rule", RULE)  # dataclasses look their module up
_spec.loader.exec_module(RULE)

# A recorded timeout is mocked the way a Step Functions Local user mocks one: a Throw of
# States.Timeout (what the state's Retry/Catch and the execution then see).
_ANSWERS = {"LambdaFunctionSucceeded": True, "TaskSucceeded": True,
            "LambdaFunctionFailed": False, "TaskFailed": False,
            "LambdaFunctionTimedOut": False, "TaskTimedOut": False}  # fmt: skip


def _parsed(text: Any) -> Any:
    if isinstance(text, str):
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def recorded_mocks(case: dict[str, Any]) -> dict[str, Any] | str:
    """The case's mock configuration, or why mocks cannot express it."""
    lambdas = case.get("lambdas") or {}
    events = case["expected"].get("events")
    if lambdas and not events:
        return "Task answers not recorded (no history in the case)"
    answers: dict[str, list[dict[str, Any]]] = {}
    state = None
    for event in events or []:
        kind = event["type"]
        if kind.endswith("StateEntered"):
            state = event["stateEnteredEventDetails"]["name"]
        elif kind in _ANSWERS and state is not None:
            details = next((v for k, v in event.items() if k.endswith("EventDetails")), {})
            if _ANSWERS[kind]:
                answer = {"Return": _parsed(details.get("output"))}
            elif details.get("error") is None:
                return "a Task failure recorded without an error name (a mock Throw needs one)"
            else:
                cause = details.get("cause")
                if cause is not None and not isinstance(cause, str):  # parsed by the recording
                    legacy = kind.startswith("Lambda")
                    cause = json.dumps(cause, separators=(", ", ": ") if legacy else (",", ":"))
                answer = {"Throw": {"Error": details["error"], "Cause": cause}}
            answers.setdefault(state, []).append(answer)
    responses = {
        f"R-{name}": {str(i): a for i, a in enumerate(items)} for name, items in answers.items()
    }
    return {
        "StateMachines": {
            "conformance": {"TestCases": {"Recorded": {n: f"R-{n}" for n in answers}}}
        },
        "MockedResponses": responses,
    }


def run_case(case: dict[str, Any]) -> Any:
    mocks = recorded_mocks(case)
    if isinstance(mocks, str):
        return mocks
    try:
        test = JobNetTest(case["definition"], mocks)
    except InvalidDefinition as exc:
        return RULE.Outcome("INVALID_DEFINITION", error=exc.code, cause=exc.cause)
    result = test.run("Recorded", case["input"])
    if result.setup_error is not None:
        return f"setup: {result.setup_error}"
    return RULE.Outcome(result.status, result.output, result.error, result.cause)


# What recorded mocks cannot express (checked exactly, so a new gap shows up).
NOT_EXPRESSIBLE = {
    # a Distributed Map's iterations run as child executions: their Task answers are not
    # in the recorded (parent) history
    "map/test_base_scenarios__test_map_state_config_distributed_reentrant_lambda",
    "map/test_base_scenarios__test_map_state_nested_config_distributed_no_max_max_concurrency",
}


def test_conformance_cases_end_the_same_through_job_test() -> None:
    paths = sorted(CASES.glob("*/*.json"))
    assert len(paths) == 640, f"expected the 640 ASL conformance cases under {CASES}"
    same, excluded, different = 0, {}, {}
    for path in paths:
        case = json.loads(path.read_text())
        outcome = run_case(case)
        cid = RULE.case_id(path)
        if isinstance(outcome, str):
            excluded[cid] = outcome
        elif RULE.matches(case["expected"], outcome):
            same += 1
        else:
            different[cid] = f"expected {case['expected']['status']}, got {outcome}"
    print(f"job test on the ASL conformance cases: {same} same end, "
          f"{len(excluded)} not expressible as mocks, {len(different)} different")  # fmt: skip
    assert different == {}, different
    assert set(excluded) == NOT_EXPRESSIBLE, excluded
