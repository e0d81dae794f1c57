"""An in-memory TaskInvoker: local Python callables registered by name.

Lambda resources resolve to a registered function by name (legacy
``arn:aws:lambda:…:function:NAME`` and ``arn:aws:states:::lambda:invoke`` with
``FunctionName`` as name or ARN). Other resources resolve by their full ARN.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from typing import Any

from cfnops.asl._ports import TaskContext
from cfnops.asl.errors import TaskFailure

__all__ = ["FakeInvoker", "LambdaError", "lambda_stand_in"]

Handler = Callable[[Any, TaskContext], Any]

_LAMBDA_INVOKE = (
    "arn:aws:states:::lambda:invoke",
    "arn:aws:states:::lambda:invoke.waitForTaskToken",
)


class LambdaError(Exception):
    """Raised by a registered function to fail like a Lambda runtime error.

    ``cause`` is the runtime's JSON error payload text; the invoker reformats it the way
    each resource style reports it (legacy: ``", "``/``": "``; integration: compact).
    """

    def __init__(self, error: str, cause: str | None) -> None:
        super().__init__(error)
        self.error = error
        self.cause = cause


def _function_name(ref: str) -> str:
    if ref.startswith("arn:"):
        parts = ref.split(":")
        if len(parts) >= 7:
            return parts[6]
    return ref


def _reformat(cause: str | None, *, compact: bool) -> str | None:
    if cause is None:
        return None
    try:
        parsed = json.loads(cause)
    except ValueError:
        return cause
    return json.dumps(parsed, separators=(",", ":") if compact else (", ", ": "))


class FakeInvoker:
    """Runs registered Python callables for Tasks; thread-safe; counts calls per name."""

    def __init__(self, functions: Mapping[str, Handler] | None = None) -> None:
        self._functions: dict[str, Handler] = dict(functions or {})
        self._lock = threading.Lock()
        self.calls: dict[str, int] = {}

    def register(self, name: str, fn: Handler) -> None:
        """Register ``fn(payload, context)`` under a function name or a resource ARN."""
        self._functions[name] = fn

    def invoke(
        self, resource: str, payload: Any, *, timeout: float | None, context: TaskContext
    ) -> Any:
        if resource in _LAMBDA_INVOKE:
            if not isinstance(payload, dict) or "FunctionName" not in payload:
                raise TaskFailure("States.Runtime", "lambda:invoke needs FunctionName")
            name = _function_name(str(payload["FunctionName"]))
            result = self._call(name, payload.get("Payload"), context, compact=True)
            return {
                "ExecutedVersion": "$LATEST",
                "Payload": result,
                "SdkHttpMetadata": {"HttpStatusCode": 200},
                "SdkResponseMetadata": {},
                "StatusCode": 200,
            }
        if resource.startswith("arn:") and ":lambda:" in resource and ":function:" in resource:
            return self._call(_function_name(resource), payload, context, compact=False)
        return self._call(resource, payload, context, compact=True)

    def _call(self, name: str, payload: Any, context: TaskContext, *, compact: bool) -> Any:
        fn = self._functions.get(name)
        if fn is None:
            raise TaskFailure(
                "Lambda.ResourceNotFoundException" if compact else "States.TaskFailed",
                f"Function not found: {name}",
            )
        with self._lock:
            self.calls[name] = self.calls.get(name, 0) + 1
        try:
            return fn(payload, context)
        except LambdaError as exc:
            raise TaskFailure(exc.error, _reformat(exc.cause, compact=compact)) from None


def lambda_stand_in(spec: Mapping[str, Any]) -> Handler:
    """Build a stand-in from a conformance ``lambdas`` entry (identity/constant/sleep/raise)."""
    kind = spec["kind"]
    if kind == "identity":
        return lambda payload, ctx: payload
    if kind == "constant":
        value = spec.get("value")
        return lambda payload, ctx: json.loads(json.dumps(value))
    if kind == "sleep":
        seconds = float(spec.get("seconds", 0))

        def sleeper(payload: Any, ctx: TaskContext) -> Any:
            ctx.cancel.wait(seconds)
            return payload

        return sleeper
    if kind == "raise":
        error, cause = spec.get("error"), spec.get("cause")

        def raiser(payload: Any, ctx: TaskContext) -> Any:
            raise LambdaError(str(error), cause)

        return raiser
    raise ValueError(f"unknown stand-in kind {kind!r}")
