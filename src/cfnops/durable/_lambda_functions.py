"""Lambda functions the local durable-execution backend can run, by function name.

A durable function is the handler AWS Lambda would run: decorated with the SDK's
``@durable_execution``, called with a ``DurableExecutionInvocationInput``. A plain
function (``durable=False``) is an ordinary Lambda handler ``(event, context)``, such
as the target of a chained ``context.invoke``::

    @lambda_function("orders")
    @durable_execution
    def orders(event, context: DurableContext): ...

Like workflows, a function may be registered by module path and imported on first use
(``register_function_lazily``), so a process recovering an execution finds it.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cfnops.durable.errors import UnknownFunction


@dataclass(frozen=True)
class LambdaFunction:
    name: str
    handler: Callable[[Any, Any], Any]
    durable: bool


_functions: dict[str, LambdaFunction] = {}
_deferred: dict[str, tuple[str, str]] = {}
_lock = threading.RLock()


def register_function(
    name: str, handler: Callable[[Any, Any], Any], *, durable: bool = True
) -> Callable[[Any, Any], Any]:
    """Register ``handler`` as Lambda function ``name`` (the same handler again is fine)."""
    with _lock:
        found = _functions.get(name)
        if found is not None and found.handler is not handler:
            raise ValueError(f"Lambda function {name!r} is already registered")
        _functions[name] = LambdaFunction(name, handler, durable)
    return handler


def lambda_function(
    name: str, *, durable: bool = True
) -> Callable[[Callable[[Any, Any], Any]], Callable[[Any, Any], Any]]:
    """Decorator form of :func:`register_function`."""

    def deco(handler: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
        return register_function(name, handler, durable=durable)

    return deco


def register_function_lazily(name: str, module: str, attribute: str) -> None:
    """Register ``module.attribute`` as ``name``; the module is imported on first use."""
    with _lock:
        if name not in _functions:
            _deferred[name] = (module, attribute)


def get_function(name: str) -> LambdaFunction:
    """The function called ``name`` (a name, an ARN or ``name:qualifier``)."""
    short = function_name(name)
    with _lock:
        if short not in _functions and short in _deferred:
            module, attribute = _deferred.pop(short)
            handler = getattr(importlib.import_module(module), attribute)
            if short not in _functions:
                _functions[short] = LambdaFunction(short, handler, True)
        found = _functions.get(short)
    if found is None:
        raise UnknownFunction(short, functions())
    return found


def functions() -> list[str]:
    with _lock:
        return sorted({*_functions, *_deferred})


def function_name(value: str) -> str:
    """``my-fn``, ``my-fn:$LATEST`` and ``arn:aws:lambda:…:function:my-fn[:q]`` → ``my-fn``."""
    if value.startswith("arn:"):
        parts = value.split(":")
        return parts[6] if len(parts) > 6 else value
    return value.split(":", 1)[0]
