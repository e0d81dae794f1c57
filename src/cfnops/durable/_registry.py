"""Workflow registry: the name a run records → the function that runs it.

A workflow is any callable ``(event, context) -> result`` written against the AWS
Durable Execution SDK's ``DurableContext`` API. Functions decorated with the SDK's
``@durable_execution`` are accepted as they are: the Lambda wrapper keeps the
original function in ``__wrapped__`` and cfnops runs that one.

A workflow can also be registered by name ahead of its code
(:func:`register_lazily`): the module that defines it is imported when a run of it
starts or is recovered, so a command that never runs it does not pay for importing it
(heal's and ami's workflows bring boto3 and the Durable Execution SDK).
"""

from __future__ import annotations

import importlib
import inspect
import threading
from collections.abc import Callable, Iterable
from typing import Any

from cfnops.durable.errors import UnknownWorkflow

WorkflowFn = Callable[[Any, Any], Any]

_lock = threading.Lock()
_workflows: dict[str, WorkflowFn] = {}
_without_context: set[str] = set()  # called with None instead of a DurableContext
# name → (module, attribute): importing the module and reading the attribute (the
# workflow's name) registers the workflow.
_deferred: dict[str, tuple[str, str]] = {}


def unwrap(handler: Callable[..., Any]) -> WorkflowFn:
    """The user function behind an SDK ``@durable_execution`` handler (or itself)."""
    return getattr(handler, "__wrapped__", handler)


def register_workflow(
    name: str, handler: Callable[..., Any], *, context: bool = True
) -> Callable[..., Any]:
    """Register ``handler`` under ``name``; returns ``handler`` unchanged.

    Registering the same function twice is harmless; a different function under
    a taken name is a programming error. ``context=False``: the workflow uses no
    ``DurableContext`` and gets ``None`` (its runs then never load the Durable
    Execution SDK, which imports boto3).
    """
    fn = unwrap(handler)
    with _lock:
        existing = _workflows.get(name)
        if existing is not None and existing is not fn and _qualname(existing) != _qualname(fn):
            raise ValueError(
                f"workflow name {name!r} is already registered to {_qualname(existing)}"
            )
        _workflows[name] = fn
        if context:
            _without_context.discard(name)
        else:
            _without_context.add(name)
    return handler


def workflow(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator form of :func:`register_workflow`; apply it above ``@durable_execution``."""

    def deco(handler: Callable[..., Any]) -> Callable[..., Any]:
        return register_workflow(name, handler)

    return deco


def register_lazily(name: str, module: str, attribute: str) -> None:
    """Know workflow ``name`` before its code: ``module.attribute`` (which must be
    ``name``) is read, registering it, when a run of it first needs the function."""
    with _lock:
        if name not in _workflows:
            _deferred[name] = (module, attribute)


def _load(name: str) -> None:
    with _lock:
        where = _deferred.get(name)
    if where is None:
        return
    found = getattr(importlib.import_module(where[0]), where[1])  # registers on import
    if found != name:
        raise ValueError(f"{where[0]}.{where[1]} is {found!r}, registered lazily as {name!r}")
    with _lock:
        _deferred.pop(name, None)


def get_workflow(name: str) -> WorkflowFn:
    if name not in _workflows:
        _load(name)  # outside the lock: the import registers through it
    with _lock:
        found = _workflows.get(name)
        if found is None:
            raise UnknownWorkflow(name, sorted({*_workflows, *_deferred}))
        return found


_JSON_KINDS: dict[type, str] = {
    dict: "a JSON object",
    list: "a JSON array",
    str: "a JSON string",
    int: "a number",
    float: "a number",
    bool: "true or false",
}


def check_input(name: str, event: Any) -> None:
    """Refuse ``event`` when the workflow's handler declares another kind of input.

    The declaration is the annotation of the handler's first parameter
    (``def handler(event: dict[str, Any], context)``): a run that could only fail on
    its first line is refused before it exists. Unannotated or ``Any``: no check.
    """
    import typing

    fn = get_workflow(name)
    try:
        hints = typing.get_type_hints(fn)
        first = next(iter(inspect.signature(fn).parameters), None)
    except Exception:  # annotations naming what is not importable here: no check
        return
    wanted = typing.get_origin(hints.get(first or "")) or hints.get(first or "")
    if not isinstance(wanted, type) or wanted not in _JSON_KINDS:
        return
    ok = isinstance(event, wanted) and not (wanted is int and isinstance(event, bool))
    if wanted is float:
        ok = isinstance(event, int | float) and not isinstance(event, bool)
    if not ok:
        from cfnops.durable.errors import InputMismatch

        raise InputMismatch(name, _JSON_KINDS[wanted], _kind(event))


def _kind(value: Any) -> str:
    for kind, text in _JSON_KINDS.items():
        if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            return text
    return "null" if value is None else type(value).__name__


def takes_context(name: str) -> bool:
    with _lock:
        return name not in _without_context


def registered() -> list[str]:
    """Every workflow name this process can run (registered or registered lazily)."""
    with _lock:
        return sorted({*_workflows, *_deferred})


def import_modules(modules: Iterable[str]) -> None:
    """Import configured workflow modules (``worker.workflow_modules``) so they register.

    The engine imports nothing else: the places that start engines register the
    workflows they bring (see :mod:`cfnops.builtin_workflows`).
    """
    from cfnops.durable.errors import WorkflowModuleNotImportable

    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise WorkflowModuleNotImportable(module, str(exc)) from exc


def _qualname(fn: Callable[..., Any]) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"
