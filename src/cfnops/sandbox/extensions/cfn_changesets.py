"""Change sets for existing stacks, ordinary and drift-aware (``DeploymentMode=REVERT_DRIFT``).

moto 5.2 accepts ``DeploymentMode`` and ignores it, crashes without
``ChangeSetType`` (AWS defaults to UPDATE), reports no ``Replacement`` /
``Details`` / ``PhysicalResourceId`` and jumps straight to the final states.
Here UPDATE change sets are owned by the sandbox (CREATE / IMPORT stay moto's):

- ``Status`` CREATE_PENDING → CREATE_IN_PROGRESS → CREATE_COMPLETE | FAILED over
  ``Delays.change_set_create``; nothing to change → FAILED with AWS's reason;
- ``ExecuteChangeSet``: ``ExecutionStatus`` AVAILABLE → EXECUTE_IN_PROGRESS →
  EXECUTE_COMPLETE and the stack UPDATE_IN_PROGRESS → UPDATE_COMPLETE over
  ``Delays.change_set_execute``, with per-resource stack events carrying the
  ``ClientRequestToken``; the same token again is a no-op (idempotent retry);
- a change set whose stack was updated since it was made is OBSOLETE and
  cannot be executed (API reference, ``ExecutionStatus``).

AWS pages: CreateChangeSet, DescribeChangeSet, ExecuteChangeSet (API reference);
"Using drift-aware change sets" (User Guide).
"""

from __future__ import annotations

import datetime as dt
import functools
import json
from dataclasses import dataclass, field
from typing import Any

from cfnops.sandbox._state import current_state
from cfnops.sandbox.extensions._cfn_apply import after_create
from cfnops.sandbox.extensions._cfn_changes import PlannedChange, plan_changes
from cfnops.sandbox.extensions._cfn_deploy import deployment_of, record_deployment, record_of
from cfnops.sandbox.extensions._cfn_nested_changes import attach_children, children_changes
from cfnops.sandbox.extensions._cfn_newtemplate import (
    ParameterError,
    merge_parameters,
    resolve_template,
)
from cfnops.sandbox.extensions._moto import install_once, moto_module
from cfnops.sandbox.extensions.cfn_drift import stack_drift_status
from cfnops.sandbox.extensions.cfn_fixes import previous_parameter_values

__all__ = ["ChangeSetRecord", "install"]

NO_CHANGES = (
    "The submitted information didn't contain changes. "
    "Submit different information to create a change set."
)
_KEY = "cfn.changesets"
_BUSY = ("_IN_PROGRESS", "ROLLBACK_COMPLETE", "_FAILED")


@dataclass
class ChangeSetRecord:
    change_set_id: str
    name: str
    stack_id: str
    stack_name: str
    template_body: str
    template: dict[str, Any]
    parameters: dict[str, str]
    revert_drift: bool
    description: str | None
    created: dt.datetime
    deployment_at: dt.datetime
    capabilities: list[str] = field(default_factory=list)
    tags: list[dict[str, str]] = field(default_factory=list)
    notification_arns: list[str] = field(default_factory=list)
    status: str = "CREATE_PENDING"
    status_reason: str | None = None
    execution_status: str = "UNAVAILABLE"
    changes: list[PlannedChange] = field(default_factory=list)
    tokens: set[str] = field(default_factory=set)
    include_nested: bool = False
    parent_id: str | None = None  # nested change sets: ParentChangeSetId / RootChangeSetId
    root_id: str | None = None
    children: list[tuple[str, ChangeSetRecord, Any]] = field(default_factory=list)


def _records() -> dict[str, ChangeSetRecord]:
    state = current_state()
    with state.lock:
        found: dict[str, ChangeSetRecord] = state.extras.setdefault(_KEY, {})
        return found


def _error(code: str, message: str) -> Exception:
    CloudFormationError = moto_module("moto.cloudformation.exceptions").CloudFormationError

    return CloudFormationError(code, message)  # type: ignore[no-any-return]


def _find(name_or_id: str, stack_name: str | None) -> ChangeSetRecord | None:
    records = _records()
    if name_or_id in records:
        return records[name_or_id]
    for rec in records.values():
        if rec.name == name_or_id and stack_name in (rec.stack_name, rec.stack_id):
            return rec
    return None


def _descendants(rec: ChangeSetRecord) -> list[ChangeSetRecord]:
    out: list[ChangeSetRecord] = []
    for _, sub, _ in rec.children:
        out += [sub, *_descendants(sub)]
    return out


def _refuse_nested(rec: ChangeSetRecord, verb: str) -> None:
    # "You must execute or delete nested change sets from the root change set"
    # (User Guide, "Change sets for nested stacks").
    if rec.parent_id:
        raise _error(
            "ValidationError",
            f"ChangeSet [{rec.change_set_id}] is a nested change set: it can only be {verb} "
            f"through its root change set [{rec.root_id}]",
        )


def _refresh(rec: ChangeSetRecord) -> None:
    record = record_of(rec.stack_id)
    current = record.deployment.at if record.deployment else None
    if rec.execution_status == "AVAILABLE" and current != rec.deployment_at:
        rec.execution_status = "OBSOLETE"


