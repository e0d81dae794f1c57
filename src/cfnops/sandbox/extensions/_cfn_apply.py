"""After-deployment work shared by stack create/update and change-set execution.

- per-resource stack events (moto records only the stack's own events);
- moto's creation gaps closed by the property writers;
- updates driven by ``Fn::GetAtt``/``Ref`` values propagated: moto re-applies only
  resources whose template text changed, so an Auto Scaling group pointing at
  ``!GetAtt LaunchTemplate.LatestVersionNumber`` kept the old version;
- the deployment's expected properties recorded for drift detection.
"""

from __future__ import annotations

import logging
from typing import Any

from cfnops.sandbox.extensions._cfn_deploy import Deployment, record_deployment
from cfnops.sandbox.extensions._cfn_writers import write_expected
from cfnops.sandbox.extensions._moto import moto_module

__all__ = ["add_resource_event", "after_create", "after_update"]

_log = logging.getLogger(__name__)


def add_resource_event(
    stack: Any,
    logical_id: str,
    physical_id: str | None,
    resource_type: str,
    status: str,
    reason: str | None = None,
    token: str | None = None,
) -> None:
    """Append a per-resource stack event (``DescribeStackEvents`` lists newest first)."""
    Event = moto_module("moto.cloudformation.models").Event

    event = Event(
        stack_id=stack.stack_id,
        stack_name=stack.name,
        logical_resource_id=logical_id,
        physical_resource_id=physical_id or "",
        resource_type=resource_type,
        resource_status=status,
        resource_status_reason=reason,
        resource_properties=None,
    )
    event.client_request_token = token
    stack.events.append(event)


def _converge(stack: Any, deployment: Deployment, only: set[str] | None = None) -> None:
    for res in deployment.resources.values():
        if only is not None and res.logical_id not in only:
            continue
        try:
            write_expected(stack, res)
        except Exception as exc:  # a gap we cannot close stays visible as drift
            _log.debug("cannot apply %s properties: %s", res.logical_id, exc)


def _settle(stack: Any, deployment: Deployment, rounds: int = 3) -> Deployment:
    """Re-resolve after writes: a written resource may change attributes others use.

    (Reverting a launch template creates a new version, so an Auto Scaling group
    using ``!GetAtt Lt.LatestVersionNumber`` must follow, as CloudFormation
    re-evaluates dependents of an updated resource.)
    """
    for _ in range(rounds):
        again = record_deployment(stack)
        moved = [
            res
            for lid, res in again.resources.items()
            if lid in deployment.resources
            and deployment.resources[lid].properties != res.properties
        ]
        deployment = again
        if not moved:
            break
        for res in moved:
            try:
                write_expected(stack, res)
            except Exception as exc:
                _log.debug("cannot propagate to %s: %s", res.logical_id, exc)
    return deployment


def _insert_resource_events(
    stack: Any, deployment: Deployment, verb: str, ids: list[str], token: str | None = None
) -> None:
    # Put them before the stack's final *_COMPLETE event, as CloudFormation orders them.
    last = stack.events[-1] if stack.events else None
    final = (
        stack.events.pop()
        if last is not None
        and last.logical_resource_id == stack.name
        and str(last.resource_status).endswith("_COMPLETE")
        else None
    )
    for logical_id in ids:
        res = deployment.resources.get(logical_id)
        if res is None:
            continue
        add_resource_event(
            stack, logical_id, "", res.resource_type, f"{verb}_IN_PROGRESS", token=token
        )
        add_resource_event(
            stack, logical_id, res.physical_id, res.resource_type, f"{verb}_COMPLETE", token=token
        )
    if final is not None:
        stack.events.append(final)


def after_create(stack: Any) -> None:
    """Close moto's gaps on a new stack, record its deployment, add resource events."""
    deployment = record_deployment(stack)
    _converge(stack, deployment)
    deployment = _settle(stack, deployment)
    _insert_resource_events(stack, deployment, "CREATE", list(deployment.resources))


def after_update(
    stack: Any,
    before: Deployment | None,
    *,
    revert_all: bool = False,
    also_changed: tuple[str, ...] = (),
    token: str | None = None,
) -> list[str]:
    """Propagate value-driven updates and record the new deployment; return changed ids.

    Only changed resources get the template's values written (an ordinary update
    leaves drift elsewhere alone); ``revert_all`` writes every resource (REVERT_DRIFT).
    """
    deployment = record_deployment(stack)
    changed: list[str] = []
    for logical_id, res in deployment.resources.items():
        old = before.resources.get(logical_id) if before else None
        if old is None:
            changed.append(logical_id)
            continue
        if old.template != res.template or old.properties != res.properties:
            changed.append(logical_id)
            if old.template == res.template:
                # Same template text, new resolved values: moto skipped this one.
                try:
                    write_expected(stack, res)
                except Exception as exc:
                    _log.debug("cannot propagate to %s: %s", logical_id, exc)
    for logical_id in also_changed:
        if logical_id not in changed:
            changed.append(logical_id)
    _converge(stack, deployment, only=None if revert_all else set(changed))
    deployment = _settle(stack, deployment)
    _insert_resource_events(stack, deployment, "UPDATE", changed, token)
    return changed
