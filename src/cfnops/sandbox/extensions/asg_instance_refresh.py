"""Instance refreshes, and CloudFormation's ``AutoScalingInstanceRefresh`` update policy.

moto has no instance refresh. Here, as in AWS:

- ``StartInstanceRefresh`` / ``DescribeInstanceRefreshes`` / ``CancelInstanceRefresh``
  (Amazon EC2 Auto Scaling API Reference; "Use an instance refresh to update instances
  in an Auto Scaling group",
  https://docs.aws.amazon.com/autoscaling/ec2/userguide/asg-instance-refresh.html): a
  refresh is ``Pending``, then ``InProgress`` with ``PercentageComplete`` and
  ``InstancesToUpdate`` moving as instances are replaced, pausing at each of
  ``CheckpointPercentages`` (``StatusReason`` says so), and ends ``Successful``,
  ``Failed``, ``Cancelled`` or ``RollbackSuccessful``. Newest refresh first.
- The ``AutoScalingInstanceRefresh`` update policy (``UpdatePolicy`` attribute; "When
  properties that trigger an instance refresh change (such as LaunchTemplate or
  MixedInstancesPolicy), CloudFormation starts an instance refresh to replace
  instances gradually", https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.CfnUpdatePolicy.html):
  an ``UpdateStack`` that changes the launch template a group with the policy runs
  (a new version, as pattern 2 of ``cfnops ami`` makes) keeps the stack
  ``UPDATE_IN_PROGRESS`` while the refresh runs, then ``UPDATE_COMPLETE``. The
  stack's record matches the group throughout, so drift detection says
  ``IN_SYNC``. A refresh that fails (or is cancelled) fails the group's update:
  the stack rolls back to its previous template and parameters and ends
  ``UPDATE_ROLLBACK_COMPLETE``, the group's ``UPDATE_FAILED`` event carrying the
  refresh's status reason. Approximation: one replacement per delay period (the
  ``instance_refresh`` delay), whatever ``MinHealthyPercentage`` allows, and a
  checkpoint pause lasts one period, not ``CheckpointDelay`` seconds.

Fault switch (:func:`fail_next_refresh`, control route ``/_cfnops/instance-refresh``
``{"fail": [{"group": NAME, "reason": ..., "status": "Failed"}], "clear": true}``):
the next refresh of a group (or of any group in a stack) fails after replacing
no instance.
"""

from __future__ import annotations

import functools
import json
import threading
import uuid
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from cfnops.sandbox._control import register_control
from cfnops.sandbox._state import current_state
from cfnops.sandbox.extensions._cfn_apply import add_resource_event
from cfnops.sandbox.extensions._moto import moto_module
from cfnops.sandbox.extensions._paging import page

__all__ = ["FailRule", "clear", "fail_next_refresh", "install", "refreshes"]

_KEY = "asg_instance_refresh"
_POLICY = "AutoScalingInstanceRefresh"
_ENDED = ("Successful", "Failed", "Cancelled", "RollbackSuccessful", "RollbackFailed")
_FAIL_STATUSES = ("Failed", "RollbackSuccessful")
_lock = threading.Lock()
_installed = False
_local = threading.local()  # set while a stack rolls back (no refresh is started)


@dataclass
class FailRule:
    """The next refresh of ``group`` (a group or stack name) ends ``status`` with ``reason``."""

    group: str
    reason: str
    status: str = "Failed"


def _store() -> dict[str, Any]:
    state = current_state()
    with state.lock:
        found: dict[str, Any] = state.extras.setdefault(_KEY, {"refreshes": {}, "fail": []})
        return found


def fail_next_refresh(group: str, reason: str, status: str = "Failed") -> FailRule:
    """Make the next refresh of ``group`` (or of a group in stack ``group``) fail."""
    if status not in _FAIL_STATUSES:
        raise ValueError(f"status {status!r} is not one of {_FAIL_STATUSES}")
    rule = FailRule(group, reason, status)
    _store()["fail"].append(rule)
    return rule


def clear() -> None:
    store = _store()
    store["fail"].clear()


def refreshes(account: str, region: str, group: str) -> list[dict[str, Any]]:
    """The group's refreshes, newest first (live records)."""
    found: list[dict[str, Any]] = _store()["refreshes"].setdefault((account, region, group), [])
    return found


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def _take_rule(*names: str) -> FailRule | None:
    rules: list[FailRule] = _store()["fail"]
    for rule in rules:
        if rule.group in names:
            rules.remove(rule)
            return rule
    return None


