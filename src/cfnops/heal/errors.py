"""Errors of :mod:`cfnops.heal`; each names the stack (and the state) and what to do.

HealError (CfnopsError)         root of every heal error; each is also one of:
OperationFailed                 a heal run or drift report could not finish
    ├── DetectionFailed         DETECTION_FAILED or stack drift status UNKNOWN
    ├── ChangeSetFailed         the REVERT_DRIFT change set ended FAILED
    ├── ExecutionFailed         the change set ended EXECUTE_FAILED
    ├── WaitTimedOut            a poll ran out of attempts (operation, attempts, last state)
    ├── StackNotFound
    ├── StackNotCheckable       the stack's status forbids drift detection
    └── StackBusy               still *_IN_PROGRESS after the bounded wait
UsageError
├── InvalidHealEvent            the workflow's input is malformed
├── MalformedStackArn           region cannot be read from the stack id
├── HealAlreadyRunning          another run heals this stack
├── NestedStackHeal             a nested stack named: it is healed through its root
├── NotHeld                     approve/reject of a run that is not waiting
├── BadAcceptance               drift accept: malformed date, path, reason or target
└── BadScanTarget               drift scan / heal: malformed or unknown account, role not assumable
"""

from __future__ import annotations

from typing import Any

from cfnops.errors import CfnopsError, OperationFailed, UsageError


class HealError(CfnopsError):
    """Root of the ``cfnops.heal`` errors."""


class DetectionFailed(HealError, OperationFailed):
    def __init__(self, stack: str, status: str, reason: str) -> None:
        self.stack, self.status = stack, status
        super().__init__(
            f"drift detection for stack {stack} ended {status}: {reason}",
            hint="check the stack's resources in the console and run the heal again",
        )


class ChangeSetFailed(HealError, OperationFailed):
    def __init__(self, stack: str, change_set_id: str, reason: str) -> None:
        self.stack, self.change_set_id = stack, change_set_id
        super().__init__(
            f"change set {change_set_id} for stack {stack} FAILED: {reason}",
            hint="read the status reason; fix the stack or template, then heal again",
        )


class ExecutionFailed(HealError, OperationFailed):
    def __init__(self, stack: str, change_set_id: str, reason: str) -> None:
        self.stack, self.change_set_id = stack, change_set_id
        super().__init__(
            f"execution of change set {change_set_id} on stack {stack} ended EXECUTE_FAILED: "
            f"{reason}",
            hint="read the stack events ('aws cloudformation describe-stack-events')",
        )


class WaitTimedOut(HealError, OperationFailed):
    def __init__(self, stack: str, operation: str, attempts: int, last_state: Any) -> None:
        self.stack, self.operation, self.attempts, self.last_state = (
            stack,
            operation,
            attempts,
            last_state,
        )
        super().__init__(
            f"timed out polling {operation} for stack {stack} after {attempts} attempts; "
            f"last state: {last_state}",
            hint="raise the [heal] poll interval or attempts, or check the stack",
        )


class StackNotFound(HealError, UsageError):
    """An unknown stack is the caller's mistake (a wrong name or region): exit 2."""

    def __init__(self, stack: str) -> None:
        self.stack = stack
        super().__init__(f"stack {stack} does not exist", hint="check the name and --region")


class StackNotCheckable(HealError, OperationFailed):
    def __init__(self, stack: str, status: str) -> None:
        self.stack, self.status = stack, status
        super().__init__(
            f"stack {stack} is {status}; drift detection is only possible on stacks in a "
            "*_COMPLETE state (or UPDATE_ROLLBACK_FAILED)",
            hint="repair the stack (continue the rollback, or delete and re-create it) first",
        )


class StackBusy(HealError, OperationFailed):
    def __init__(self, stack: str, status: str, attempts: int) -> None:
        self.stack, self.status = stack, status
        super().__init__(
            f"stack {stack} is still {status} after {attempts} checks",
            hint="wait for the running operation to finish and heal again",
        )


class InvalidHealEvent(HealError, UsageError):
    def __init__(self, reason: str) -> None:
        super().__init__(
            f"invalid heal input: {reason}",
            hint='expected {"StackName": "<name>", "CreateChangeSetOnly": false}',
        )


class MalformedStackArn(HealError, UsageError):
    def __init__(self, arn: str) -> None:
        super().__init__(
            f"cannot read a region from stack id {arn!r}",
            hint="expected arn:PARTITION:cloudformation:REGION:ACCOUNT:stack/NAME/ID",
        )


class NestedStackHeal(HealError, UsageError):
    """A nested stack was named: its change sets are created and executed from its root."""

    def __init__(self, stack: str, root: str) -> None:
        self.stack, self.root = stack, root
        super().__init__(
            f"stack {stack} is a nested stack of {root}: nested stacks are healed through "
            "their root (one REVERT_DRIFT change set on the root with IncludeNestedStacks; "
            "AWS executes nested change sets only from the root change set)",
            hint=f"heal the root stack: cfnops heal {root}",
        )


class HealAlreadyRunning(HealError, UsageError):
    def __init__(self, stack: str, run_id: str) -> None:
        self.stack, self.run_id = stack, run_id
        super().__init__(
            f"stack {stack} is already being healed by run {run_id}",
            hint=f"wait for it ('cfnops runs show {run_id}'), approve or reject it, "
            f"cancel it ('cfnops runs cancel {run_id}'), or, if the command that started it "
            "was interrupted, let 'cfnops worker' resume it",
        )


class NotHeld(HealError, UsageError):
    def __init__(self, run_id: str, why: str) -> None:
        self.run_id = run_id
        super().__init__(
            f"run {run_id} is not waiting for approval: {why}",
            hint="'cfnops runs list --workflow cfnops.heal --status RUNNING' lists runs",
        )


class BadAcceptance(HealError, UsageError):
    """``cfnops drift accept`` input that cannot be stored (nothing is written)."""

    def __init__(self, where: str, problem: str) -> None:
        self.where = where
        super().__init__(
            f"drift accept: {where}: {problem}",
            hint="cfnops drift accept STACK RESOURCE [/Path] --until 2026-12-31 --reason TEXT",
        )


class BadScanTarget(HealError, UsageError):
    """``cfnops drift scan`` / ``cfnops heal`` targets that cannot be reached (nothing is
    written, no run started)."""

    def __init__(self, where: str, problem: str, command: str = "drift scan") -> None:
        self.where = where
        super().__init__(
            f"{command}: {where}: {problem}",
            hint=f"cfnops {command} --accounts 111111111111,222222222222 --role-name NAME",
        )
