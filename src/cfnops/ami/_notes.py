"""The notification of a stack rotation that did not leave its stack in sync.

A stack rotation's update ran, but drift detection afterwards found the stack
``DRIFTED`` (each resource and property still drifted) or could not tell
(``DRIFT_UNKNOWN``): as heal's ``NOT_HEALED``, the operator's channels are told
(:mod:`cfnops.notify`), since the run itself says the image was updated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cfnops.notify import DriftRow, Notification

__all__ = ["NOT_IN_SYNC", "drift_note"]

NOT_IN_SYNC = ("DRIFTED", "DRIFT_UNKNOWN")  # outcomes of an update that left it unverified


def drift_note(result: Mapping[str, Any], run_id: str) -> Notification | None:
    """The notification for a rotation ``result`` ending DRIFTED / DRIFT_UNKNOWN, keyed
    ``<run id>:<outcome>`` (one per run and outcome); None for any other outcome."""
    outcome = str(result.get("outcome"))
    if outcome not in NOT_IN_SYNC:
        return None
    stack = str(result.get("StackName"))
    updated = (
        f"AMI rotation of stack {stack} set {result.get('ParameterKey')} to "
        f"{result.get('ImageId')} (previous {result.get('PreviousImageId') or '-'})"
    )
    still = list(result.get("StillDrifted") or [])
    detection = result.get("DriftDetection") or {}
    if outcome == "DRIFTED":
        text = f"{updated}, but drift detection afterwards finds the stack still drifted."
    else:
        text = (
            f"{updated}, but drift detection afterwards did not complete "
            f"({detection.get('Status')}: {detection.get('Reason')}): the stack is not known "
            "to be in sync."
        )
    details: list[tuple[str, str]] = []
    for resource in still:
        props = resource.get("Properties") or []
        if resource.get("Status") == "DELETED" or not props:
            details.append((str(resource["LogicalResourceId"]), str(resource.get("Status"))))
        for prop in props:
            details.append(
                (
                    f"{resource['LogicalResourceId']} {prop['Path']}",
                    f"expected {prop.get('Expected')!r}, actual {prop.get('Actual')!r}",
                )
            )
    rows = tuple(
        DriftRow(
            str(r["LogicalResourceId"]),
            str(r.get("ResourceType")),
            str(r.get("Status")),
            tuple(str(p["Path"]) for p in r.get("Properties") or []),
        )
        for r in still
    )
    return Notification(
        subject=f"cfnops AMI rotation: stack {stack} {outcome}",
        message="\n".join([text, *(f"{k}: {v}" for k, v in details)]),
        outcome=outcome,
        severity="error" if outcome == "DRIFTED" else "warning",
        stack=stack,
        run_id=run_id,
        drifted=rows,
        details=tuple(details),
        idempotency_key=f"{run_id}:{outcome.lower()}",
    )
