"""Errors of the sandbox package."""

from __future__ import annotations

from cfnops.errors import OperationFailed

__all__ = ["SandboxError"]


class SandboxError(OperationFailed):
    """The sandbox could not start or be configured (says where and what to do)."""
