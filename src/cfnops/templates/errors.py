"""The one error the template loader raises."""

from __future__ import annotations

from cfnops.errors import UsageError


class TemplateError(UsageError):
    """A template cannot be read or decoded, or is not a CloudFormation template: exit 2.

    ``source`` names the file (or ``<string>``); ``line`` and ``column`` (1-based) say
    where the problem is when the decoder knows; ``reason`` is the message without them.
    """

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
