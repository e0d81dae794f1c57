"""Invocation records of :mod:`ssm_commands` and the SSM responses built from them.

Field names and formats follow the AWS Systems Manager API reference pages
"GetCommandInvocation", "ListCommandInvocations", "CommandInvocation",
"CommandPlugin" and "Command" (docs.aws.amazon.com/systems-manager/latest/APIReference/).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cfnops.sandbox._state import current_state

__all__ = ["Invocation", "patch", "plugin_name"]

_FINAL = ("Success", "Failed", "TimedOut")
_STDOUT_LIMIT = 24000  # GetCommandInvocation: StandardOutputContent, first 24,000 chars
_OUTPUT_LIMIT = 2500  # CommandPlugin.Output: first 2,500 chars
_FILTER_KEYS = ("InvokedAfter", "InvokedBefore", "Status", "ExecutionStage", "DocumentName")


@dataclass
class Invocation:
    """One command on one managed node (mutated by the sandbox's timers)."""

    command_id: str
    instance_id: str
    plugin: str
    requested: datetime
    status: str = "Pending"
    status_details: str = "Pending"
    response_code: int = -1
    started: datetime | None = None
    ended: datetime | None = None
    stdout: str = ""
    stderr: str = ""

    @property
    def final(self) -> bool:
        return self.status in _FINAL


def plugin_name(document_name: str | None) -> str:
    if document_name and "PowerShell" in document_name:
        return "aws:runPowerShellScript"
    return "aws:runShellScript"


def _stamp(moment: datetime | None) -> str:
    if moment is None:
        return ""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _elapsed(inv: Invocation) -> str:
    if inv.started is None or inv.ended is None:
        return ""
    return f"PT{(inv.ended - inv.started).total_seconds():.3f}S"


def _output(inv: Invocation) -> str:
    text = inv.stdout
    if inv.stderr:
        text += "\n----------ERROR-------\n" + inv.stderr
    return text[:_OUTPUT_LIMIT]


def _notification(command: Any) -> dict[str, Any]:
    """The request's NotificationConfig; empty when none was given (moto puts "string")."""
    config = command.notification_config or {}
    if config.get("NotificationArn") == "string":
        return {}
    return dict(config)


def _cloudwatch() -> dict[str, Any]:
    return {"CloudWatchLogGroupName": "", "CloudWatchOutputEnabled": False}


def get_invocation_result(command: Any, inv: Invocation) -> dict[str, Any]:
    return {
        "CommandId": inv.command_id,
        "InstanceId": inv.instance_id,
        "Comment": command.comment,
        "DocumentName": command.document_name,
        "DocumentVersion": "$DEFAULT",
        "PluginName": inv.plugin,
        "ResponseCode": inv.response_code,
        "ExecutionStartDateTime": _stamp(inv.started),
        "ExecutionElapsedTime": _elapsed(inv),
        "ExecutionEndDateTime": _stamp(inv.ended),
        "Status": inv.status,
        "StatusDetails": inv.status_details,
        "StandardOutputContent": inv.stdout[:_STDOUT_LIMIT],
        "StandardOutputUrl": "",
        "StandardErrorContent": inv.stderr[:_STDOUT_LIMIT],
        "StandardErrorUrl": "",
        "CloudWatchOutputConfig": _cloudwatch(),
    }


def list_entry(command: Any, inv: Invocation, details: bool) -> dict[str, Any]:
    plugin: dict[str, Any] = {
        "Name": inv.plugin,
        "Status": inv.status,
        "StatusDetails": inv.status_details,
        "ResponseCode": inv.response_code,
        "Output": _output(inv),
        "StandardOutputUrl": "",
        "StandardErrorUrl": "",
        "OutputS3Region": command.output_s3_region or command.backend_region,
        "OutputS3BucketName": command.output_s3_bucket_name,
        "OutputS3KeyPrefix": command.output_s3_key_prefix,
    }
    if inv.started is not None:
        plugin["ResponseStartDateTime"] = inv.started
    if inv.ended is not None:
        plugin["ResponseFinishDateTime"] = inv.ended
    return {
        "CommandId": inv.command_id,
        "InstanceId": inv.instance_id,
        "InstanceName": "",
        "Comment": command.comment,
        "DocumentName": command.document_name,
        "DocumentVersion": "$DEFAULT",
        "RequestedDateTime": inv.requested,
        "Status": inv.status,
        "StatusDetails": inv.status_details,
        "TraceOutput": "",
        "StandardOutputUrl": "",
        "StandardErrorUrl": "",
        "CommandPlugins": [plugin] if details else [],
        "ServiceRole": command.service_role_arn,
        "NotificationConfig": _notification(command),
        "CloudWatchOutputConfig": _cloudwatch(),
    }


def aggregate(invocations: list[Invocation]) -> dict[str, Any]:
    """The command-level status and counts ListCommands reports."""
    statuses = [inv.status for inv in invocations]
    if not invocations or all(s == "Pending" for s in statuses):
        status = "Pending"
    elif not all(inv.final for inv in invocations):
        status = "InProgress"
    elif "Failed" in statuses:
        status = "Failed"
    elif "TimedOut" in statuses:
        status = "TimedOut"
    else:
        status = "Success"
    return {
        "Status": status,
        "StatusDetails": status,
        "CompletedCount": sum(1 for inv in invocations if inv.final),
        "ErrorCount": statuses.count("Failed"),
        "DeliveryTimedOutCount": 0,
        "TargetCount": len(invocations),
    }


def _matches_filters(command: Any, inv: Invocation, filters: list[dict[str, str]]) -> bool:
    from moto.ssm.exceptions import InvalidFilterKey

    for item in filters:
        key, value = item.get("key", ""), item.get("value", "")
        if key not in _FILTER_KEYS:
            raise InvalidFilterKey(f"The specified key is not valid: {key}")
        if key == "Status" and inv.status != value:
            return False
        if key == "DocumentName" and command.document_name != value:
            return False
        if key == "ExecutionStage" and (value == "Complete") != inv.final:
            return False
        if key in ("InvokedAfter", "InvokedBefore"):
            bound = datetime.fromisoformat(value.replace("Z", "+00:00"))
            moment = (
                inv.requested
                if inv.requested.tzinfo
                else inv.requested.replace(tzinfo=bound.tzinfo)
            )
            if (key == "InvokedAfter") != (moment >= bound):
                return False
    return True


Lookup = Callable[[str], list[Invocation] | None]


def patch(command_cls: Any, response_cls: Any, lookup: Lookup) -> None:
    """Install the response methods and the ListCommands overlay (idempotent)."""
    from moto.core.responses import ActionResult
    from moto.ssm.exceptions import SSMException

    if getattr(command_cls.response_object, "_cfnops_patched", False):
        return
    original_response_object = command_cls.response_object

    def response_object(self: Any) -> dict[str, Any]:
        data: dict[str, Any] = original_response_object(self)
        found = lookup(self.command_id)
        if found is not None:
            data.update(aggregate(found))
            data["NotificationConfig"] = _notification(self)
        return data

    def get_command_invocation(self: Any) -> Any:
        command = self.ssm_backend.get_command_by_id(self._get_param("CommandId"))
        instance_id = self._get_param("InstanceId")
        plugin = self._get_param("PluginName")
        inv = next(
            (i for i in lookup(command.command_id) or [] if i.instance_id == instance_id), None
        )
        if inv is None:
            raise SSMException(
                "InvocationDoesNotExist",
                f"An invocation for this command and instance does not exist: {instance_id}",
            )
        if plugin is not None and plugin != inv.plugin:
            raise SSMException("InvalidPluginName", f"The plugin name is not valid: {plugin}")
        with current_state().lock:  # timers mutate invocations under this lock
            return ActionResult(get_invocation_result(command, inv))

    def list_command_invocations(self: Any) -> Any:
        command_id = self._get_param("CommandId")
        instance_id = self._get_param("InstanceId")
        details = bool(self._get_param("Details", False))
        filters = self._get_param("Filters") or []
        max_results = int(self._get_param("MaxResults") or 50)
        start = int(self._get_param("NextToken") or 0)
        if command_id:
            commands = [self.ssm_backend.get_command_by_id(command_id)]
        else:
            commands = list(reversed(self.ssm_backend._commands))
        with current_state().lock:
            rows = [
                list_entry(command, inv, details)
                for command in commands
                for inv in lookup(command.command_id) or []
                if (not instance_id or inv.instance_id == instance_id)
                and _matches_filters(command, inv, filters)
            ]
        result: dict[str, Any] = {"CommandInvocations": rows[start : start + max_results]}
        if start + max_results < len(rows):
            result["NextToken"] = str(start + max_results)
        return ActionResult(result)

    response_object._cfnops_patched = True  # type: ignore[attr-defined]
    command_cls.response_object = response_object
    response_cls.get_command_invocation = get_command_invocation
    response_cls.list_command_invocations = list_command_invocations
