"""Errors of the console: bad bind options at start, bad input in a request.

``ConsoleError`` (a :class:`~cfnops.errors.UsageError`) carries the HTTP status
the page answers with; the message is shown on the page, never a stack trace.
"""

from __future__ import annotations

from cfnops.errors import UsageError


class ConsoleError(UsageError):
    """Input the console cannot use; ``status`` is the HTTP status of the answer."""

    status = 400


class TokenRequired(ConsoleError):
    """A non-loopback bind without a token: refuse to start."""

    def __init__(self, host: str) -> None:
        super().__init__(
            f"refusing to listen on {host!r} without a token: anyone who can reach it "
            "could approve, stop or redrive runs",
            hint="set CFNOPS_CONSOLE_TOKEN or pass --token-file FILE (or bind to 127.0.0.1)",
        )


class BadTokenFile(ConsoleError):
    """The token file cannot be read or holds no usable token."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(
            f"token file {path}: {reason}",
            hint="one token per line, optionally NAME:TOKEN; at least 16 characters each",
        )


class BadFilter(ConsoleError):
    """A filter or form field has a value the console cannot use."""

    def __init__(self, field: str, value: str, expected: str) -> None:
        super().__init__(f"{field}={value!r} is not valid: {expected}")
        self.field = field


class NotFound(ConsoleError):
    """An unknown run, schedule or page."""

    status = 404


class Forbidden(ConsoleError):
    """A state-changing request without the token or with a bad CSRF token."""

    status = 403


class RunFinished(ConsoleError):
    """An action offered only while a run is going, asked of a finished run."""

    status = 409

    def __init__(self, run_id: str, status: str, action: str) -> None:
        super().__init__(
            f"job run {run_id} is {status}: there is nothing to {action}",
            hint="reload the page to see what the run can still do",
        )
