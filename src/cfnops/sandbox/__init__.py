"""A local AWS: moto's server plus the operations APIs it lacks.

Public API: :class:`Sandbox` (context manager), :class:`SandboxState` and
:func:`current_state` (process-wide delays, faults, recorded events),
:class:`Delays`, the control/middleware registries, and the pytest fixture
``cfnops_sandbox`` (plugin :mod:`cfnops.sandbox.pytest_plugin`).
"""

from __future__ import annotations

from cfnops.sandbox._control import (
    allow_remote_control,
    is_loopback,
    register_control,
    register_middleware,
)
from cfnops.sandbox._core import Sandbox, reset_all
from cfnops.sandbox._state import Delays, SandboxState, current_state
from cfnops.sandbox.errors import SandboxError

__all__ = [
    "Delays",
    "Sandbox",
    "SandboxError",
    "SandboxState",
    "allow_remote_control",
    "current_state",
    "is_loopback",
    "register_control",
    "register_middleware",
    "reset_all",
]
