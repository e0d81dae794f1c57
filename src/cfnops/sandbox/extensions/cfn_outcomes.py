"""Forced CloudFormation outcomes, for testing what heal does when AWS says no.

Some outcomes cannot be provoked through the API alone: a drift detection that
ends ``DETECTION_FAILED`` or with stack drift status ``UNKNOWN``, a change set
that ends ``FAILED``, an execution that ends ``EXECUTE_FAILED`` or ``OBSOLETE``.
This extension forces them per stack name::

    from cfnops.sandbox.extensions import cfn_outcomes

    cfn_outcomes.force("web", detection="DETECTION_FAILED", reason="access denied")
    cfn_outcomes.force("api", execution="EXECUTE_FAILED")
    cfn_outcomes.clear()

Control route ``POST /_cfnops/cfn-outcomes``: ``{"force": [{"stack": "web",
"detection": "UNKNOWN"}], "clear": true}`` answers the rules.
"""

from __future__ import annotations

from typing import Any

from cfnops.sandbox._control import register_control
from cfnops.sandbox._state import current_state
from cfnops.sandbox.extensions._moto import install_once

_KEY = "cfn_outcomes"
_DETECTION = ("DETECTION_FAILED", "UNKNOWN")
_CHANGE_SET = ("FAILED", "NO_CHANGES")
_EXECUTION = ("EXECUTE_FAILED", "OBSOLETE")


def _rules() -> dict[str, dict[str, Any]]:
    state = current_state()
    with state.lock:
        found: dict[str, dict[str, Any]] = state.extras.setdefault(_KEY, {})
        return found


def force(
    stack: str,
    *,
    detection: str | None = None,
    change_set: str | None = None,
    execution: str | None = None,
    reason: str = "forced by the sandbox (cfn_outcomes)",
) -> dict[str, Any]:
    """Force outcomes for the stack named ``stack`` (later operations only)."""
    for value, allowed in (
        (detection, _DETECTION),
        (change_set, _CHANGE_SET),
        (execution, _EXECUTION),
    ):
        if value is not None and value not in allowed:
            raise ValueError(f"{value!r} is not one of {allowed}")
    rule = {
        "detection": detection,
        "change_set": change_set,
        "execution": execution,
        "reason": reason,
    }
    _rules()[stack] = rule
    return rule


def clear() -> None:
    _rules().clear()


def _rule(stack: Any, kind: str) -> tuple[str | None, str]:
    rule = _rules().get(str(stack.name)) or {}
    return rule.get(kind), str(rule.get("reason", ""))


def _wrap_detection(original: Any) -> Any:
    def start_detection(stack: Any, logical_ids: list[str] | None) -> str:
        detection_id = str(original(stack, logical_ids))
        forced, reason = _rule(stack, "detection")
        if forced is None:
            return detection_id
        from cfnops.sandbox.extensions.cfn_drift import _detections

        def override() -> None:
            found = _detections()[detection_id]
            if forced == "DETECTION_FAILED":
                found.update(DetectionStatus="DETECTION_FAILED", DetectionStatusReason=reason)
            else:
                found.update(StackDriftStatus="UNKNOWN", DetectionStatusReason=reason)

        # Runs after the extension's own completion timer (same delay, later sequence).
        state = current_state()
        state.schedule(state.delay("drift_detection"), override)
        return detection_id

    return start_detection


def _wrap_plan(original: Any) -> Any:
    def plan(rec: Any, stack: Any) -> None:
        original(rec, stack)
        forced, reason = _rule(stack, "change_set")
        if forced is not None:
            rec.status, rec.execution_status = "FAILED", "UNAVAILABLE"
            rec.changes = []
            if forced == "NO_CHANGES":
                from cfnops.sandbox.extensions.cfn_changesets import NO_CHANGES

                reason = NO_CHANGES
            rec.status_reason = reason

    return plan


def _wrap_execute(original: Any) -> Any:
    def execute(rec: Any, stack: Any, token: str | None, records: dict[str, Any]) -> None:
        forced, _ = _rule(stack, "execution")
        if forced == "OBSOLETE" and rec.execution_status == "AVAILABLE":
            rec.execution_status = "OBSOLETE"  # as if the stack changed under it
            return
        original(rec, stack, token, records)

    return execute


def _wrap_apply(original: Any) -> Any:
    def apply(rec: Any, stack: Any, token: str | None) -> None:
        forced, reason = _rule(stack, "execution")
        if forced == "EXECUTE_FAILED":
            raise RuntimeError(reason)
        original(rec, stack, token)

    return apply


def _control(request: dict[str, Any]) -> dict[str, Any]:
    if request.get("clear"):
        clear()
    for item in request.get("force", []):
        item = dict(item)
        stack = str(item.pop("stack"))
        force(stack, **item)
    return {"rules": dict(_rules())}


@install_once
def install() -> None:
    """Wrap the CloudFormation extensions' hooks once (idempotent)."""
    from cfnops.sandbox.extensions import _cfn_execute, cfn_changesets, cfn_drift

    cfn_drift._start_detection = _wrap_detection(cfn_drift._start_detection)  # type: ignore[assignment]
    cfn_changesets._plan = _wrap_plan(cfn_changesets._plan)  # type: ignore[assignment]
    _cfn_execute.execute = _wrap_execute(_cfn_execute.execute)  # type: ignore[assignment]
    _cfn_execute._apply = _wrap_apply(_cfn_execute._apply)  # type: ignore[assignment]
    register_control("cfn-outcomes", _control)
