"""Step Functions Local's mock configuration file (``MockConfigFile.json``), read unchanged.

The format is AWS's ("Configuration file for mocked service integrations in Step
Functions", https://docs.aws.amazon.com/step-functions/latest/dg/sfn-local-mock-cfg-file.html):

- ``StateMachines`` → state machine name → ``TestCases`` → test case name → state name →
  the name of a mocked response;
- ``MockedResponses`` → response name → attempt key → ``{"Return": value}`` or
  ``{"Throw": {"Error": …, "Cause": …}}``. An attempt key is one zero-based attempt
  (``"0"``) or an inclusive range (``"1-2"``); a retried Task uses the next attempt.

cfnops adds what a test case expects under a top-level ``cfnops`` key (see
:mod:`cfnops.jobs._jobtest_expect`), or in a side file of the same shape.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cfnops.jobs.errors import MockConfigError

__all__ = ["MockAnswer", "MockConfig", "MockedResponse", "parse_mock_config"]

_ATTEMPT_KEY = re.compile(r"^(\d+)(?:-(\d+))?$")


@dataclass(frozen=True)
class MockAnswer:
    """One attempt's answer: a ``Return`` value or a ``Throw`` (error, cause)."""

    returns: bool
    value: Any = None
    error: str | None = None
    cause: str | None = None


@dataclass(frozen=True)
class MockedResponse:
    """A named mocked response: answers for attempt ranges ``(first, last, answer)``."""

    name: str
    ranges: tuple[tuple[int, int, MockAnswer], ...]

    def answer(self, attempt: int) -> MockAnswer | None:
        """The answer for the zero-based ``attempt``, or None when none is defined."""
        for first, last, answer in self.ranges:
            if first <= attempt <= last:
                return answer
        return None

    @property
    def defined(self) -> str:
        """The attempt keys, as written (``0, 1-2, 3``)."""
        return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b, _ in self.ranges)


@dataclass(frozen=True)
class MockConfig:
    """A parsed mock configuration: test cases per state machine, and the responses."""

    test_cases: Mapping[str, Mapping[str, Mapping[str, str]]]
    responses: Mapping[str, MockedResponse]
    extra: Mapping[str, Any] = field(default_factory=dict)

    def case(self, machine: str, name: str) -> dict[str, MockedResponse]:
        """The state → mocked response map of one test case."""
        return {state: self.responses[ref] for state, ref in self.test_cases[machine][name].items()}


def _obj(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise MockConfigError(where, f"is {type(value).__name__}, not an object")
    return value


def _answer(value: Any, where: str) -> MockAnswer:
    body = _obj(value, where)
    if set(body) == {"Return"}:
        return MockAnswer(True, value=body["Return"])
    if set(body) == {"Throw"}:
        throw = _obj(body["Throw"], f"{where}.Throw")
        error, cause = throw.get("Error"), throw.get("Cause")
        if not isinstance(error, str) or not (cause is None or isinstance(cause, str)):
            raise MockConfigError(f"{where}.Throw", "needs Error (a string) and Cause (a string)")
        return MockAnswer(False, error=error, cause=cause)
    raise MockConfigError(where, f"has {sorted(body)}: give exactly one of Return or Throw")


def _response(name: str, value: Any) -> MockedResponse:
    where = f"MockedResponses.{name}"
    ranges: list[tuple[int, int, MockAnswer]] = []
    for key, body in _obj(value, where).items():
        m = _ATTEMPT_KEY.match(key)
        if m is None:
            raise MockConfigError(f"{where}.{key}", 'is not an attempt ("0") or a range ("1-2")')
        first = int(m.group(1))
        last = int(m.group(2)) if m.group(2) else first
        if last < first:
            raise MockConfigError(f"{where}.{key}", "ends before it starts")
        for a, b, _ in ranges:
            if first <= b and a <= last:
                raise MockConfigError(f"{where}.{key}", f"overlaps attempts {a}-{b}")
        ranges.append((first, last, _answer(body, f"{where}.{key}")))
    if not ranges:
        raise MockConfigError(where, "defines no attempt")
    return MockedResponse(name, tuple(sorted(ranges, key=lambda r: r[0])))


def parse_mock_config(data: Any) -> MockConfig:
    """Check and read a mock configuration (the parsed JSON of ``MockConfigFile.json``).

    >>> cfg = parse_mock_config({"StateMachines": {"M": {"TestCases": {"Happy": {"A": "Ok"}}}},
    ...     "MockedResponses": {"Ok": {"0": {"Return": {"done": True}}}}})
    >>> cfg.case("M", "Happy")["A"].answer(0).value
    {'done': True}
    """
    top = _obj(data, "the mock configuration")
    responses = {
        name: _response(name, body)
        for name, body in _obj(top.get("MockedResponses", {}), "MockedResponses").items()
    }
    cases: dict[str, dict[str, dict[str, str]]] = {}
    machines = _obj(top.get("StateMachines"), "StateMachines")
    for machine, body in machines.items():
        where = f"StateMachines.{machine}.TestCases"
        test_cases = _obj(_obj(body, f"StateMachines.{machine}").get("TestCases"), where)
        cases[machine] = {}
        for case, states in test_cases.items():
            mapping = _obj(states, f"{where}.{case}")
            for state, ref in mapping.items():
                if not isinstance(ref, str) or ref not in responses:
                    raise MockConfigError(
                        f"{where}.{case}.{state}",
                        f"names the mocked response {ref!r}, which MockedResponses lacks",
                    )
            cases[machine][case] = dict(mapping)
    extra = {k: v for k, v in top.items() if k not in ("StateMachines", "MockedResponses")}
    return MockConfig(cases, responses, extra)