def _backend(account: str, region: str) -> Any:
    return moto_module("moto.autoscaling.models").autoscaling_backends[account][region]


class _Refresh:
    """One refresh moving through its states on the sandbox's timers."""

    def __init__(
        self,
        account: str,
        region: str,
        group: Any,
        preferences: dict[str, Any],
        rule: FailRule | None,
        on_end: Any = None,
    ) -> None:
        self.account, self.region, self.group = account, region, group
        self.old = [s.instance.id for s in group.instance_states]
        self.checkpoints = sorted(
            int(p) for p in preferences.get("CheckpointPercentages") or [] if 0 < int(p) < 100
        )
        self.rule, self.on_end = rule, on_end
        self.record: dict[str, Any] = {
            "InstanceRefreshId": str(uuid.uuid4()),
            "AutoScalingGroupName": group.name,
            "Status": "Pending",
            "StartTime": _now(),
            "PercentageComplete": 0,
            "InstancesToUpdate": len(self.old),
            "ProgressDetails": {
                "LivePoolProgress": {"PercentageComplete": 0, "InstancesToUpdate": len(self.old)}
            },
            "Preferences": _preferences(preferences),
            "Strategy": "Rolling",
        }
        refreshes(account, region, group.name).insert(0, self.record)
        self.paused_at: set[int] = set()

    def _later(self, action: Any) -> None:
        current_state().schedule(current_state().delay("instance_refresh"), action)

    def start(self) -> None:
        self._later(self._step)

    def _progress(self, done: int) -> None:
        total = max(1, len(self.old))
        pct = 100 if not self.old else int(done * 100 / total)
        left = len(self.old) - done
        self.record["PercentageComplete"] = pct
        self.record["InstancesToUpdate"] = left
        self.record["ProgressDetails"] = {
            "LivePoolProgress": {"PercentageComplete": pct, "InstancesToUpdate": left}
        }

    def _end(self, status: str, reason: str | None = None) -> None:
        self.record["Status"] = status
        if reason:
            self.record["StatusReason"] = reason
        else:
            self.record.pop("StatusReason", None)
        self.record["EndTime"] = _now()
        if self.on_end is not None:
            self.on_end(self.record)

    def _step(self) -> None:
        if self.record["Status"] in _ENDED:
            return
        if self.record["Status"] == "Cancelling":
            self._end("Cancelled", "Instance refresh was cancelled.")
            return
        if self.record["Status"] == "Pending":
            self.record["Status"] = "InProgress"
            if self.rule is not None:
                self._later(self._fail)
                return
            self._later(self._step)
            return
        done = len(self.old) - len(self._remaining())
        pct = int(done * 100 / max(1, len(self.old)))
        due = [c for c in self.checkpoints if c <= pct and c not in self.paused_at]
        if due:
            self.paused_at.update(due)
            self.record["StatusReason"] = (
                f"Waiting at checkpoint {max(due)}% ({done} of {len(self.old)} "
                "instances replaced); the refresh continues after the checkpoint delay."
            )
            self._later(self._step)
            return
        self.record.pop("StatusReason", None)
        remaining = self._remaining()
        if not remaining:
            self._progress(len(self.old))
            self._end("Successful")
            return
        backend = _backend(self.account, self.region)
        backend.terminate_instance(remaining[0], should_decrement=False)
        self._progress(len(self.old) - len(self._remaining()))
        self._later(self._step)

    def _remaining(self) -> list[str]:
        live = {s.instance.id for s in self.group.instance_states}
        return [i for i in self.old if i in live]

    def _fail(self) -> None:
        assert self.rule is not None
        if self.rule.status == "RollbackSuccessful":
            self.record["Status"] = "RollbackInProgress"
            self._later(lambda: self._end("RollbackSuccessful", self.rule.reason))  # type: ignore[union-attr]
            return
        self._end("Failed", self.rule.reason)

    def cancel(self) -> None:
        if self.record["Status"] in ("Pending", "InProgress"):
            self.record["Status"] = "Cancelling"


def _preferences(given: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"MinHealthyPercentage": 90, "SkipMatching": False}
    for key in (
        "MinHealthyPercentage",
        "MaxHealthyPercentage",
        "InstanceWarmup",
        "CheckpointDelay",
        "BakeTime",
    ):
        if key in given:
            out[key] = int(given[key])
    if "CheckpointPercentages" in given:
        out["CheckpointPercentages"] = [int(p) for p in given["CheckpointPercentages"]]
    if "SkipMatching" in given:
        out["SkipMatching"] = str(given["SkipMatching"]).lower() == "true"
    return out


