"""The Task state: builds the payload, calls the TaskInvoker port, shapes the result.

See https://docs.aws.amazon.com/step-functions/latest/dg/state-task.html
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cfnops import logcontext, tracing
from cfnops.asl._dataflow import (
    StateError,
    apply_input_path,
    apply_template,
    evaluate_assign_jsonpath,
    invalid_path,
    resolve,
)
from cfnops.asl._engine import Aborted, Branch, CancelToken, StateOutcome, dumps_event, handler
from cfnops.asl._handling import run_with_handling
from cfnops.asl._jsonata_fields import evaluate_assign, evaluate_field, evaluate_integer
from cfnops.asl._jsonpath import PathNotFound
from cfnops.asl._ports import TaskContext
from cfnops.asl._states import _next, jsonata_env, jsonpath_env, jsonpath_output
from cfnops.asl._values import MAX_PAYLOAD_BYTES
from cfnops.asl.errors import StatesFailure

__all__ = ["is_legacy_lambda", "resource_parts"]

_SERVICE = re.compile(r"^arn:[^:]+:states:::(?P<rest>.+)$")
_LAMBDA = re.compile(r"^arn:[^:]+:lambda:[^:]*:[^:]*:function:.+$")


def is_legacy_lambda(resource: str) -> bool:
    return bool(_LAMBDA.match(resource))


def resource_parts(resource: str) -> tuple[str, str]:
    """(resourceType, resource) as history events show them: ``("lambda", "invoke")``."""
    m = _SERVICE.match(resource)
    if not m:
        return ("lambda" if is_legacy_lambda(resource) else "activity", resource)
    rest = m.group("rest")
    kind, _, action = rest.rpartition(":")
    return kind, action


def _seconds_field(
    branch: Branch, state: Mapping[str, Any], name: str, env_input: Any, ctx: dict[str, Any]
) -> float | None:
    if branch.query_language_of(state) == "JSONata":
        if name not in state:
            return None
        value = evaluate_integer(state[name], jsonata_env(branch, env_input, ctx), name)
    elif name in state:
        value = state[name]
    elif name + "Path" in state:
        path = state[name + "Path"]
        try:
            value = resolve(path, jsonpath_env(branch, env_input, ctx))
        except PathNotFound:
            raise invalid_path(path) from None
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise StateError(
                "States.Runtime",
                f"The {name}Path parameter does not reference a positive integer: {path}",
            )
    else:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
        raise StateError("States.Runtime", f"{name} must be a positive integer: {value}")
    return float(value)


@handler("Task")
def _task(
    branch: Branch, name: str, state: Mapping[str, Any], raw: Any, ctx: dict[str, Any]
) -> StateOutcome:
    jsonata = branch.query_language_of(state) == "JSONata"

    def attempt(retry_count: int) -> StateOutcome:
        actx = dict(ctx)
        if "State" in ctx:  # a TestState ``context`` may leave it out, or give RetryCount
            actx["State"] = {"RetryCount": retry_count, **ctx["State"]}
        task_token = None
        if str(state.get("Resource", "")).endswith(".waitForTaskToken"):
            # https://docs.aws.amazon.com/step-functions/latest/dg/connect-to-resource.html#connect-wait-token
            given = (ctx.get("Task") or {}).get("Token")  # a TestState ``context``'s token
            task_token = (
                given if isinstance(given, str) else branch.execution.task_tokens.token(name)
            )
            actx["Task"] = {"Token": task_token}
        if jsonata:
            env = jsonata_env(branch, raw, actx)
            payload = (
                evaluate_field(state["Arguments"], env, "Arguments")
                if ("Arguments" in state)
                else raw
            )
            timeout = _seconds_field(branch, state, "TimeoutSeconds", raw, actx)
            heartbeat = _seconds_field(branch, state, "HeartbeatSeconds", raw, actx)
            result = _invoke(
                branch, name, state, payload, timeout, heartbeat, retry_count, task_token
            )
            env2 = jsonata_env(branch, raw, actx, result=result)
            assigned = evaluate_assign(state["Assign"], env2) if "Assign" in state else None
            output = (
                evaluate_field(state["Output"], env2, "Output") if "Output" in state else result
            )
            return StateOutcome(_next(state), output, assigned)
        env0 = jsonpath_env(branch, raw, actx)
        effective = apply_input_path(
            raw, state.get("InputPath"), env0, present="InputPath" in state
        )
        payload = (
            apply_template(state["Parameters"], jsonpath_env(branch, effective, actx))
            if "Parameters" in state
            else effective
        )
        timeout = _seconds_field(branch, state, "TimeoutSeconds", effective, actx)
        heartbeat = _seconds_field(branch, state, "HeartbeatSeconds", effective, actx)
        result = _invoke(branch, name, state, payload, timeout, heartbeat, retry_count, task_token)
        if "ResultSelector" in state:
            result = apply_template(state["ResultSelector"], jsonpath_env(branch, result, actx))
        assigned = None
        if "Assign" in state:
            assigned = evaluate_assign_jsonpath(state["Assign"], jsonpath_env(branch, result, actx))
        return StateOutcome(
            _next(state), jsonpath_output(state, raw, result, actx, branch), assigned
        )

    return run_with_handling(branch, state, raw, ctx, attempt)


def _invoke(
    branch: Branch,
    name: str,
    state: Mapping[str, Any],
    payload: Any,
    timeout: float | None,
    heartbeat: float | None,
    attempt: int,
    task_token: str | None = None,
) -> Any:
    resource = state["Resource"]
    events = _TaskEvents(branch, resource, is_legacy_lambda(resource), *resource_parts(resource))
    events.scheduled(dumps_event(payload), timeout, heartbeat)
    token = CancelToken(branch.cancel)
    tctx = TaskContext(
        state_name=name,
        execution_arn=branch.execution.info.execution_arn,
        attempt=attempt,
        heartbeat_seconds=heartbeat,
        task_token=task_token,
        cancel=token.event,
        region=branch.execution.info.region,
    )
    try:
        result = _call(branch, resource, payload, timeout, tctx, token)
    except StatesFailure as failure:
        events.failed(failure)
        raise
    except Aborted:
        branch.emit("TaskStateAborted", {})
        raise
    output_text = dumps_event(result)
    if len(output_text.encode()) > MAX_PAYLOAD_BYTES:
        raise StatesFailure(
            "States.DataLimitExceeded",
            f"The state/task '{name}' returned a result with a size exceeding the maximum "
            "number of bytes service limit.",
        )
    events.succeeded(output_text)
    return result


@dataclass(frozen=True)
class _TaskEvents:
    """The history events of one Task attempt: ``LambdaFunction*`` for a legacy Lambda
    function ARN, ``Task*`` (with resourceType and resource) for a service integration."""

    branch: Branch
    resource: str
    legacy: bool
    kind: str
    action: str

    def scheduled(self, payload_text: str, timeout: float | None, heartbeat: float | None) -> None:
        if self.legacy:
            details: dict[str, Any] = {
                "resource": self.resource,
                "input": payload_text,
                "inputDetails": {"truncated": False},
            }
            if timeout is not None:
                details["timeoutInSeconds"] = int(timeout)
            self.branch.emit("LambdaFunctionScheduled", details)
            self.branch.emit("LambdaFunctionStarted", {})
            return
        details = {
            "resourceType": self.kind,
            "resource": self.action,
            "region": self.branch.execution.info.region,
            "parameters": payload_text,
        }
        if timeout is not None:
            details["timeoutInSeconds"] = int(timeout)
        if heartbeat is not None:
            details["heartbeatInSeconds"] = int(heartbeat)
        self.branch.emit("TaskScheduled", details)
        self.branch.emit("TaskStarted", {"resourceType": self.kind, "resource": self.action})

    def failed(self, failure: StatesFailure) -> None:
        """A timed-out or failed attempt (``States.Timeout`` always names its error)."""
        timed_out = failure.error == "States.Timeout"
        details: dict[str, Any] = {}
        if failure.error is not None:
            details["error"] = failure.error
        if failure.cause is not None:
            details["cause"] = failure.cause
        if self.legacy:
            event = "LambdaFunctionTimedOut" if timed_out else "LambdaFunctionFailed"
            self.branch.emit(event, details)
        else:
            event = "TaskTimedOut" if timed_out else "TaskFailed"
            self.branch.emit(event, {**details, "resourceType": self.kind, "resource": self.action})

    def succeeded(self, output_text: str) -> None:
        if self.legacy:
            self.branch.emit(
                "LambdaFunctionSucceeded",
                {"output": output_text, "outputDetails": {"truncated": False}},
            )
            return
        self.branch.emit(
            "TaskSucceeded",
            {
                "resourceType": self.kind,
                "resource": self.action,
                "output": output_text,
                "outputDetails": {"truncated": False},
            },
        )


def _call(
    branch: Branch,
    resource: str,
    payload: Any,
    timeout: float | None,
    tctx: TaskContext,
    token: CancelToken,
) -> Any:
    """Call the invoker; when a timeout applies, wait for it on a helper thread."""
    invoker = branch.execution.invoker
    if timeout is None:
        try:
            return invoker.invoke(resource, payload, timeout=None, context=tctx)
        finally:
            if branch.cancel.cancelled:
                raise Aborted(branch.cancel.reason)
    box: dict[str, Any] = {}
    done = threading.Event()

    def target() -> None:
        try:
            box["result"] = invoker.invoke(resource, payload, timeout=timeout, context=tctx)
        except BaseException as exc:
            box["error"] = exc
        finally:
            done.set()

    # The caller's trace span and log fields (state, run id) go along.
    threading.Thread(
        target=tracing.carry(logcontext.carry(target)),
        name=f"asl-task-{tctx.state_name}",
        daemon=True,
    ).start()
    clock = branch.execution.clock
    start = clock.now()
    while not done.is_set():
        remaining = timeout - (clock.now() - start).total_seconds()
        if remaining <= 0:
            token.cancel("timeout")
            raise StatesFailure("States.Timeout", None)
        done.wait(min(remaining, 0.05))
        if branch.cancel.cancelled:
            token.cancel(branch.cancel.reason or "aborted")
            raise Aborted(branch.cancel.reason)
    if "error" in box:
        raise box["error"]
    return box["result"]
