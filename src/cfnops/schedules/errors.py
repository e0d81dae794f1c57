"""Errors of schedule expressions (:mod:`cfnops.schedules`)."""

from __future__ import annotations

from cfnops.errors import CfnopsError, UsageError

__all__ = ["InvalidSchedule", "SchedulesError"]


class SchedulesError(CfnopsError):
    """Base class of the schedule-expression errors."""


class InvalidSchedule(SchedulesError, UsageError):
    def __init__(self, expression: str, reason: str) -> None:
        super().__init__(
            f"invalid schedule expression {expression!r}: {reason}",
            hint="use cron(min hour day-of-month month day-of-week year) or rate(N unit)",
        )
