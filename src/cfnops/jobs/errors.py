"""Errors of the job-net engine.

Exception tree::

    CfnopsError
    └── JobsError            root of every jobs error; each is also one of:
    ├── UsageError
    │   ├── JobInputError        a definition file or an input that cannot be read
    │   ├── ModuleImportFailed   a module named by --import (or recorded by the run) fails
    │   ├── UnknownJobRun        no run with that id in the job store
    │   ├── UnknownTaskToken     send-task-success/failure with a token no run issued
    │   ├── InvalidSchedule      a cron/rate expression or time zone EventBridge would refuse
    │   ├── InvalidCalendar      a business-calendar file that cannot be read (file, key, value)
    │   ├── UnknownPool          a resource pool no one created
    │   ├── DependencyCycle      job-net dependencies that would wait for each other
    │   ├── UnknownJobNet        a dependency on a job-net with no schedule and no run
    │   ├── UnknownState         a rerun or an operator action names a state not there
    │   ├── RerunRefused         a rerun that cannot be made as asked (running origin, …)
    │   ├── ActionRefused        hold/release/skip/force that does not apply to the run now
    │   ├── InvalidOption        a schedule option (--exclusive, --deadline …) out of range
    │   ├── MockConfigError      a mock configuration / expectations file that cannot be used
    │   ├── UnknownTestCase      `job test --case` names a case the mock file lacks
    │   ├── UnmockedTask         a test case reached a Task (or attempt) with no mocked answer
    │   └── StrictValidationFailed  a definition that would not run the same on AWS
    └── OperationFailed
        └── RunNotRedrivable     redrive asked of a run that did not fail

How an execution ends (SUCCEEDED, FAILED …) is data (:class:`cfnops.jobs.JobResult`),
never an exception.
"""

from __future__ import annotations

from collections.abc import Sequence

from cfnops.errors import CfnopsError, OperationFailed, UsageError
from cfnops.schedules.errors import InvalidSchedule as InvalidSchedule

__all__ = [
    "ActionRefused",
    "DependencyCycle",
    "InvalidCalendar",
    "InvalidOption",
    "InvalidSchedule",
    "JobInputError",
    "JobsError",
    "MockConfigError",
    "ModuleImportFailed",
    "RerunRefused",
    "RunNotRedrivable",
    "StrictValidationFailed",
    "UnknownJobNet",
    "UnknownJobRun",
    "UnknownPool",
    "UnknownState",
    "UnknownTaskToken",
    "UnknownTestCase",
    "UnmockedTask",
]


class JobsError(CfnopsError):
    """Root of the ``cfnops.jobs`` errors."""


_HINTS = {
    "the input": "pass JSON inline, or @FILE for a JSON/YAML file",
    "the execution name": "choose another --name (e.g. webapp-stop-2026-12-01): no '/' or "
    "spaces, at most 80 characters",
}


class JobInputError(JobsError, UsageError):
    """A definition or an input could not be read or parsed."""

    def __init__(self, what: str, where: str, reason: str, hint: str | None = None) -> None:
        if hint is None:
            hint = _HINTS.get(
                what, "give a JSON or YAML file holding an Amazon States Language definition"
            )
        super().__init__(f"cannot read {what} from {where}: {reason}", hint=hint)


class ModuleImportFailed(JobsError, UsageError):
    """A module the run needs (``--import``, or recorded when it started) cannot be imported."""

    def __init__(self, module: str, reason: str) -> None:
        self.module = module
        self.reason = reason
        super().__init__(
            f"cannot import module {module!r} (its local functions): {reason}",
            hint="make it importable here (PYTHONPATH, or run from its directory), or name "
            "another with --import",
        )


class UnknownJobRun(JobsError, UsageError):
    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        super().__init__(f"no job run {run_id!r}", hint="list runs with 'cfnops job list'")


class UnknownTaskToken(JobsError, UsageError):
    def __init__(self, token: str) -> None:
        super().__init__(
            f"no task is waiting for token {token[:40]!r}",
            hint="copy the token from the task's payload (the value of $$.Task.Token)",
        )


class InvalidCalendar(JobsError, UsageError):
    def __init__(self, where: str, reason: str) -> None:
        self.where = where
        super().__init__(
            f"invalid business calendar {where}: {reason}",
            hint="dates are YYYY-MM-DD, weekdays MON..SUN; see 'Calendars' in docs/jobs.md",
        )


