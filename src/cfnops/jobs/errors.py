"""Errors of the job-net engine.

Exception tree::

    CfnopsError
    ├── UsageError
    │   ├── JobInputError        a definition file or an input that cannot be read
    │   ├── UnknownJobRun        no run with that id in the job store
    │   ├── UnknownTaskToken     send-task-success/failure with a token no run issued
    │   ├── InvalidSchedule      a cron/rate expression or time zone EventBridge would refuse
    │   └── StrictValidationFailed  a definition that would not run the same on AWS
    └── OperationFailed
        └── RunNotRedrivable     redrive asked of a run that did not fail

How an execution ends (SUCCEEDED, FAILED …) is data (:class:`cfnops.jobs.JobResult`),
never an exception.
"""

from __future__ import annotations

from collections.abc import Sequence

from cfnops.errors import OperationFailed, UsageError

__all__ = [
    "InvalidSchedule",
    "JobInputError",
    "RunNotRedrivable",
    "StrictValidationFailed",
    "UnknownJobRun",
    "UnknownTaskToken",
]


class JobInputError(UsageError):
    """A definition or an input could not be read or parsed."""

    def __init__(self, what: str, where: str, reason: str) -> None:
        super().__init__(
            f"cannot read {what} from {where}: {reason}",
            hint="pass JSON inline, or @FILE for a JSON/YAML file",
        )


class UnknownJobRun(UsageError):
    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        super().__init__(f"no job run {run_id!r}", hint="list runs with 'cfnops job list'")


class UnknownTaskToken(UsageError):
    def __init__(self, token: str) -> None:
        super().__init__(
            f"no task is waiting for token {token[:40]!r}",
            hint="copy the token from the task's payload (the value of $$.Task.Token)",
        )


class InvalidSchedule(UsageError):
    def __init__(self, expression: str, reason: str) -> None:
        super().__init__(
            f"invalid schedule expression {expression!r}: {reason}",
            hint="use cron(min hour day-of-month month day-of-week year) or rate(N unit)",
        )


class StrictValidationFailed(UsageError):
    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        super().__init__(
            "the definition would not run the same on AWS Step Functions: "
            + "; ".join(self.problems),
            hint="replace cfnops-only features (local functions) with AWS resources",
        )


class RunNotRedrivable(OperationFailed):
    def __init__(self, run_id: str, status: str) -> None:
        super().__init__(
            f"run {run_id!r} is {status}; only FAILED, TIMED_OUT or ABORTED runs can be redriven",
            hint="start a new run with 'cfnops job run'",
        )