# -- create ------------------------------------------------------------------------------


def _plan(rec: ChangeSetRecord, stack: Any) -> None:
    before = deployment_of(stack)
    previous = previous_parameter_values(stack)
    changed_params = {k for k, v in rec.parameters.items() if previous.get(k) != v}
    new = resolve_template(stack, rec.template, rec.parameters, set(before.resources))
    rec.changes = plan_changes(stack, before, new, changed_params, rec.revert_drift, True)
    rec.changes += children_changes(rec)
    if rec.changes:
        rec.status, rec.execution_status = "CREATE_COMPLETE", "AVAILABLE"
    else:
        rec.status, rec.execution_status = "FAILED", "UNAVAILABLE"
        rec.status_reason = NO_CHANGES


def _create_update_change_set(self: Any) -> Any:
    Stack = moto_module("moto.cloudformation.models").Stack
    generate_changeset_id = moto_module("moto.cloudformation.utils").generate_changeset_id
    ActionResult = moto_module("moto.core.responses").ActionResult

    backend = self.cloudformation_backend
    stack_name = self._get_param("StackName")
    name = self._get_param("ChangeSetName")
    try:
        stack = backend.get_stack(stack_name)
    except Exception as exc:
        raise _error("ValidationError", f"Stack [{stack_name}] does not exist") from exc
    if stack.status.endswith(_BUSY) or stack.status == "REVIEW_IN_PROGRESS":
        raise _error(
            "ValidationError",
            f"Stack:{stack.stack_id} is in {stack.status} state and can not be updated.",
        )
    if _find(name, stack.stack_id) is not None:
        raise _error("AlreadyExistsException", f"ChangeSet [{name}] already exists")
    self.validate_template_and_stack_body()
    if self._get_bool_param("UsePreviousTemplate", False):
        body = stack.template
    elif self._get_param("TemplateURL"):
        body = self._get_stack_from_s3_url(self._get_param("TemplateURL"))
    else:
        body = self._get_param("TemplateBody")
    template = Stack.parse_template(body) if isinstance(body, str) else dict(body)
    try:
        parameters = merge_parameters(
            template, self._get_param("Parameters", []), previous_parameter_values(stack)
        )
    except ParameterError as exc:
        raise _error("ValidationError", str(exc)) from exc
    rec = ChangeSetRecord(
        change_set_id=generate_changeset_id(name, stack.region_name, stack.account_id),
        name=name,
        stack_id=stack.stack_id,
        stack_name=stack.name,
        template_body=body if isinstance(body, str) else json.dumps(body),
        template=template,
        parameters=parameters,
        revert_drift=self._get_param("DeploymentMode") == "REVERT_DRIFT",
        description=self._get_param("Description"),
        created=dt.datetime.now(dt.UTC),
        deployment_at=deployment_of(stack).at,
        capabilities=list(self._get_param("Capabilities", [])),
        tags=list(self._get_param("Tags", [])),
        notification_arns=list(self._get_param("NotificationARNs", [])),
        include_nested=self._get_bool_param("IncludeNestedStacks", False),
    )
    _records()[rec.change_set_id] = rec
    if rec.include_nested:
        attach_children(rec, stack, _records())
    state = current_state()
    total = state.delay("change_set_create")

    def start() -> None:
        rec.status = "CREATE_IN_PROGRESS"
        for sub in _descendants(rec):
            sub.status = "CREATE_IN_PROGRESS"

    state.schedule(total / 3, start)
    state.schedule(total, lambda: _plan(rec, stack))
    return ActionResult({"Id": rec.change_set_id, "StackId": stack.stack_id})


def _wrap_create(original: Any) -> Any:
    @functools.wraps(original)
    def create_change_set(self: Any) -> Any:
        kind = self._get_param("ChangeSetType") or "UPDATE"
        if kind != "UPDATE":
            return original(self)
        return _create_update_change_set(self)

    return create_change_set


# -- describe / list / delete -------------------------------------------------------------


def _change_api(change: PlannedChange, with_values: bool) -> dict[str, Any]:
    api = dict(change.api)
    if not with_values and "ResourceDriftStatus" not in api:
        for key in ("BeforeContext", "AfterContext", "PreviousDeploymentContext"):
            api.pop(key, None)
    # moto's serializer wraps each item as {"Type": "Resource", "ResourceChange": item}.
    return api


def _describe(rec: ChangeSetRecord, with_values: bool) -> dict[str, Any]:
    _refresh(rec)
    out: dict[str, Any] = {
        "ChangeSetName": rec.name,
        "ChangeSetId": rec.change_set_id,
        "StackId": rec.stack_id,
        "StackName": rec.stack_name,
        # moto's serializer turns this mapping into [{ParameterKey, ParameterValue}].
        "Parameters": dict(rec.parameters),
        "CreationTime": rec.created,
        "ExecutionStatus": rec.execution_status,
        "Status": rec.status,
        "NotificationARNs": rec.notification_arns,
        "Capabilities": rec.capabilities,
        "Tags": rec.tags,
        "Changes": [_change_api(c, with_values) for c in rec.changes],
        "IncludeNestedStacks": rec.include_nested,
    }
    if rec.parent_id:
        out["ParentChangeSetId"], out["RootChangeSetId"] = rec.parent_id, rec.root_id
    if rec.description:
        out["Description"] = rec.description
    if rec.status_reason:
        out["StatusReason"] = rec.status_reason
    if rec.revert_drift:
        out["DeploymentMode"] = "REVERT_DRIFT"
        out["StackDriftStatus"] = stack_drift_status(rec.stack_id)[0]
    return out


