"""Errors of the worker service.

Exception tree::

    CfnopsError
    └── WorkerError                root of every worker error; each is also one of:
    └── UsageError
        └── MetricsPortUnavailable  the metrics endpoint cannot listen on its port

A fault of the engine itself (its database gone) is the engine's error, raised by
:meth:`cfnops.worker.Worker.run` once everything has stopped.
"""

from __future__ import annotations

from cfnops.errors import CfnopsError, UsageError

__all__ = ["MetricsPortUnavailable", "WorkerError"]


class WorkerError(CfnopsError):
    """Root of the ``cfnops.worker`` errors."""


class MetricsPortUnavailable(WorkerError, UsageError):
    """The metrics endpoint cannot listen on ``host:port`` (the worker has stopped)."""

    def __init__(self, port: int, host: str, reason: str) -> None:
        self.port = port
        self.host = host
        self.reason = reason
        super().__init__(
            f"metrics port {port}: cannot listen on {host}: {reason}",
            hint="choose a free port (0 picks one)",
        )
