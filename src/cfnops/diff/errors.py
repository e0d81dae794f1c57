"""Errors of the diff capability (findings themselves are data, not exceptions)."""

from __future__ import annotations

from cfnops.errors import OperationFailed, UsageError


class TemplateLoadError(UsageError):
    """A template file cannot be read or parsed, or is not a CloudFormation template."""

    def __init__(
        self,
        source: str,
        reason: str,
        *,
        line: int | None = None,
        column: int | None = None,
        hint: str | None = None,
    ) -> None:
        self.source = source
        self.line = line
        self.column = column
        self.reason = reason
        where = source if line is None else f"{source}:{line}:{column or 1}"
        super().__init__(
            f"{where}: {reason}",
            hint=hint or "fix the template (JSON or YAML with CloudFormation tags) and retry",
        )


class StackTemplateError(OperationFailed):
    """The deployed template or parameters of a stack could not be fetched."""

    def __init__(self, stack: str, reason: str, *, hint: str | None = None) -> None:
        self.stack = stack
        super().__init__(f"stack {stack}: {reason}", hint=hint)


class ChangeSetError(OperationFailed):
    """The comparison change set could not be created or described."""

    def __init__(self, stack: str, change_set: str, reason: str) -> None:
        self.stack = stack
        self.change_set = change_set
        super().__init__(
            f"stack {stack}, change set {change_set}: {reason}",
            hint="run without --change-set for the offline answer, or check the stack's state",
        )