def _wrap_describe(original: Any) -> Any:
    @functools.wraps(original)
    def describe_change_set(self: Any) -> Any:
        ActionResult = moto_module("moto.core.responses").ActionResult

        current_state().run_due()
        rec = _find(self._get_param("ChangeSetName"), self._get_param("StackName"))
        if rec is None:
            return original(self)
        with_values = bool(self._get_bool_param("IncludePropertyValues", False))
        return ActionResult(_describe(rec, with_values))

    return describe_change_set


def _wrap_list(original: Any) -> Any:
    @functools.wraps(original)
    def list_change_sets(self: Any) -> Any:
        ActionResult = moto_module("moto.core.responses").ActionResult

        stack_name = self._get_param("StackName")
        stack = self.cloudformation_backend.get_stack(stack_name)
        summaries = []
        for cs in self.cloudformation_backend.list_change_sets():
            if cs.stack_id == stack.stack_id:
                summaries.append(
                    {
                        "StackId": cs.stack_id,
                        "StackName": cs.stack_name,
                        "ChangeSetId": cs.change_set_id,
                        "ChangeSetName": cs.change_set_name,
                        "ExecutionStatus": cs.execution_status,
                        "Status": cs.status,
                        "CreationTime": cs.creation_time,
                    }
                )
        for rec in _records().values():
            if rec.stack_id == stack.stack_id:
                _refresh(rec)
                summary = {
                    "StackId": rec.stack_id,
                    "StackName": rec.stack_name,
                    "ChangeSetId": rec.change_set_id,
                    "ChangeSetName": rec.name,
                    "ExecutionStatus": rec.execution_status,
                    "Status": rec.status,
                    "CreationTime": rec.created,
                    "IncludeNestedStacks": rec.include_nested,
                }
                if rec.parent_id:
                    summary["ParentChangeSetId"] = rec.parent_id
                    summary["RootChangeSetId"] = rec.root_id
                if rec.status_reason:
                    summary["StatusReason"] = rec.status_reason
                if rec.description:
                    summary["Description"] = rec.description
                summaries.append(summary)
        return ActionResult({"Summaries": summaries})

    return list_change_sets


def _wrap_delete(original: Any) -> Any:
    @functools.wraps(original)
    def delete_change_set(self: Any) -> Any:
        EmptyResult = moto_module("moto.core.responses").EmptyResult

        rec = _find(self._get_param("ChangeSetName"), self._get_param("StackName"))
        if rec is None:
            return original(self)
        if rec.execution_status == "EXECUTE_IN_PROGRESS":
            raise _error(
                "InvalidChangeSetStatus",
                f"Cannot delete ChangeSet [{rec.change_set_id}] while it is being executed",
            )
        _refuse_nested(rec, "deleted")
        for sub in [rec, *_descendants(rec)]:
            _records().pop(sub.change_set_id, None)
        return EmptyResult()

    return delete_change_set


# -- execute -----------------------------------------------------------------------------


def _wrap_execute(original: Any) -> Any:
    @functools.wraps(original)
    def execute_change_set(self: Any) -> Any:
        EmptyResult = moto_module("moto.core.responses").EmptyResult

        from cfnops.sandbox.extensions._cfn_execute import execute

        current_state().run_due()
        rec = _find(self._get_param("ChangeSetName"), self._get_param("StackName"))
        if rec is None:
            result = original(self)
            cs = self.cloudformation_backend.describe_change_set(self._get_param("ChangeSetName"))
            stack = self.cloudformation_backend.get_stack(cs.stack_id)
            if cs.change_set_type == "CREATE":
                after_create(stack)
            else:
                record_deployment(stack)
            return result
        _refuse_nested(rec, "executed")
        _refresh(rec)
        stack = self.cloudformation_backend.get_stack(rec.stack_id)
        execute(rec, stack, self._get_param("ClientRequestToken"), _records())
        return EmptyResult()

    return execute_change_set


@install_once
def install() -> None:
    """Route UPDATE change sets through the sandbox (idempotent)."""
    responses = moto_module("moto.cloudformation.responses")

    cls = responses.CloudFormationResponse
    cls.create_change_set = _wrap_create(cls.create_change_set)
    cls.describe_change_set = _wrap_describe(cls.describe_change_set)
    cls.list_change_sets = _wrap_list(cls.list_change_sets)
    cls.delete_change_set = _wrap_delete(cls.delete_change_set)
    cls.execute_change_set = _wrap_execute(cls.execute_change_set)
