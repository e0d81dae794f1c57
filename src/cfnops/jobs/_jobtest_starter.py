"""A starter mock configuration for a job-net: one test case per path through its Tasks.

``HappyPath`` answers every Task with ``{}``, or with the fields its own ``Assign``,
``Output`` or ``ResultSelector`` read from its answer (``$states.result.Rules[0].RuleArn``
gets ``"<Task>.Rules[0].RuleArn"``), so that the run gets past it; for each Task with a
``Catch``, a case in which that Task fails (``States.TaskFailed`` on every attempt, so
retries run out) takes the Catch; for each branch of each Choice state (its rules and
its ``Default``), a case ``<Choice>To<State>`` whose execution input, or one Task's mocked
answer, holds data that sends the Choice there (see :mod:`cfnops.jobs._jobtest_choice`);
a branch no such data reaches is listed under ``UnreachedChoices`` with the reason. Each
case is run once and what it did becomes its expectations (status, error, the states
entered): a starting point to review, give real Task answers and commit.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from cfnops.jobs._jobtest import CaseResult, JobNetTest
from cfnops.jobs._jobtest_choice import (
    branch_assignments,
    place,
    result_shape,
    split_for_task,
)

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


def _choices(states: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for name, state in states.items():
        if state.get("Type") == "Choice":
            yield name, state
        inner = state.get("ItemProcessor") or state.get("Iterator")
        if isinstance(inner, Mapping):
            yield from _choices(inner.get("States", {}))
        for branch in state.get("Branches", []):
            yield from _choices(branch.get("States", {}))


def _case_name(choice: str, target: str, taken: dict[str, Any]) -> str:
    base = "".join(ch for ch in f"{choice}To{target}" if ch.isalnum() or ch in "-_") or "Choice"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}{n}", n + 1
    return name


def _went(result: CaseResult, choice: str, target: str) -> bool:
    pairs = zip(result.states, result.states[1:], strict=False)
    return result.setup_error is None and (choice, target) in pairs


@dataclass
class _Scenario:
    """A case that runs: its input, its state → response mapping, the states it entered."""

    name: str
    value: Any
    mapping: dict[str, str]
    states: tuple[str, ...]


def _first_answer(responses: Mapping[str, Any], mapping: Mapping[str, str], task: str) -> Any:
    response = responses.get(mapping.get(task, ""), {})
    first = response.get("0") or response.get(_ATTEMPTS) or {}
    return first.get("Return", {}) if isinstance(first, Mapping) else {}


def _feeders(scenario: _Scenario, choice: str, tasks: Mapping[str, Any]) -> list[str]:
    """The Task whose answer the Choice reads in this run (the last one before it), then
    the other Tasks (a variable may come from any)."""
    before = scenario.states[: scenario.states.index(choice)]
    last = [s for s in reversed(before) if s in tasks][:1]
    return last + [t for t in tasks if t not in last and t in before]


class _Graph:
    """Transitions between states (nested ones too), to tell a poll loop."""

    def __init__(self, states: Mapping[str, Any]) -> None:
        self.edges: dict[str, set[str]] = {}
        self._add(states)

    def _add(self, states: Mapping[str, Any]) -> None:
        for name, state in states.items():
            targets = [state.get("Next"), state.get("Default")]
            targets += [c.get("Next") for c in state.get("Choices", []) if isinstance(c, dict)]
            targets += [c.get("Next") for c in state.get("Catch", []) if isinstance(c, dict)]
            inner = state.get("ItemProcessor") or state.get("Iterator")
            programs = ([inner] if isinstance(inner, Mapping) else []) + list(
                state.get("Branches", [])
            )
            for program in programs:
                targets.append(program.get("StartAt"))
                self._add(program.get("States", {}))
            self.edges[name] = {t for t in targets if isinstance(t, str)}

    def reachable(self, start: str) -> set[str]:
        seen, todo = {start}, [start]
        while todo:
            for nxt in self.edges.get(todo.pop(), set()) - seen:
                seen.add(nxt)
                todo.append(nxt)
        return seen


class _Search:
    """Finds, for each Choice branch, a run that takes it, building on runs found before."""

    def __init__(self, definition: Mapping[str, Any], name: str, mocks: dict[str, Any],
                 tasks: Mapping[str, Mapping[str, Any]], base_input: Any) -> None:  # fmt: skip
        self.definition, self.name, self.mocks, self.tasks = definition, name, mocks, tasks
        self.cases: dict[str, dict[str, str]] = mocks["StateMachines"][name]["TestCases"]
        self.responses: dict[str, Any] = mocks["MockedResponses"]
        self.language = str(definition.get("QueryLanguage", "JSONPath"))
        self.graph = _Graph(definition.get("States", {}))
        self.inputs: dict[str, Any] = {}
        happy = self._run("HappyPath", base_input, self.cases["HappyPath"], {})
        self.scenarios = [_Scenario("HappyPath", base_input, self.cases["HappyPath"], happy.states)]

    def _run(
        self, case: str, value: Any, mapping: dict[str, str], extra: dict[str, Any]
    ) -> CaseResult:
        machines = {self.name: {"TestCases": {**self.cases, case: mapping}}}
        trial = {**self.mocks, "MockedResponses": {**self.responses, **extra},
                 "StateMachines": machines}  # fmt: skip
        return JobNetTest(self.definition, trial, state_machine=self.name).run(case, value)

    def _tries(
        self, base: _Scenario, choice: str, target: str, assignment: Any
    ) -> Iterator[tuple[Any, str | None, dict[str, Any] | None]]:
        """(input, Task, its mocked response) to try: the data in the input, or in the
        answer of a Task the Choice reads. The answer holds on every attempt unless the
        branch comes back to that Task (a poll loop): then the base run's answer follows."""
        yield place(base.value, assignment), None, None
        for task in _feeders(base, choice, self.tasks):
            split = split_for_task(assignment, self.tasks[task], self.language)
            if split is not None:
                first = _first_answer(self.responses, base.mapping, task)
                answer = place(first, split[1])
                if task in self.graph.reachable(target):
                    response = {"0": {"Return": answer}, "1-999": {"Return": first}}
                else:
                    response = {_ATTEMPTS: {"Return": answer}}
                yield place(base.value, split[0]), task, response

    def branch(self, choice: str, target: str, assignment: Any) -> bool:
        case = _case_name(choice, target, self.cases)
        for base in list(self.scenarios):
            if choice not in base.states:
                continue
            for value, task, response in self._tries(base, choice, target, assignment):
                mapping, extra = dict(base.mapping), {}
                if task is not None and response is not None:
                    extra[case] = response
                    mapping[task] = case
                result = self._run(case, value, mapping, extra)
                if _went(result, choice, target):
                    self.cases[case] = mapping
                    self.responses.update(extra)
                    self.inputs[case] = value
                    self.scenarios.append(_Scenario(case, value, mapping, result.states))
                    return True
        return False


