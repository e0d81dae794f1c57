"""Errors of AMI rotation (``cfnops ami``).

::

    CfnopsError
    ├── UsageError (exit 2)
    │   ├── MalformedEvent          the event is not JSON / misses a field it must have
    │   ├── TemplateLoadError       ``ami check`` cannot read the template
    │   ├── NoImageParameter        the stack has no such template parameter
    │   ├── UnknownImage            an explicit --image-id is malformed or does not exist
    │   ├── UnknownStack            an explicit --stack does not exist
    │   └── NothingToRollBack       no previous value recorded for the target
    └── OperationFailed (exit 1)
        ├── ImageNotAvailable       the AMI is missing, failed, or still pending after the wait
        ├── IncompatibleImage       architecture / virtualisation type differ from the image in use
        ├── ParameterOwnedByStack   the parameter belongs to a stack (writing it would drift)
        ├── ParameterNotFound       pattern 1 needs the parameter to exist already
        ├── StackNotReady           the stack is busy past the wait, missing, or in a failed state
        └── UpdateRolledBack        UpdateStack rolled back; carries the failing resources

Skipped events are not errors: they are :class:`cfnops.ami.Skipped` values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cfnops.errors import CfnopsError, OperationFailed, UsageError

__all__ = [
    "AmiError",
    "ImageNotAvailable",
    "IncompatibleImage",
    "MalformedEvent",
    "NoImageParameter",
    "NothingToRollBack",
    "ParameterNotFound",
    "ParameterOwnedByStack",
    "StackNotReady",
    "TemplateLoadError",
    "UnknownImage",
    "UnknownStack",
    "UpdateRolledBack",
]


class AmiError(CfnopsError):
    """Root of the ``cfnops.ami`` errors."""


class MalformedEvent(AmiError, UsageError):
    """The event cannot be understood: says where (JSON pointer) and what is wrong."""

    def __init__(self, source: str, pointer: str, reason: str) -> None:
        self.source = source
        self.pointer = pointer
        self.reason = reason
        where = f"{source}" + (f" at {pointer}" if pointer else "")
        super().__init__(
            f"malformed event in {where}: {reason}",
            hint="pass an EventBridge event (version, id, detail-type, source, detail), such as "
            "an AWS Backup 'Backup Job State Change' event",
        )


class TemplateLoadError(AmiError, UsageError):
    """``cfnops ami check`` could not decode the template."""

    def __init__(self, path: str, reason: str, hint: str | None = None) -> None:
        self.path = path
        super().__init__(
            f"cannot read template {path}: {reason}", hint=hint or "fix the JSON/YAML syntax"
        )


class NothingToRollBack(AmiError, UsageError):
    """No previous AMI recorded for this parameter or stack."""

    def __init__(self, target: str, where: str) -> None:
        self.target = target
        super().__init__(
            f"no previous AMI recorded for {target} (looked in {where})",
            hint="roll back only after a 'cfnops ami rotate' of this target, or rotate "
            "explicitly with --image-id",
        )


class UnknownImage(AmiError, UsageError):
    """``--image-id`` is not an AMI id, or no such AMI exists in the region."""

    def __init__(self, image_id: str, reason: str, hint: str) -> None:
        self.image_id = image_id
        super().__init__(f"--image-id {image_id}: {reason}; nothing was changed", hint=hint)


class UnknownStack(AmiError, UsageError):
    """``--stack`` names a stack that does not exist in the region."""

    def __init__(self, stack: str, region: str) -> None:
        self.stack = stack
        super().__init__(
            f"stack {stack} does not exist in {region}; nothing was changed",
            hint="check the stack name and --region (cfnops drift --all lists the stacks)",
        )


class ImageNotAvailable(AmiError, OperationFailed):
    """The AMI does not exist, failed, or did not become ``available`` in time."""

    def __init__(self, image_id: str, state: str, waited: float) -> None:
        self.image_id = image_id
        self.state = state
        super().__init__(
            f"AMI {image_id} is {state} after waiting {waited:g} s; nothing was changed",
            hint="check the image (aws ec2 describe-images --image-ids "
            f"{image_id}) and rotate again, or raise ami.image_wait_seconds",
        )


class IncompatibleImage(AmiError, OperationFailed):
    """The new AMI's architecture or virtualisation type differs from the current one."""

    def __init__(self, target: str, new: str, current: str, differences: Sequence[str]) -> None:
        self.differences = tuple(differences)
        super().__init__(
            f"AMI {new} does not match {current} used by {target}: " + "; ".join(differences),
            hint="use an image built for the same architecture, or pass --no-check-compatibility",
        )