_active: dict[str, _Refresh] = {}


# --- CloudFormation: the update policy ------------------------------------------------


def _template(stack: Any) -> dict[str, Any]:
    found = getattr(stack, "template_dict", None)
    if isinstance(found, dict):
        return found
    try:
        return dict(json.loads(stack.template))
    except (TypeError, ValueError):
        return {}


def _policy_groups(stack: Any) -> dict[str, dict[str, Any]]:
    """Logical id → the ``AutoScalingInstanceRefresh`` policy of each group that has one."""
    out: dict[str, dict[str, Any]] = {}
    for logical, res in (_template(stack).get("Resources") or {}).items():
        if not isinstance(res, dict) or res.get("Type") != "AWS::AutoScaling::AutoScalingGroup":
            continue
        policy = (res.get("UpdatePolicy") or {}).get(_POLICY)
        if isinstance(policy, dict):
            out[str(logical)] = policy
    return out


def _group_of(stack: Any, logical: str) -> Any:
    for res in stack.stack_resources:
        if getattr(res, "logical_resource_id", None) == logical:
            return res
    return None


def _launch_state(group: Any) -> tuple[str | None, str | None]:
    template = getattr(group, "ec2_launch_template", None)
    if template is None:
        return None, None
    version = template.get_version(group.launch_template_version)
    return template.id, str(getattr(version, "number", group.launch_template_version))


def _event(stack: Any, logical: str, kind: str, status: str, reason: str | None) -> None:
    physical = stack.stack_id
    if logical != stack.name:
        res = _group_of(stack, logical)
        physical = getattr(res, "physical_resource_id", "") if res is not None else ""
    add_resource_event(stack, logical, physical, kind, status, reason)


def _hold_stack(stack: Any, backend: Any, snapshot: dict[str, Any], started: list[Any]) -> None:
    """Keep the stack ``UPDATE_IN_PROGRESS`` until every started refresh has ended."""
    stack_type, group_type = "AWS::CloudFormation::Stack", "AWS::AutoScaling::AutoScalingGroup"
    # The update's final stack events come back once the refreshes end.
    while stack.events and stack.events[-1].logical_resource_id == stack.name:
        if str(stack.events[-1].resource_status).startswith("UPDATE_IN_PROGRESS"):
            break
        stack.events.pop()
    stack.status = "UPDATE_IN_PROGRESS"
    pending = {id(r) for r, _ in started}

    def ended(refresh: _Refresh, logical: str, record: dict[str, Any]) -> None:
        pending.discard(id(refresh))
        _active.pop(record["InstanceRefreshId"], None)
        if record["Status"] != "Successful":
            snapshot["failed"] = (logical, record)
        if pending:
            return
        failed = snapshot.get("failed")
        if failed is None:
            _event(stack, stack.name, stack_type, "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS", None)
            _event(stack, stack.name, stack_type, "UPDATE_COMPLETE", None)
            stack.status = "UPDATE_COMPLETE"
            return
        logical_failed, rec = failed
        reason = (
            f"Instance refresh {rec['InstanceRefreshId']} ended {rec['Status']}: "
            f"{rec.get('StatusReason') or 'no reason given'}"
        )
        _event(stack, logical_failed, group_type, "UPDATE_FAILED", reason)
        _event(
            stack,
            stack.name,
            stack_type,
            "UPDATE_ROLLBACK_IN_PROGRESS",
            f"The following resource(s) failed to update: [{logical_failed}].",
        )
        _local.rolling_back = True
        try:
            backend.update_stack(
                stack.name,
                snapshot["template"],
                None,
                [{"ParameterKey": k, "ParameterValue": v} for k, v in snapshot["params"].items()],
                None,
            )
        finally:
            _local.rolling_back = False
        _event(stack, logical_failed, group_type, "UPDATE_COMPLETE", None)
        _event(stack, stack.name, stack_type, "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS", None)
        _event(stack, stack.name, stack_type, "UPDATE_ROLLBACK_COMPLETE", None)
        stack.status = "UPDATE_ROLLBACK_COMPLETE"

    for refresh, logical in started:
        refresh.on_end = functools.partial(ended, refresh, logical)
        refresh.start()


