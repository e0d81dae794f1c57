"""Step Functions' TestState on the interpreter: one state, its data flow and its outcome.

As documented in "Using TestState API to test a state"
(https://docs.aws.amazon.com/step-functions/latest/dg/test-state-isolation.html) and the
API reference (https://docs.aws.amazon.com/step-functions/latest/apireference/API_TestState.html):

- ``definition`` is one state, or a state machine with ``stateName`` naming the state
  (default: its ``StartAt``); ``input`` and ``variables`` are JSON texts;
- ``mock`` gives a Task's (or a Map's / Parallel's) result, or ``errorOutput`` an error;
  Map, Parallel, ``.sync`` and ``.waitForTaskToken`` run only with a mock;
- ``status`` is SUCCEEDED, FAILED, RETRIABLE (a Retrier matches and has attempts left
  after ``stateConfiguration.retrierRetryCount``) or CAUGHT_ERROR (a Catcher matches);
  ``nextState`` is the state that would come next (none after a failure or an end);
- ``inspectionLevel`` DEBUG (and TRACE) add ``inspectionData``: ``input``,
  ``afterInputPath``, ``afterParameters``, ``result``, ``afterResultSelector``,
  ``afterResultPath`` (JSONPath) or ``afterArguments`` and ``result`` (JSONata), and
  ``variables``; ``errorDetails`` says which Retrier or Catcher applied. A Map shows its
  input side instead of ``afterParameters``/``result`` (``afterItemsPath``,
  ``afterItemSelector``, ``afterItemBatcher``, ``maxConcurrency``,
  ``toleratedFailureCount``/``Percentage``: :mod:`cfnops.asl._teststate_map`). TRACE adds
  the HTTP ``request``/``response`` of an HTTP Task sent without a mock
  (:mod:`cfnops.asl._teststate_http`; ``revealSecrets`` shows the connection's additions);
- ``context`` is the Context object the state sees (``$$``, ``$states.context``), only with
  a mock; ``stateConfiguration.errorCausedByState`` names the inner state a mocked Map or
  Parallel error comes from, ``mapItemReaderData`` a Distributed Map's items
  (checks: :mod:`cfnops.asl._teststate_checks`).

The state runs on :class:`cfnops.asl.Interpreter` inside a small state machine: the state
itself (its Retry rules taken out: a test is one attempt), and in place of every state it
can go to, a Pass state that hands back its input and the variables in scope.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from cfnops.asl._interpreter import Interpreter, StartPoint
from cfnops.asl._ports import TaskContext
from cfnops.asl._retry import decide_retry, find_catcher
from cfnops.asl._teststate_checks import (
    TestStateError,
    check_configuration,
    check_context,
    check_mock,
)
from cfnops.asl._teststate_http import (
    HTTP_RESOURCE,
    ConnectionLookup,
    HttpExchange,
    send_http_task,
)
from cfnops.asl._teststate_map import map_stages
from cfnops.asl.errors import InvalidDefinition, TaskFailure
from cfnops.http import HttpTransport

__all__ = ["TestStateError", "instant_clock", "test_state"]

_END = "cfnops:TestState:End"
_MOCK_RESOURCE = "arn:aws:states:::cfnops:teststate-mock"


@dataclass
class _Recorder:
    payload: Any = None
    result: Any = None
    called: bool = False
    exchange: HttpExchange | None = None


@dataclass
class _Wire:
    """How an un-mocked HTTP Task goes out (the sandbox's transport and connections)."""

    http: HttpTransport | None = None
    connections: ConnectionLookup | None = None
    reveal: bool = False


class _MockInvoker:
    def __init__(
        self, mock: Mapping[str, Any] | None, seen: _Recorder, wire: _Wire | None = None
    ) -> None:
        self.mock = mock
        self.seen = seen
        self.wire = wire or _Wire()

    def invoke(
        self, resource: str, payload: Any, *, timeout: float | None, context: TaskContext
    ) -> Any:
        self.seen.payload, self.seen.called = payload, True
        if self.mock is None and resource == HTTP_RESOURCE and self.wire.http is not None:
            self.seen.exchange = HttpExchange()
            result = send_http_task(
                payload,
                self.wire.http,
                self.wire.connections,
                self.wire.reveal,
                self.seen.exchange,
            )
            self.seen.result = result
            return result
        if self.mock is None:
            raise TestStateError("ValidationException", "no mock")  # checked before the run
        if "errorOutput" in self.mock:
            err = self.mock["errorOutput"] or {}
            raise TaskFailure(err.get("error"), err.get("cause"))
        self.seen.result = _loads(self.mock.get("result", "null"), "mock.result")
        return self.seen.result


def instant_clock() -> _InstantClock:
    """A clock on which waits and backoffs take no time (one per run)."""
    return _InstantClock()


class _InstantClock:
    def __init__(self) -> None:
        self._now = datetime.now(UTC)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def sleep(self, seconds: float, cancel: threading.Event | None = None) -> bool:
        with self._lock:
            self._now += timedelta(seconds=max(seconds, 0.0))
        return not (cancel is not None and cancel.is_set())


def _loads(text: Any, field: str) -> Any:
    """A request member's JSON text, parsed (``input``: InvalidExecutionInput when bad)."""
    if not isinstance(text, str):
        raise TestStateError("ValidationException", f"{field} must be a JSON text")
    try:
        return json.loads(text)
    except ValueError as exc:
        code = "InvalidExecutionInput" if field == "input" else "ValidationException"
        raise TestStateError(code, f"{field} is not valid JSON: {exc}") from None


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _pick_state(request: Mapping[str, Any]) -> tuple[str, dict[str, Any], str]:
    definition = request.get("definition")
    try:
        parsed = json.loads(definition) if isinstance(definition, str) else None
    except ValueError as exc:
        raise TestStateError("InvalidDefinition", f"definition is not valid JSON: {exc}") from None
    if not isinstance(parsed, dict):
        raise TestStateError("InvalidDefinition", "definition must be a JSON object")
    language = str(parsed.get("QueryLanguage", "JSONPath"))
    if "States" in parsed:
        states = parsed["States"]
        name = request.get("stateName") or parsed.get("StartAt")
        if not isinstance(states, dict) or name not in states:
            raise TestStateError(
                "ValidationException", f"stateName {name!r} is not a state of the definition"
            )
        return str(name), dict(states[name]), language
    return str(request.get("stateName") or "TestState"), parsed, language


def _targets(state: Mapping[str, Any]) -> list[str]:
    names = [state.get("Next"), state.get("Default")]
    names += [c.get("Next") for c in state.get("Choices", []) if isinstance(c, dict)]
    names += [c.get("Next") for c in state.get("Catch", []) if isinstance(c, dict)]
    return [n for n in dict.fromkeys(names) if isinstance(n, str)]


def _stub(language: str, names: list[str]) -> dict[str, Any]:
    """A Pass state that outputs ``{"output": its input, "variables": {name: $name}}``."""
    if language == "JSONata":
        pairs = ", ".join(f"{json.dumps(n)}: ${n}" for n in names)
        output = f"{{% {{'output': $states.input, 'variables': {{{pairs}}}}} %}}"
        return {"Type": "Pass", "Output": output, "End": True}
    return {
        "Type": "Pass",
        "Parameters": {"output.$": "$", "variables": {f"{n}.$": f"${n}" for n in names}},
        "End": True,
    }


def _as_task(state: Mapping[str, Any]) -> dict[str, Any]:
    """A Map or Parallel whose result is mocked: a Task keeping its data-flow fields."""
    keep = ("Comment", "InputPath", "OutputPath", "ResultPath", "ResultSelector", "Assign",
            "Output", "Catch", "Retry", "Next", "End", "QueryLanguage")  # fmt: skip
    task = {k: v for k, v in state.items() if k in keep}
    task.update(Type="Task", Resource=_MOCK_RESOURCE)
    return task


def _variable_names(
    request: Mapping[str, Any], state: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    variables = _loads(request["variables"], "variables") if request.get("variables") else {}
    if not isinstance(variables, dict):
        raise TestStateError("ValidationException", "variables must be a JSON object")
    names = list(variables)
    for holder in [state, *state.get("Catch", [])]:
        if isinstance(holder, dict) and isinstance(holder.get("Assign"), dict):
            names += [n for n in holder["Assign"] if n not in names]
    return variables, names


def _check_service(state: Mapping[str, Any], mock: Any, wire: _Wire) -> None:
    """The sandbox calls no service but HTTP: a Task without a mock needs its answer."""
    if mock is not None or state.get("Type") != "Task":
        return
    if state.get("Resource") == HTTP_RESOURCE and wire.http is not None:
        return
    raise TestStateError(
        "ValidationException",
        "this TestState (cfnops sandbox) calls no service but HTTP Tasks: give the Task's "
        "answer in mock",
    )


def _tolerated(data: Mapping[str, Any], failures: int, items: int) -> bool:
    """Whether ``mapIterationFailureCount`` failures stay within the Map's threshold.

    A Map without ToleratedFailureCount/Percentage has no threshold to exceed: AWS answers
    SUCCEEDED with the mocked result whatever the count (as recorded against AWS).
    """
    count = data.get("toleratedFailureCount")
    percent = data.get("toleratedFailurePercentage")
    if count is None and percent is None:
        return True
    if count is not None and failures <= int(count):
        return True
    return percent is not None and (
        failures == 0 or (items > 0 and failures * 100.0 / items <= percent)
    )


@dataclass
class _Run:
    status: str
    output: Any = None
    error: str | None = None
    cause: str | None = None
    next_state: str | None = None
    variables: dict[str, Any] | None = None


def _machine(name: str, subject: dict[str, Any], language: str, names: list[str]) -> dict[str, Any]:
    if subject.pop("End", False):
        subject["Next"] = _END
    states: dict[str, Any] = {name: subject}
    for target in _targets(subject):
        if target != name:
            states[target] = _stub(language, names)
    return {"QueryLanguage": language, "StartAt": name, "States": states}


def _run(
    name: str,
    subject: dict[str, Any],
    language: str,
    value: Any,
    variables: dict[str, Any],
    names: list[str],
    invoker: _MockInvoker,
    context: dict[str, Any] | None = None,
) -> _Run:
    machine = _machine(name, dict(subject), language, names)
    try:
        interpreter = Interpreter(machine, invoker=invoker, clock=_InstantClock())
    except InvalidDefinition as exc:
        raise TestStateError("InvalidDefinition", exc.message) from None
    result = interpreter.run(value, start=StartPoint(name, value, variables, context))
    if result.status != "SUCCEEDED":
        return _Run(result.status, error=result.error, cause=result.cause)
    entered = [e.details.get("name") for e in result.events if e.type.endswith("StateEntered")]
    nxt = next((n for n in entered if n != name), None)
    if nxt is None:  # a Succeed state (or a Choice looping to itself)
        return _Run("SUCCEEDED", output=result.output)
    out = result.output
    return _Run(
        "SUCCEEDED",
        output=out.get("output"),
        next_state=None if nxt == _END else str(nxt),
        variables=out.get("variables") or None,
    )


def _pass_output(
    language: str, fields: Mapping[str, Any], value: Any, variables: dict[str, Any]
) -> Any:
    machine = {"QueryLanguage": language, "StartAt": "P",
               "States": {"P": {"Type": "Pass", **fields, "End": True}}}  # fmt: skip
    result = Interpreter(machine, clock=_InstantClock()).run(
        value, start=StartPoint("P", value, variables)
    )
    return result.output if result.status == "SUCCEEDED" else None


def _inspection(
    state: Mapping[str, Any],
    language: str,
    value: Any,
    variables: dict[str, Any],
    seen: _Recorder,
    run: _Run,
    status: str,
    stages: dict[str, Any] | None,
) -> dict[str, Any]:
    data: dict[str, Any] = {"input": _dumps(value)}
    stype = state.get("Type")
    if language == "JSONata":
        if seen.called and stype != "Map":
            data["afterArguments"] = _dumps(seen.payload)
        if seen.called and status == "SUCCEEDED" and stype != "Map":
            data["result"] = _dumps(seen.result)
    else:
        fields = {k: state[k] for k in ("InputPath",) if k in state}
        after_input = _pass_output(language, fields, value, variables) if fields else value
        data["afterInputPath"] = _dumps(after_input)
        if stype in ("Pass", "Task", "Map", "Parallel"):
            params = {k: state[k] for k in ("InputPath", "Parameters") if k in state}
            if seen.called and stype != "Map":
                data["afterParameters"] = _dumps(seen.payload)
            elif stype == "Pass":
                data["afterParameters"] = _dumps(
                    _pass_output(language, params, value, variables) if params else value
                )
            if status == "SUCCEEDED":
                _after_result(state, language, value, variables, seen, data)
    if stages:
        data.update(stages)
    if run.variables:
        data["variables"] = _dumps(run.variables)
    return data


def _after_result(
    state: Mapping[str, Any],
    language: str,
    value: Any,
    variables: dict[str, Any],
    seen: _Recorder,
    data: dict[str, Any],
) -> None:
    """A JSONPath state's result, after ResultSelector and after ResultPath, into ``data``."""
    stype = state.get("Type")
    result = (
        seen.result if seen.called
        else state["Result"] if "Result" in state
        else json.loads(data.get("afterParameters", _dumps(value)))
    )  # fmt: skip
    if stype != "Map":  # a Map shows its stages, not a raw result
        data["result"] = _dumps(result)
    selected = result
    if "ResultSelector" in state:
        selector = {"Parameters": state["ResultSelector"]}
        selected = _pass_output(language, selector, result, variables)
    data["afterResultSelector"] = _dumps(selected)
    placed = {"Result": selected}
    if "ResultPath" in state:
        placed["ResultPath"] = state["ResultPath"]
    data["afterResultPath"] = _dumps(_pass_output(language, placed, value, variables))


@dataclass
class _Plan:
    """The request, checked: what to run and with which answers."""

    name: str
    state: dict[str, Any]
    language: str
    value: Any
    variables: dict[str, Any]
    names: list[str]
    mock: Any
    context: dict[str, Any] | None
    config: Mapping[str, Any]
    stages: dict[str, Any] | None = None


def _plan(request: Mapping[str, Any], wire: _Wire) -> _Plan:
    name, state, language = _pick_state(request)
    language = str(state.get("QueryLanguage", language))
    mock = request.get("mock")
    check_mock(state, mock, wire.reveal)
    _check_service(state, mock, wire)
    context = check_context(request.get("context"), state, mock)
    config = request.get("stateConfiguration") or {}
    reader = check_configuration(config, state, mock)
    value = _loads(request.get("input") or "{}", "input")
    variables, names = _variable_names(request, state)
    plan = _Plan(name, state, language, value, variables, names, mock, context, config)
    if state.get("Type") == "Map":
        after_input = value
        if language != "JSONata" and "InputPath" in state:
            after_input = _pass_output(
                language, {"InputPath": state["InputPath"]}, value, variables
            )
        found = map_stages(name, state, language, value, after_input, variables, context, reader)
        if found.error is not None:  # the items side failed: that is the Map's failure
            plan.mock = {"errorOutput": {"error": found.error, "cause": found.cause}}
            plan.stages = {}
            return plan
        plan.stages = found.data
        failures = int(config.get("mapIterationFailureCount") or 0)
        if (
            isinstance(mock, Mapping)
            and "result" in mock
            and not _tolerated(found.data, failures, found.items)
        ):
            # https://docs.aws.amazon.com/step-functions/latest/dg/state-map-distributed.html#maprun-fail-threshold
            exceeded = "The specified tolerated failure threshold was exceeded"
            plan.mock = {"errorOutput": {"error": "States.ExceedToleratedFailureThreshold",
                                         "cause": exceeded}}  # fmt: skip
    return plan


def test_state(
    request: Mapping[str, Any],
    *,
    http: HttpTransport | None = None,
    connections: ConnectionLookup | None = None,
) -> dict[str, Any]:
    """Answer one TestState request (the API's JSON members) with the API's response members.

    ``http`` sends an HTTP Task that has no mock (None: such a Task is refused), with
    ``connections`` resolving its ``Authentication.ConnectionArn``.

    >>> test_state({"definition": '{"Type": "Pass", "Result": 1, "ResultPath": "$.x", "Next": "B"}',
    ...             "input": '{"a": 0}'})
    {'output': '{"a":0,"x":1}', 'nextState': 'B', 'status': 'SUCCEEDED'}
    """
    level = request.get("inspectionLevel") or "INFO"
    if level not in ("INFO", "DEBUG", "TRACE"):
        raise TestStateError(
            "ValidationException", f"inspectionLevel {level!r}: use INFO, DEBUG or TRACE"
        )
    wire = _Wire(http, connections, bool(request.get("revealSecrets")))
    plan = _plan(request, wire)
    state, stype = plan.state, plan.state.get("Type")
    subject = _as_task(state) if stype in ("Map", "Parallel") else dict(state)
    retriers = subject.pop("Retry", [])
    catchers = subject.pop("Catch", [])
    seen = _Recorder()
    args = (plan.name, plan.language, plan.value, plan.variables, plan.names)
    run = _run(args[0], subject, *args[1:], _MockInvoker(plan.mock, seen, wire), plan.context)
    details: dict[str, Any] = {}
    status = run.status
    if status != "SUCCEEDED":
        count = int(plan.config.get("retrierRetryCount") or 0)
        decision = decide_retry(retriers, run.error, [count] * len(retriers))
        index = find_catcher(catchers, run.error)
        if decision.retrier is not None and decision.delay is not None:
            status = "RETRIABLE"
            details = {"retryIndex": decision.retrier,
                       "retryBackoffIntervalSeconds": int(decision.delay)}  # fmt: skip
        elif index is not None:
            failed = run
            caught = {**subject, "Catch": [catchers[index]]}
            replay = _MockInvoker(
                {"errorOutput": {"error": failed.error, "cause": failed.cause}}, _Recorder()
            )
            run = _run(args[0], caught, *args[1:], replay, plan.context)
            run.error, run.cause = failed.error, failed.cause
            status, details = "CAUGHT_ERROR", {"catchIndex": index}
        else:
            status = "FAILED"
    response: dict[str, Any] = {}
    if status in ("SUCCEEDED", "CAUGHT_ERROR") and (
        run.output is not None or status == "SUCCEEDED"
    ):
        response["output"] = _dumps(run.output)
    if status != "SUCCEEDED":
        if run.error is not None:
            response["error"] = run.error
        if run.cause is not None:
            response["cause"] = run.cause
    inspection: dict[str, Any] = {}
    if level != "INFO":
        inspection = _inspection(
            state, plan.language, plan.value, plan.variables, seen, run, status, plan.stages
        )
        if level == "TRACE" and seen.exchange is not None:
            if seen.exchange.request:
                inspection["request"] = seen.exchange.request
            if seen.exchange.response:
                inspection["response"] = seen.exchange.response
    if details:
        inspection["errorDetails"] = details
    if inspection:
        response["inspectionData"] = inspection
    if status in ("SUCCEEDED", "CAUGHT_ERROR") and run.next_state is not None:
        response["nextState"] = run.next_state
    response["status"] = status
    return response
