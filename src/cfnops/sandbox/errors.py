"""Errors of the sandbox package."""

from __future__ import annotations

from cfnops.errors import ExitCode, OperationFailed

__all__ = ["SandboxError", "SandboxNotInstalled"]


class SandboxError(OperationFailed):
    """The sandbox could not start or be configured (says where and what to do)."""


class SandboxNotInstalled(SandboxError):
    """moto (the sandbox's server) is not installed: it is the ``sandbox`` extra (exit 2)."""

    exit_code = ExitCode.USAGE

    def __init__(self, missing: str) -> None:
        self.missing = missing
        super().__init__(
            f"the local AWS sandbox needs {missing}, which is not installed",
            hint="pip install 'cfnops[sandbox]' (from a checkout: pip install -e '.[sandbox]')",
        )