def _choice_cases(
    definition: Mapping[str, Any],
    name: str,
    mocks: dict[str, Any],
    tasks: Mapping[str, Mapping[str, Any]],
    base_input: Any,
) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """Cases (with their inputs) that take each Choice branch; the branches none reaches.

    A branch is tried on every run found so far that reaches its Choice (HappyPath first,
    then the cases found for other branches), until a pass finds nothing new: a Choice
    behind another Choice is reached through the case that took the first one.
    """
    search = _Search(definition, name, mocks, tasks, base_input)
    pending: list[tuple[str, str, Any]] = []
    unreached: list[dict[str, str]] = []
    for choice, state in _choices(definition.get("States", {})):
        for target, assignment in branch_assignments(state):
            if assignment is None:
                unreached.append({"choice": choice, "next": target,
                                  "why": "no data found for its rule (the context object, "
                                         "a variable path, or a JSONata expression beyond "
                                         "comparisons with literals)"})  # fmt: skip
            else:
                pending.append((choice, target, assignment))
    progress = True
    while progress and pending:
        progress = False
        for item in list(pending):
            if search.branch(*item):
                pending.remove(item)
                progress = True
    for choice, target, _ in pending:
        unreached.append({"choice": choice, "next": target,
                          "why": "no run with data for its rule reached it"})  # fmt: skip
    return search.inputs, unreached


def starter_mocks(
    definition: Mapping[str, Any], name: str, execution_input: Any = None
) -> dict[str, Any]:
    """Step Functions Local's mock configuration for ``definition`` (as ``name``), with the
    cases' observed outcomes as ``cfnops`` expectations."""
    tasks = dict(_tasks(definition.get("States", {})))
    answer: dict[str, Any] = {_ATTEMPTS: {"Return": {}}}
    responses: dict[str, Any] = {"Answers": answer}
    cases: dict[str, dict[str, str]] = {"HappyPath": dict.fromkeys(tasks, "Answers")}
    language = str(definition.get("QueryLanguage", "JSONPath"))
    for task, state in tasks.items():
        shaped = result_shape(state, language, task)
        if shaped:  # the fields the Task's own expressions read from its answer
            responses[f"{task}Answer"] = {_ATTEMPTS: {"Return": shaped}}
            cases["HappyPath"][task] = f"{task}Answer"
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
    base_input = {} if execution_input is None else execution_input
    inputs, unreached = _choice_cases(definition, name, mocks, tasks, base_input)
    test = JobNetTest(definition, mocks, state_machine=name)
    expectations: dict[str, Any] = {}
    for case in cases:
        result = test.run(case, inputs.get(case, base_input))
        expect: dict[str, Any] = {}
        if case in inputs:
            expect["input"] = inputs[case]
        expect.update(status=result.status, states=list(result.states))
        if result.error is not None:
            expect["error"] = result.error
        expectations[case] = expect
    section: dict[str, Any] = {"TestCases": expectations}
    if execution_input is not None:
        section["Input"] = execution_input
    if unreached:
        section["UnreachedChoices"] = unreached
    mocks["cfnops"] = {"StateMachines": {name: section}}
    return mocks
