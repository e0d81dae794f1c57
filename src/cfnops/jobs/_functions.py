"""The registry of local functions: Python callables that answer Lambda tasks offline.

A job-net's Lambda task (legacy ``arn:aws:lambda:…:function:NAME`` or
``arn:aws:states:::lambda:invoke`` with ``FunctionName``) runs the callable registered
under the function's name, when there is one; otherwise it calls AWS Lambda. A callable
raises :class:`cfnops.asl.LambdaError` to fail as a Lambda runtime error would.
"""

from __future__ import annotations

import importlib
import json
import threading
from collections.abc import Callable, Iterable
from typing import Any

from cfnops.asl import LambdaError, TaskContext
from cfnops.asl.errors import TaskFailure

__all__ = [
    "FunctionRegistry",
    "LocalFunction",
    "call_local",
    "function_name",
    "functions",
    "import_modules",
]

LocalFunction = Callable[[Any, TaskContext], Any]


def function_name(ref: str) -> str:
    """The function name in a name or a Lambda function ARN (a version suffix is dropped)."""
    parts = ref.split(":")
    return parts[6] if ref.startswith("arn:") and len(parts) >= 7 else ref


class FunctionRegistry:
    """Local functions by name (thread-safe: workers register at import time)."""

    def __init__(self) -> None:
        self._functions: dict[str, LocalFunction] = {}
        self._lock = threading.Lock()

    def register(self, name: str, fn: LocalFunction) -> None:
        with self._lock:
            self._functions[name] = fn

    def unregister(self, name: str) -> None:
        """Forget the function ``name`` (AWS Lambda answers for it again)."""
        with self._lock:
            self._functions.pop(name, None)

    def lookup(self, ref: str) -> LocalFunction | None:
        """The callable for a function name or ARN, or None (then AWS Lambda answers)."""
        with self._lock:
            return self._functions.get(function_name(ref))

    def names(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._functions)


functions = FunctionRegistry()
"""The process's registry, filled by :func:`cfnops.jobs.register_function`."""


def call_local(fn: LocalFunction, payload: Any, context: TaskContext, *, compact: bool) -> Any:
    """Call a local function; a :class:`LambdaError` becomes the task's failure.

    The cause is the runtime's JSON error payload, formatted as each resource style
    reports it: compact for ``lambda:invoke``, ``", "``/``": "`` for a legacy ARN.
    """
    try:
        return fn(payload, context)
    except LambdaError as exc:
        cause = exc.cause
        if cause is not None:
            try:
                parsed = json.loads(cause)
            except ValueError:
                pass
            else:
                cause = json.dumps(parsed, separators=(",", ":") if compact else (", ", ": "))
        raise TaskFailure(exc.error, cause) from None


def import_modules(names: Iterable[str]) -> None:
    """Import ``names`` (a run's recorded modules) so their local functions register.

    Raises :class:`cfnops.jobs.errors.ModuleImportFailed` naming the module and the
    fix when one cannot be imported.
    """
    from cfnops.jobs.errors import ModuleImportFailed

    for name in names:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise ModuleImportFailed(name, str(exc)) from exc
