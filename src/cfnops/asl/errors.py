"""Errors of the States Language core.

Exception tree::

    CfnopsError
    └── AslError (and UsageError)
        ├── DefinitionLoadError    the definition is not readable JSON/YAML (file, line)
        └── InvalidDefinition      the definition breaks the States Language; carries findings

    StatesFailure (plain Exception)  an ASL runtime error travelling to the nearest Catch
    └── TaskFailure                  what a TaskInvoker raises when the task failed

Runtime failures are data (``error`` and ``cause`` strings named as Step Functions names
them, e.g. ``States.TaskFailed``); they are exceptions only while they unwind a state.
An execution's outcome is an :class:`cfnops.asl.ExecutionResult`, never an exception.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cfnops.errors import CfnopsError, UsageError

__all__ = [
    "AslError",
    "DefinitionLoadError",
    "Finding",
    "InvalidDefinition",
    "StatesFailure",
    "TaskFailure",
]


class AslError(CfnopsError):
    """Root of the ``cfnops.asl`` errors raised to callers (not runtime failures)."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One validation problem: a Step Functions code, a message and a JSON pointer."""

    code: str
    message: str
    pointer: str

    def __str__(self) -> str:
        return f"{self.code}: {self.message} at {self.pointer or '/'}"


class InvalidDefinition(AslError, UsageError):
    """The state machine definition would be rejected by CreateStateMachine.

    ``cause`` reads like Step Functions' ``InvalidDefinition`` message.
    """

    code = "InvalidDefinition"

    def __init__(self, findings: Sequence[Finding]) -> None:
        self.findings = tuple(findings)
        self.cause = (
            "Invalid State Machine Definition: '" + ", ".join(str(f) for f in self.findings) + "'"
        )
        super().__init__(
            self.cause, hint="fix the definition at the JSON pointer(s) shown and validate again"
        )


class DefinitionLoadError(AslError, UsageError):
    """The definition file or text could not be parsed as JSON or YAML."""

    def __init__(self, where: str, line: int | None, problem: str) -> None:
        self.where = where
        self.line = line
        location = where if line is None else f"{where}:{line}"
        super().__init__(
            f"cannot read the state machine definition at {location}: {problem}",
            hint="fix the JSON/YAML syntax and try again",
        )


class StatesFailure(Exception):
    """An ASL runtime error: ``error`` (e.g. ``States.Runtime``) and ``cause`` (text or None)."""

    def __init__(self, error: str | None, cause: str | None = None) -> None:
        super().__init__(f"{error}: {cause}")
        self.error = error
        self.cause = cause


class TaskFailure(StatesFailure):
    """A task ended in error; raised by :class:`cfnops.asl.TaskInvoker` implementations."""
