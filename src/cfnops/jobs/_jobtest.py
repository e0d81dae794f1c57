"""Mocked test cases of a job-net, run in-process on the ASL interpreter.

>>> from cfnops.jobs import JobNetTest
>>> definition = {"StartAt": "Get", "States": {"Get": {"Type": "Task",
...     "Resource": "arn:aws:states:::aws-sdk:s3:getObject", "End": True}}}
>>> test = JobNetTest(definition, {"StateMachines": {"m": {"TestCases": {"Ok": {"Get": "R"}}}},
...     "MockedResponses": {"R": {"0": {"Return": {"Body": "hi"}}}}})
>>> result = test.run("Ok")
>>> result.status, result.output, result.states
('SUCCEEDED', {'Body': 'hi'}, ('Get',))
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from cfnops.asl import CancelToken, HistoryEvent, Interpreter, check_definition
from cfnops.jobs._definition import load_definition, machine_name
from cfnops.jobs._jobtest_expect import Expectation, check_expectation, parse_expectations
from cfnops.jobs._jobtest_ports import (
    InstantClock,
    MockInvoker,
    SequentialBranchExecutor,
    TaskCall,
)
from cfnops.jobs._mockconfig import MockConfig, parse_mock_config
from cfnops.jobs.errors import JobInputError, UnknownTestCase

__all__ = ["CaseResult", "JobNetTest", "load_job_test"]

_DEFAULT_INPUT: Any = object()


@dataclass(frozen=True)
class CaseResult:
    """How one mocked test case ran, and whether it met its expectations."""

    state_machine: str
    case: str
    status: str
    output: Any = None
    error: str | None = None
    cause: str | None = None
    states: tuple[str, ...] = ()
    calls: tuple[TaskCall, ...] = ()
    seconds: float = 0.0
    problems: tuple[str, ...] = ()
    setup_error: str | None = None
    events: tuple[HistoryEvent, ...] = field(default=(), repr=False)

    @property
    def passed(self) -> bool:
        return not self.problems and self.setup_error is None

    def to_json(self) -> dict[str, Any]:
        return {
            "stateMachine": self.state_machine,
            "case": self.case,
            "passed": self.passed,
            "status": self.status,
            "output": self.output,
            "error": self.error,
            "cause": self.cause,
            "states": list(self.states),
            "taskCalls": [
                {
                    "state": c.state,
                    "attempt": c.attempt,
                    "response": c.response,
                    "returned": c.returned,
                    "error": c.error,
                }
                for c in self.calls
            ],
            "seconds": round(self.seconds, 6),
            "problems": list(self.problems),
            "setupError": self.setup_error,
        }


def _read_json(path: Path, what: str) -> Any:
    import json

    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise JobInputError(what, str(path), exc.strerror or str(exc)) from None
    except ValueError as exc:
        raise JobInputError(what, str(path), f"not JSON ({exc})", hint="fix the JSON") from None


class JobNetTest:
    """A job-net and its mock configuration: runs test cases with mocked Task answers.

    ``mocks`` is Step Functions Local's mock configuration (parsed JSON or a
    :class:`MockConfig`); ``state_machine`` picks its entry (default: the only one);
    ``expectations`` overrides the ``cfnops`` key of the mock configuration.
    """

    def __init__(
        self,
        definition: Mapping[str, Any],
        mocks: MockConfig | Mapping[str, Any],
        *,
        state_machine: str | None = None,
        expectations: Mapping[str, Any] | None = None,
        where: str = "the mock configuration",
    ) -> None:
        check_definition(definition)
        self.definition = definition
        self.config = mocks if isinstance(mocks, MockConfig) else parse_mock_config(mocks)
        known = sorted(self.config.test_cases)
        if state_machine is None and len(known) == 1:
            state_machine = known[0]
        if state_machine is None or state_machine not in self.config.test_cases:
            raise UnknownTestCase("state machine", state_machine or "(none given)", known)
        self.state_machine = state_machine
        source = expectations if expectations is not None else self.config.extra
        parsed = parse_expectations(source, where) if "cfnops" in source or expectations else {}
        self.expectations: dict[str, Expectation] = parsed.get(state_machine, {})
        for case in self.expectations:
            if case not in self.config.test_cases[state_machine]:
                raise UnknownTestCase("test case", case, self.cases)

    @property
    def cases(self) -> list[str]:
        """The test case names of the state machine, in file order."""
        return list(self.config.test_cases[self.state_machine])

    def run(self, case: str, execution_input: Any = _DEFAULT_INPUT) -> CaseResult:
        """Run one test case; its expectations (if any) are checked."""
        if case not in self.config.test_cases[self.state_machine]:
            raise UnknownTestCase("test case", case, self.cases)
        expectation = self.expectations.get(case)
        if execution_input is _DEFAULT_INPUT:
            execution_input = expectation.input if expectation is not None else {}
        invoker = MockInvoker(case, self.config.case(self.state_machine, case))
        invoker.cancel = cancel = CancelToken()
        clock = InstantClock()
        if "TimeoutSeconds" in self.definition:  # on the clock's time, not the wall's
            clock.deadline = clock.now() + timedelta(
                seconds=float(self.definition["TimeoutSeconds"])
            )
            clock.on_deadline = lambda: cancel.cancel("timeout")
        interpreter = Interpreter(
            {k: v for k, v in self.definition.items() if k != "TimeoutSeconds"},
            invoker=invoker,
            clock=clock,
            branch_executor=SequentialBranchExecutor(),
            state_machine_name=self.state_machine,
            validate=False,
        )
        began = time.perf_counter()
        result = interpreter.run(execution_input, name=case, cancel=invoker.cancel)
        seconds = time.perf_counter() - began
        states = tuple(
            str(e.details.get("name")) for e in result.events if e.type.endswith("StateEntered")
        )
        problems: list[str] = []
        if expectation is not None and invoker.problem is None:
            calls: dict[str, int] = {}
            for call in invoker.calls:
                calls[call.state] = calls.get(call.state, 0) + 1
            problems = check_expectation(
                expectation, status=result.status, output=result.output,
                error=result.error, cause=result.cause, states=states, calls=calls,
            )  # fmt: skip
        return CaseResult(
            self.state_machine, case, result.status, result.output, result.error,
            result.cause, states, tuple(invoker.calls), seconds, tuple(problems),
            None if invoker.problem is None else str(invoker.problem), result.events,
        )  # fmt: skip

    def run_all(self, cases: Sequence[str] | None = None) -> list[CaseResult]:
        """Run the named cases (default: all), in order."""
        return [self.run(case) for case in (cases or self.cases)]


def load_job_test(
    definition: str | Path,
    mocks: str | Path,
    *,
    expectations: str | Path | None = None,
    state_machine: str | None = None,
) -> JobNetTest:
    """A :class:`JobNetTest` from files; the state machine defaults to the definition's
    file name (``webapp-stop.asl.json`` → ``webapp-stop``) when the mock file has it."""
    defn = load_definition(definition)
    config = parse_mock_config(_read_json(Path(mocks), "the mock configuration"))
    if state_machine is None and machine_name(definition) in config.test_cases:
        state_machine = machine_name(definition)
    side = _read_json(Path(expectations), "the expectations") if expectations else None
    where = str(expectations) if expectations else str(mocks)
    return JobNetTest(defn, config, state_machine=state_machine, expectations=side, where=where)
