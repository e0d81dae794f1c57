"""Workflow registry: the name a run records → the function that runs it.

A workflow is any callable ``(event, context) -> result`` written against the AWS
Durable Execution SDK's ``DurableContext`` API. Functions decorated with the SDK's
``@durable_execution`` are accepted as they are: the Lambda wrapper keeps the
original function in ``__wrapped__`` and cfnops runs that one.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterable
from typing import Any

from cfnops.durable.errors import UnknownWorkflow

WorkflowFn = Callable[[Any, Any], Any]

_lock = threading.Lock()
_workflows: dict[str, WorkflowFn] = {}


def unwrap(handler: Callable[..., Any]) -> WorkflowFn:
    """The user function behind an SDK ``@durable_execution`` handler (or itself)."""
    return getattr(handler, "__wrapped__", handler)


def register_workflow(name: str, handler: Callable[..., Any]) -> Callable[..., Any]:
    """Register ``handler`` under ``name``; returns ``handler`` unchanged.

    Registering the same function twice is harmless; a different function under
    a taken name is a programming error.
    """
    fn = unwrap(handler)
    with _lock:
        existing = _workflows.get(name)
        if existing is not None and existing is not fn and _qualname(existing) != _qualname(fn):
            raise ValueError(
                f"workflow name {name!r} is already registered to {_qualname(existing)}"
            )
        _workflows[name] = fn
    return handler


def workflow(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator form of :func:`register_workflow`; apply it above ``@durable_execution``."""

    def deco(handler: Callable[..., Any]) -> Callable[..., Any]:
        return register_workflow(name, handler)

    return deco


def get_workflow(name: str) -> WorkflowFn:
    with _lock:
        found = _workflows.get(name)
        if found is None:
            raise UnknownWorkflow(name, list(_workflows))
        return found


def registered() -> list[str]:
    with _lock:
        return sorted(_workflows)


def import_modules(modules: Iterable[str]) -> None:
    """Import configured workflow modules (``worker.workflow_modules``) so they register.

    The engine imports nothing else: the places that start engines register the
    workflows they bring (see :mod:`cfnops.builtin_workflows`).
    """
    for module in modules:
        importlib.import_module(module)


def _qualname(fn: Callable[..., Any]) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"
