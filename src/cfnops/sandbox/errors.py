"""Errors of the sandbox package."""

from __future__ import annotations

from cfnops.errors import ExitCode, OperationFailed

__all__ = ["SandboxError", "SandboxNotInstalled", "SandboxPortUnavailable"]


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


class SandboxPortUnavailable(SandboxError):
    """The sandbox cannot listen on the host and port asked for (in use, not allowed):
    a setup error (exit 2), fixed by choosing another ``--port``."""

    exit_code = ExitCode.USAGE

    def __init__(self, host: str, port: int, reason: str) -> None:
        self.host = host
        self.port = port
        super().__init__(
            f"cannot listen on {host}:{port}: {reason}",
            hint="choose another --port (or 0 for a free one)",
        )
