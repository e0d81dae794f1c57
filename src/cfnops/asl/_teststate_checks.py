"""What TestState refuses before it runs a state: mock, context, revealSecrets, stateConfiguration.

From the API reference (https://docs.aws.amazon.com/step-functions/latest/apireference/API_TestState.html,
.../API_MockInput.html, .../API_TestStateConfiguration.html):

- ``mock`` applies to Task, Map and Parallel states only, with exactly one of ``result`` and
  ``errorOutput``; Activity tasks, ``.sync``, ``.waitForTaskToken``, Map and Parallel run
  only with a mock. A Map's mocked result is an array (an object with a ``ResultWriter``),
  a Parallel's an array with one entry per branch;
- ``context`` "may only be specified if a mock is specified in the same request"; it is a
  Context object (https://docs.aws.amazon.com/step-functions/latest/dg/input-output-contextobject.html):
  ``Execution``, ``State``, ``StateMachine`` and, for ``.sync`` / ``.waitForTaskToken``
  Tasks, ``Task``; a ``Map`` member is refused (the Map's item comes from the run);
- ``revealSecrets`` is refused together with a mock (nothing is sent, so there is no
  secret to reveal);
- ``stateConfiguration.errorCausedByState`` names a state inside the Map's ``ItemProcessor``
  or a Parallel's ``Branches``, with a mocked ``errorOutput``; ``mapItemReaderData`` needs a
  Map with an ``ItemReader`` and is a JSON array; ``mapIterationFailureCount`` a Map.

Each refusal is a ``ValidationException`` (or ``InvalidDefinition``) naming the field and
what to give instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from cfnops.asl.errors import AslError

__all__ = ["TestStateError", "check_configuration", "check_context", "check_mock", "inner_states"]

NEEDS_MOCK = (".sync", ".sync:2", ".waitForTaskToken")
_CONTEXT_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "Execution": {"Id": (str,), "Input": (object,), "Name": (str,), "RoleArn": (str,),
                  "StartTime": (str,), "RedriveCount": (int,), "RedriveTime": (str,)},
    "State": {"EnteredTime": (str,), "Name": (str,), "RetryCount": (int,)},
    "StateMachine": {"Id": (str,), "Name": (str,)},
    "Task": {"Token": (str,)},
}  # fmt: skip


class TestStateError(AslError):
    """A request TestState refuses; ``code`` is the API error (``ValidationException`` …)."""

    __test__ = False  # not a pytest class

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        super().__init__(message)


def _invalid(message: str) -> TestStateError:
    return TestStateError("ValidationException", message)


def _loads(text: Any, field: str) -> Any:
    if not isinstance(text, str):
        raise _invalid(f"{field} must be a JSON text")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise _invalid(f"{field} is not valid JSON: {exc}") from None


def check_mock(state: Mapping[str, Any], mock: Any, reveal: bool) -> None:
    """Refuse a mock the state cannot take, or a state that needs one and has none."""
    state_type = state.get("Type")
    resource = str(state.get("Resource", ""))
    if mock is None:
        if state_type in ("Map", "Parallel"):
            raise TestStateError(
                "InvalidDefinition",
                f"TestState runs a {state_type} state only with a mock: give mock.result "
                "(an array) or mock.errorOutput",
            )
        if resource.endswith(NEEDS_MOCK) or ":activity:" in resource:
            raise _invalid(f"TestState runs a Task with {resource!r} only with a mock")
        return
    if not isinstance(mock, Mapping) or ("result" in mock) == ("errorOutput" in mock):
        raise _invalid("A test mock should have exactly one of the fields result, errorOutput")
    if state_type not in ("Task", "Map", "Parallel"):
        raise _invalid(
            f"State type '{state_type}' is not supported when a mock is specified "
            "(a mock applies to Task, Map and Parallel states)"
        )
    if reveal:
        raise _invalid(
            "TestState does not support revealSecrets when a mock is specified: "
            "leave revealSecrets out, or test the HTTP Task without a mock"
        )
    if "result" not in mock:
        return
    result = _loads(mock["result"], "mock.result")
    if state_type == "Map" and "ResultWriter" in state and not isinstance(result, dict):
        raise _invalid("mock.result of a Map with a ResultWriter must be a JSON object")
    if state_type == "Map" and "ResultWriter" not in state and not isinstance(result, list):
        raise _invalid("mock.result of a Map state must be an array (one entry per item)")
    if state_type == "Parallel":
        branches = state.get("Branches") or []
        if not isinstance(result, list) or len(result) != len(branches):
            raise _invalid(
                f"mock.result of a Parallel state must be an array of {len(branches)} "
                "entries, one per branch"
            )


def check_context(text: Any, state: Mapping[str, Any], mock: Any) -> dict[str, Any] | None:
    """The ``context`` request member as the Context object the state sees (None: not given)."""
    if text is None:
        return None
    if mock is None:
        raise _invalid("context may only be given together with a mock")
    context = _loads(text, "context")
    if not isinstance(context, dict):
        raise _invalid("Invalid Context object provided: it must be a JSON object")
    resource = str(state.get("Resource", ""))
    for section, value in context.items():
        if section == "Map":
            raise _invalid(
                "Invalid Context object provided: 'Map' field is not supported when mocking "
                "a Context object (the item comes from the Map's run)"
            )
        if section not in _CONTEXT_FIELDS:
            raise _invalid(f"Invalid Context object provided: Field '{section}' is not allowed")
        if section == "Task" and not (
            state.get("Type") == "Task" and resource.endswith(NEEDS_MOCK)
        ):
            raise _invalid(
                "Invalid Context object provided: Context object contains 'Task' when state "
                "is not a Task state with a '.sync' or '.waitForTaskToken' integration pattern"
            )
        if not isinstance(value, dict):
            raise _invalid(f"Invalid Context object provided: {section} must be an object")
        for key, item in value.items():
            allowed = _CONTEXT_FIELDS[section]
            if key not in allowed:
                raise _invalid(f"Invalid Context object provided: Field '{key}' is not allowed")
            kinds = allowed[key]
            if not isinstance(item, kinds) or (isinstance(item, bool) and object not in kinds):
                kind = "a string" if kinds == (str,) else "an integer"
                raise _invalid(f"Invalid Context object provided: {section}.{key} must be {kind}")
    return context


def inner_states(state: Mapping[str, Any]) -> set[str]:
    """Names of the states inside a Map's processor or a Parallel's branches (nested too)."""
    programs: list[Any] = []
    if state.get("Type") == "Map":
        programs.append(state.get("ItemProcessor") or state.get("Iterator") or {})
    if state.get("Type") == "Parallel":
        programs.extend(state.get("Branches") or [])
    names: set[str] = set()
    for program in programs:
        states = program.get("States") if isinstance(program, dict) else None
        for name, inner in (states or {}).items():
            names.add(name)
            if isinstance(inner, dict):
                names |= inner_states(inner)
    return names


def check_configuration(config: Any, state: Mapping[str, Any], mock: Any) -> Any:
    """Refuse ``stateConfiguration`` members the state cannot use; the parsed
    ``mapItemReaderData`` (None when not given)."""
    if not config:
        return None
    state_type = state.get("Type")
    caused_by = config.get("errorCausedByState")
    if caused_by is not None:
        if state_type not in ("Map", "Parallel"):
            raise _invalid(
                "stateConfiguration.errorCausedByState applies to Map and Parallel states"
            )
        if not isinstance(mock, Mapping) or "errorOutput" not in mock:
            raise _invalid("stateConfiguration.errorCausedByState needs a mocked errorOutput")
        names = inner_states(state)
        if caused_by not in names:
            known = ", ".join(sorted(names)) or "none"
            raise _invalid(
                f"stateConfiguration.errorCausedByState {caused_by!r} is not a state inside "
                f"the {state_type} (its states: {known})"
            )
    if config.get("mapIterationFailureCount") is not None and state_type != "Map":
        raise _invalid("stateConfiguration.mapIterationFailureCount applies to Map states")
    reader = config.get("mapItemReaderData")
    if reader is None:
        return None
    if state_type != "Map" or "ItemReader" not in state:
        raise _invalid("stateConfiguration.mapItemReaderData needs a Map state with an ItemReader")
    items = _loads(reader, "stateConfiguration.mapItemReaderData")
    if not isinstance(items, list):
        raise _invalid("stateConfiguration.mapItemReaderData must be a JSON array of the items")
    return items
