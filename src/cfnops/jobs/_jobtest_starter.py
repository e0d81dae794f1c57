"""A starter mock configuration for a job-net: one test case per path through its Tasks.

``HappyPath`` answers every Task with ``{}``; for each Task with a ``Catch``, a case in
which that Task fails (``States.TaskFailed`` on every attempt, so retries run out) takes
the Catch. Each case is run once and what it did becomes its expectations (status, error,
the states entered): a starting point to review, give real Task answers and commit.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from cfnops.jobs._jobtest import JobNetTest

__all__ = ["starter_mocks"]

_ATTEMPTS = "0-999"


def _tasks(states: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for name, state in states.items():
        if state.get("Type") == "Task":
            yield name, state
        inner = state.get("ItemProcessor") or state.get("Iterator")
        if isinstance(inner, Mapping):
            yield from _tasks(inner.get("States", {}))
        for branch in state.get("Branches", []):
            yield from _tasks(branch.get("States", {}))


def starter_mocks(
    definition: Mapping[str, Any], name: str, execution_input: Any = None
) -> dict[str, Any]:
    """Step Functions Local's mock configuration for ``definition`` (as ``name``), with the
    cases' observed outcomes as ``cfnops`` expectations."""
    tasks = dict(_tasks(definition.get("States", {})))
    answer: dict[str, Any] = {_ATTEMPTS: {"Return": {}}}
    responses: dict[str, Any] = {"Answers": answer}
    cases: dict[str, dict[str, str]] = {"HappyPath": dict.fromkeys(tasks, "Answers")}
    for task, state in tasks.items():
        if state.get("Catch"):
            responses[f"{task}Fails"] = {
                _ATTEMPTS: {"Throw": {"Error": "States.TaskFailed", "Cause": f"{task} failed"}}
            }
            cases[f"{task}Fails"] = {**cases["HappyPath"], task: f"{task}Fails"}
    mocks: dict[str, Any] = {
        "StateMachines": {name: {"TestCases": cases}},
        "MockedResponses": responses,
    }
    test = JobNetTest(definition, mocks, state_machine=name)
    expectations: dict[str, Any] = {}
    for case in cases:
        result = test.run(case, {} if execution_input is None else execution_input)
        expect: dict[str, Any] = {"status": result.status, "states": list(result.states)}
        if result.error is not None:
            expect["error"] = result.error
        expectations[case] = expect
    section: dict[str, Any] = {"TestCases": expectations}
    if execution_input is not None:
        section["Input"] = execution_input
    mocks["cfnops"] = {"StateMachines": {name: section}}
    return mocks