class InvalidOption(JobsError, UsageError):
    def __init__(self, flag: str, value: str, reason: str) -> None:
        super().__init__(f"{flag} {value!r}: {reason}", hint="see 'cfnops job schedule add --help'")


class UnknownPool(JobsError, UsageError):
    def __init__(self, name: str, where: str, known: Sequence[str]) -> None:
        self.name = name
        have = ", ".join(known) or "none"
        super().__init__(
            f"unknown resource pool {name!r} ({where}); pools: {have}",
            hint=f"create it first: cfnops job pool set {name} --capacity N",
        )


class DependencyCycle(JobsError, UsageError):
    def __init__(self, cycle: Sequence[str]) -> None:
        self.cycle = tuple(cycle)
        super().__init__(
            "job-net dependencies would wait for each other: " + " → ".join(self.cycle),
            hint="remove one of these --after dependencies",
        )


class UnknownJobNet(JobsError, UsageError):
    def __init__(self, name: str, known: Sequence[str]) -> None:
        self.name = name
        super().__init__(
            f"--after {name!r}: no schedule, trigger or run of a job-net with that name "
            f"(known: {', '.join(known) or 'none'})",
            hint="a job-net's name is its definition file name without .asl.json",
        )


class StrictValidationFailed(JobsError, UsageError):
    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        super().__init__(
            "the definition would not run the same on AWS Step Functions: "
            + "; ".join(self.problems),
            hint="replace cfnops-only features (local functions) with AWS resources",
        )


class RunNotRedrivable(JobsError, OperationFailed):
    def __init__(self, run_id: str, status: str) -> None:
        super().__init__(
            f"run {run_id!r} is {status}; only FAILED, TIMED_OUT or ABORTED runs can be redriven",
            hint="start a new run with 'cfnops job run'",
        )


class UnknownSchedule(JobsError, UsageError):
    def __init__(self, name: str) -> None:
        super().__init__(
            f"no schedule or event trigger named {name!r}",
            hint="list them with 'cfnops job schedule list' and 'cfnops job trigger list'",
        )
        self.name = name


class UnknownState(JobsError, UsageError):
    """A state name that is not in the definition (or not where it is needed)."""

    def __init__(self, state: str, where: str, hint: str) -> None:
        self.state = state
        super().__init__(f"no state {state!r} in {where}", hint=hint)


class RerunRefused(JobsError, UsageError):
    """A rerun that cannot be made as asked; nothing was created."""

    def __init__(self, run_id: str, reason: str, hint: str) -> None:
        self.run_id = run_id
        super().__init__(f"cannot rerun {run_id!r}: {reason}", hint=hint)


class ActionRefused(JobsError, UsageError):
    """An operator action (hold, release, skip, force) that does not apply now."""

    def __init__(self, action: str, run_id: str, reason: str, hint: str) -> None:
        self.action = action
        self.run_id = run_id
        super().__init__(f"cannot {action} run {run_id!r}: {reason}", hint=hint)


class MockConfigError(JobsError, UsageError):
    """A mock configuration (Step Functions Local's format) or expectations file is wrong."""

    def __init__(self, where: str, problem: str) -> None:
        self.where = where
        super().__init__(
            f"mock configuration: {where} {problem}",
            hint="see docs/jobs.md, 'Testing job-nets', for the file's format",
        )


class UnknownTestCase(JobsError, UsageError):
    """``--case`` (or ``--state-machine``) names something the mock configuration lacks."""

    def __init__(self, what: str, name: str, known: Sequence[str]) -> None:
        self.name = name
        super().__init__(
            f"no {what} {name!r} in the mock configuration",
            hint=f"use one of: {', '.join(known) or '(none)'}",
        )


class UnmockedTask(JobsError, UsageError):
    """A test case ran a Task state (or an attempt of it) that has no mocked answer."""

    def __init__(self, case: str, state: str, attempt: int, defined: str | None) -> None:
        self.case, self.state, self.attempt = case, state, attempt
        if defined is None:
            problem = f"Task state {state!r} has no mocked response"
            hint = f"map {state!r} to a response under TestCases.{case}"
        else:
            problem = f"Task state {state!r} ran attempt {attempt}, its response defines {defined}"
            hint = f'add an attempt key "{attempt}" (or a range) to its mocked response'
        super().__init__(f"test case {case!r}: {problem}", hint=hint)
