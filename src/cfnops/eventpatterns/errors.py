"""Errors of :mod:`cfnops.eventpatterns`."""

from __future__ import annotations

from cfnops.errors import CfnopsError, UsageError

__all__ = ["EventPatternError", "InvalidEventPattern"]


class EventPatternError(CfnopsError):
    """Root of the ``cfnops.eventpatterns`` errors."""


class InvalidEventPattern(EventPatternError, UsageError):
    """An event pattern EventBridge would refuse (``InvalidEventPatternException``)."""

    def __init__(self, reason: str, path: str = "") -> None:
        self.reason = reason
        self.path = path or "/"
        super().__init__(
            f"event pattern is not valid at {self.path}: {reason}",
            hint="see the EventBridge User Guide, 'Creating event patterns'",
        )