class ParameterOwnedByStack(AmiError, OperationFailed):
    """Writing this parameter would drift the stack that owns it."""

    def __init__(self, parameter: str, stack: str, evidence: str) -> None:
        self.parameter = parameter
        self.stack = stack
        super().__init__(
            f"SSM parameter {parameter} belongs to stack {stack} ({evidence}); writing it "
            "would drift the stack, so nothing was changed",
            hint="create the parameter outside the stack (pattern 1), rotate the stack's ImageId "
            "parameter instead (pattern 2), or pass --force to write it anyway",
        )


class ParameterNotFound(AmiError, OperationFailed):
    """Pattern 1 expects the parameter to exist (created outside any stack)."""

    def __init__(self, parameter: str) -> None:
        self.parameter = parameter
        super().__init__(
            f"SSM parameter {parameter} does not exist; nothing was changed",
            hint=f"create it once outside the stack: aws ssm put-parameter --name {parameter} "
            "--type String --data-type aws:ec2:image --value ami-...",
        )


class StackNotReady(AmiError, OperationFailed):
    """The stack cannot be updated: missing, busy beyond the wait, or failed."""

    def __init__(self, stack: str, status: str, reason: str) -> None:
        self.stack = stack
        self.status = status
        super().__init__(
            f"stack {stack} is {status}: {reason}; nothing was changed",
            hint="wait for the running operation to end (or fix the stack), then rotate again",
        )


class UpdateRolledBack(AmiError, OperationFailed):
    """UpdateStack failed and CloudFormation rolled the stack back."""

    def __init__(self, stack: str, status: str, failures: Sequence[dict[str, str]]) -> None:
        self.stack = stack
        self.status = status
        self.failures = tuple(failures)
        lines = "; ".join(
            f"{f.get('LogicalResourceId')} ({f.get('ResourceType')}) {f.get('ResourceStatus')}: "
            f"{f.get('ResourceStatusReason') or 'no reason given'}"
            for f in failures
        )
        super().__init__(
            f"update of stack {stack} ended {status}" + (f" — {lines}" if lines else ""),
            hint="fix the failing resources (aws cloudformation describe-stack-events "
            f"--stack-name {stack}); the stack keeps its previous ImageId",
        )


class NoImageParameter(AmiError, UsageError):
    """Pattern 2 needs the stack to take the AMI as a template parameter."""

    def __init__(self, stack: str, key: str, keys: Sequence[str]) -> None:
        self.stack = stack
        self.key = key
        super().__init__(
            f"stack {stack} has no parameter {key!r} (it has: {', '.join(keys) or 'none'})",
            hint="pass --parameter-key with the template parameter that feeds ImageId, or "
            "see 'cfnops ami check' for the pattern 2 template edit",
        )


class InstanceRefreshFailed(AmiError, OperationFailed):
    """Pattern 3: the instance refresh CloudFormation started did not succeed."""

    def __init__(self, stack: str, refresh: dict[str, Any], stack_status: str) -> None:
        self.stack, self.refresh, self.stack_status = stack, dict(refresh), stack_status
        reason = refresh.get("StatusReason") or "no status reason given"
        super().__init__(
            f"instance refresh {refresh.get('InstanceRefreshId', '?')} of group "
            f"{refresh.get('GroupName', '?')} in stack {stack} ended {refresh.get('Status')} "
            f"at {refresh.get('PercentageComplete', 0)} %: {reason}; the stack is "
            f"{stack_status}",
            hint="the stack kept its previous AMI; fix the cause (health checks, the "
            f"AMI itself) and rotate again, or 'cfnops ami rollback --stack {stack}'",
        )


class NotRollable(AmiError, UsageError):
    """``--roll`` on a stack whose groups cannot roll through an instance refresh policy."""

    def __init__(self, stack: str, problems: Sequence[str], plan: dict[str, Any]) -> None:
        self.stack, self.problems, self.plan = stack, list(problems), dict(plan)
        edits = [g["Edit"] for g in plan.get("groups", []) if g.get("Edit")]
        hint = "edit the template:\n" + "\n".join(edits) if edits else None
        super().__init__(
            f"stack {stack} cannot be rotated with --roll: " + "; ".join(self.problems),
            hint=hint,
        )