def _wrap_update_stack(original: Any) -> Any:
    @functools.wraps(original)
    def update_stack(self: Any, name: str, *args: Any, **kwargs: Any) -> Any:
        if getattr(_local, "rolling_back", False):
            return original(self, name, *args, **kwargs)
        stack = self.get_stack(name)
        snapshot = {"template": stack.template, "params": dict(stack.parameters or {})}
        before: dict[str, tuple[str | None, str | None]] = {}
        for logical in _policy_groups(stack):
            res = _group_of(stack, logical)
            if res is not None:
                before[logical] = _launch_state(res)
        result = original(self, name, *args, **kwargs)
        if str(stack.status) != "UPDATE_COMPLETE":
            return result  # a forced failure or nothing applied
        started: list[Any] = []
        for logical, policy in _policy_groups(stack).items():
            group = _group_of(stack, logical)
            if group is None or logical not in before or before[logical] == _launch_state(group):
                continue
            rule = _take_rule(group.name, stack.name)
            refresh = _Refresh(
                stack.account_id,
                stack.region_name,
                group,
                dict(policy.get("Preferences") or {}),
                rule,
            )
            _active[refresh.record["InstanceRefreshId"]] = refresh
            started.append((refresh, logical))
        if started:
            _hold_stack(stack, self, snapshot, started)
        return result

    return update_stack


# --- Auto Scaling API -------------------------------------------------------------------


def _start_instance_refresh(self: Any) -> Any:
    ActionResult = moto_module("moto.core.responses").ActionResult
    name = str(self._get_param("AutoScalingGroupName"))
    group = self.autoscaling_backend.autoscaling_groups.get(name)
    if group is None:
        raise _validation(f"AutoScalingGroup name not found - {name}")
    live = [
        r for r in refreshes(self.current_account, self.region, name) if r["Status"] not in _ENDED
    ]
    if live:
        raise _error(
            "InstanceRefreshInProgress",
            f"An Instance Refresh is already in progress and blocks the execution of this "
            f"Instance Refresh ({live[0]['InstanceRefreshId']}).",
        )
    refresh = _Refresh(
        self.current_account,
        self.region,
        group,
        dict(self._get_param("Preferences") or {}),
        _take_rule(name),
    )
    _active[refresh.record["InstanceRefreshId"]] = refresh
    refresh.on_end = lambda record: _active.pop(record["InstanceRefreshId"], None)
    refresh.start()
    return ActionResult({"InstanceRefreshId": refresh.record["InstanceRefreshId"]})


def _describe_instance_refreshes(self: Any) -> Any:
    ActionResult = moto_module("moto.core.responses").ActionResult
    name = str(self._get_param("AutoScalingGroupName"))
    wanted = set(self._get_param("InstanceRefreshIds") or [])
    found = [
        dict(r)
        for r in refreshes(self.current_account, self.region, name)
        if not wanted or r["InstanceRefreshId"] in wanted
    ]
    size = int(self._get_param("MaxRecords") or 50)
    return ActionResult(page(found, "InstanceRefreshes", self._get_param("NextToken"), size))


def _cancel_instance_refresh(self: Any) -> Any:
    ActionResult = moto_module("moto.core.responses").ActionResult
    name = str(self._get_param("AutoScalingGroupName"))
    for record in refreshes(self.current_account, self.region, name):
        if record["Status"] in ("Pending", "InProgress"):
            _active[record["InstanceRefreshId"]].cancel()
            return ActionResult({"InstanceRefreshId": record["InstanceRefreshId"]})
    raise _error(
        "ActiveInstanceRefreshNotFound",
        "No in progress or pending Instance Refresh found for Auto Scaling group " + name,
    )


def _error(code: str, message: str) -> Exception:
    base = moto_module("moto.autoscaling.exceptions").AutoscalingClientError
    fault: Exception = type("InstanceRefreshFault", (base,), {"code": code})(message)
    return fault


def _validation(message: str) -> Exception:
    return _error("ValidationError", message)


def _control(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("clear"):
        clear()
    for item in request.get("fail", []) or []:
        fail_next_refresh(
            str(item["group"]),
            str(item.get("reason", "forced failure")),
            str(item.get("status", "Failed")),
        )
    return {"fail": [asdict(r) for r in _store()["fail"]]}


def install() -> None:
    """Serve the refresh API; wrap UpdateStack (after the other CloudFormation patches)."""
    global _installed
    with _lock:
        if _installed:
            return
        responses = moto_module("moto.autoscaling.responses").AutoScalingResponse
        responses.start_instance_refresh = _start_instance_refresh
        responses.describe_instance_refreshes = _describe_instance_refreshes
        responses.cancel_instance_refresh = _cancel_instance_refresh
        backend = moto_module("moto.cloudformation.models").CloudFormationBackend
        backend.update_stack = _wrap_update_stack(backend.update_stack)
        _installed = True
    register_control("instance-refresh", _control)
