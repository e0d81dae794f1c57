"""Execute a sandbox-owned change set (ordinary or REVERT_DRIFT) with realistic states."""

from __future__ import annotations

from typing import Any

from cfnops.sandbox._state import current_state
from cfnops.sandbox.extensions._cfn_apply import add_resource_event, after_update
from cfnops.sandbox.extensions._cfn_deploy import deployment_of, record_deployment
from cfnops.sandbox.extensions._moto import moto_module

__all__ = ["execute"]


def _error(code: str, message: str) -> Exception:
    CloudFormationError = moto_module("moto.cloudformation.exceptions").CloudFormationError

    return CloudFormationError(code, message)  # type: ignore[no-any-return]


def _stack_event(stack: Any, status: str, reason: str | None, token: str | None) -> None:
    add_resource_event(
        stack, stack.name, stack.stack_id, "AWS::CloudFormation::Stack", status, reason, token
    )


def _apply(rec: Any, stack: Any, token: str | None) -> None:
    before = deployment_of(stack)
    template_changed = rec.template_body != stack.template
    params_changed = {
        k: v
        for k, v in rec.parameters.items()
        if str(stack.resource_map.resolved_parameters.get(k)) != v
    }
    if template_changed or params_changed:
        stack.template = rec.template_body
        stack._parse_template()
        stack.resource_map.update(stack.template_dict, rec.parameters)
        stack.output_map = stack._create_output_map()
        stack.parameters = dict(rec.parameters)
    deployment = record_deployment(stack)
    touched: list[str] = []
    for change in rec.changes:
        logical_id = change.api["LogicalResourceId"]
        if change.recreate and logical_id in deployment.resources:
            from cfnops.sandbox.extensions._cfn_writers import recreate

            recreate(stack, deployment.resources[logical_id])
        if change.recreate or change.revert:
            touched.append(logical_id)
    after_update(
        stack, before, revert_all=rec.revert_drift, also_changed=tuple(touched), token=token
    )
    if rec.revert_drift:
        # Drift-aware change sets reset the drift status of what they reconciled
        # (User Guide, "Using drift-aware change sets"): re-check those resources.
        from cfnops.sandbox.extensions.cfn_drift import recheck

        recheck(stack, touched)


def execute(rec: Any, stack: Any, token: str | None, records: dict[str, Any]) -> None:
    """Start executing ``rec``; the stack settles after ``Delays.change_set_execute``."""
    if token and token in rec.tokens:
        return  # the same request again: CloudFormation answers success and does nothing
    if rec.execution_status != "AVAILABLE":
        raise _error(
            "InvalidChangeSetStatus",
            f"ChangeSet [{rec.change_set_id}] cannot be executed in its current execution "
            f"status of [{rec.execution_status}]",
        )
    if stack.status.endswith("_IN_PROGRESS"):
        raise _error(
            "InvalidChangeSetStatus",
            f"Stack [{stack.name}] is in {stack.status} state and can not be updated.",
        )
    if token:
        rec.tokens.add(token)
    parts = _with_nested(rec, stack)
    for part, part_stack in parts:
        part.execution_status = "EXECUTE_IN_PROGRESS"
        part_stack.status = "UPDATE_IN_PROGRESS"
        _stack_event(part_stack, "UPDATE_IN_PROGRESS", "User Initiated", token)

    def finish() -> None:
        # Nested change sets first (deepest first), then the root's own changes.
        for part, part_stack in reversed(parts):
            if not _finish_one(part, part_stack, token, records):
                for other, other_stack in parts:
                    if other.execution_status == "EXECUTE_IN_PROGRESS":
                        _fail(other, other_stack, f"nested stack {part_stack.name} failed", token)
                return

    current_state().schedule(current_state().delay("change_set_execute"), finish)


def _with_nested(rec: Any, stack: Any) -> list[tuple[Any, Any]]:
    """``rec`` and, when it includes nested stacks, every nested change set with changes."""
    out = [(rec, stack)]
    for _, sub, child in rec.children:
        if sub.status == "CREATE_COMPLETE" and sub.execution_status == "AVAILABLE":
            out.extend(_with_nested(sub, child))
    return out


def _fail(rec: Any, stack: Any, reason: str, token: str | None) -> None:
    stack.status = "UPDATE_ROLLBACK_COMPLETE"
    rec.execution_status = "EXECUTE_FAILED"
    rec.status_reason = f"Resource update failed: {reason}"
    _stack_event(stack, "UPDATE_ROLLBACK_COMPLETE", reason, token)


def _finish_one(rec: Any, stack: Any, token: str | None, records: dict[str, Any]) -> bool:
    try:
        _apply(rec, stack, token)
    except Exception as exc:  # moto could not apply: fail like a stack update does
        _fail(rec, stack, str(exc), token)
        return False
    _stack_event(stack, "UPDATE_COMPLETE", None, token)
    stack.status = "UPDATE_COMPLETE"
    rec.execution_status = "EXECUTE_COMPLETE"
    for other in records.values():
        if (
            other is not rec
            and other.stack_id == rec.stack_id
            and other.execution_status == "AVAILABLE"
        ):
            other.execution_status = "OBSOLETE"
    return True
