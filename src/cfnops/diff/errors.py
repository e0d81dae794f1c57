"""Errors of the diff capability (findings themselves are data, not exceptions)."""

from __future__ import annotations

from cfnops.errors import CfnopsError, OperationFailed, UsageError
from cfnops.templates.errors import TemplateError

# The shared loader's one error class, under the name this package has always exported.
TemplateLoadError = TemplateError


class DiffError(CfnopsError):
    """Root of the errors ``cfnops.diff`` defines (template loading is ``cfnops.templates``)."""


class SamTransformError(TemplateLoadError, DiffError):
    """The SAM translator rejected a template (the diff can still compare it untransformed)."""

    def __init__(self, source: str, causes: str) -> None:
        self.causes = causes
        super().__init__(
            source,
            f"the SAM transform rejected the template: {causes}",
            hint="`sam validate` shows the same errors",
        )


class StackTemplateError(DiffError, OperationFailed):
    """The deployed template or parameters of a stack could not be fetched."""

    def __init__(self, stack: str, reason: str, *, hint: str | None = None) -> None:
        self.stack = stack
        super().__init__(f"stack {stack}: {reason}", hint=hint)


class StackNotFound(StackTemplateError, UsageError):
    """The stack does not exist (a wrong name or region): exit 2."""

    exit_code = UsageError.exit_code


class ChangeSetError(DiffError, OperationFailed):
    """The comparison change set could not be created or described."""

    def __init__(self, stack: str, change_set: str, reason: str) -> None:
        self.stack = stack
        self.change_set = change_set
        super().__init__(
            f"stack {stack}, change set {change_set}: {reason}",
            hint="run without --change-set for the offline answer, or check the stack's state",
        )
