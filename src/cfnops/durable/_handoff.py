"""How a workflow receives the runtime from the engine that executes it.

On cfnops's engine every workflow's context carries ``context.runtime`` (a
:class:`~cfnops.durable.DbosDurableContext`, or a :class:`PlainRun` for workflows
registered with ``context=False``). The SDK's own ``DurableContext`` (AWS Lambda,
``DurableFunctionTestRunner``) has no such attribute: there the caller passes the
runtime explicitly, which :func:`runtime_of` prefers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cfnops.durable._fence import Fence
from cfnops.durable.errors import NoRuntime
from cfnops.runtime import Runtime

__all__ = ["PlainRun", "runtime_of"]


@dataclass(frozen=True)
class PlainRun:
    """The context of a workflow registered with ``context=False`` (job-nets).

    ``fence``: this execution's claim on the run, for checkpoints written beside DBOS's
    (see :mod:`cfnops.durable._fence`); ``None`` outside cfnops's engine.
    """

    run_id: str
    runtime: Runtime
    fence: Fence | None = None


def runtime_of(context: Any, given: Runtime | None = None) -> Runtime:
    """``given``, else the runtime the engine put on ``context``.

    Raises :class:`NoRuntime` (naming the fix) under a context that carries none.
    """
    if given is not None:
        return given
    found = getattr(context, "runtime", None)
    if isinstance(found, Runtime):
        return found
    raise NoRuntime(type(context).__name__)
