"""The notifications a heal run sends (pure): subject, wording, severity.

SNS receives ``subject`` and ``message`` verbatim; every message names the
stack id and, once there is one, the change set id.
"""

from __future__ import annotations

from typing import Any

from cfnops.heal._attribution import Attribution
from cfnops.notify import DriftRow, Notification, Severity

SUBJECT = "CloudFormation Stack Drift Detection and Healing Notification"


def drift_rows(drifted: list[dict[str, Any]]) -> tuple[DriftRow, ...]:
    """Rows for notifications from the ``drifted`` list a run records."""
    return tuple(
        DriftRow(
            d["logicalId"],
            d["resourceType"],
            d["status"],
            tuple(p["path"] for p in d.get("properties", []) if not p.get("ignored")),
        )
        for d in drifted
    )


def attribution_lines(drifted: list[dict[str, Any]]) -> list[str]:
    """ "<resource> changed by <who> at <when> via <service:Call>" per attributed resource."""
    return [
        Attribution.from_json(d["attribution"]).text()
        for d in drifted
        if d.get("attribution") and not d["attribution"].get("unknown")
    ]


def note(
    outcome: str,
    message: str,
    *,
    severity: Severity,
    stack: str,
    stack_id: str,
    run_id: str,
    change_set_id: str | None = None,
    url: str | None = None,
    drifted: list[dict[str, Any]] | None = None,
    details: tuple[tuple[str, str], ...] = (),
) -> Notification:
    """The run's ``outcome`` notification, keyed ``<run id>:<outcome>``: sent again
    after a crash, an SNS FIFO topic drops the copy (one notification per outcome
    and run)."""
    changes = attribution_lines(drifted or [])
    return Notification(
        subject=SUBJECT,
        message="\n".join([message, *changes]),
        outcome=outcome,
        severity=severity,
        stack=stack,
        stack_id=stack_id,
        change_set_id=change_set_id,
        console_url=url,
        run_id=run_id,
        drifted=drift_rows(drifted or []),
        details=details,
        idempotency_key=f"{run_id}:{outcome.lower()}",
    )


def detection_failed(stack_id: str, status: str, reason: str) -> str:
    if status == "UNKNOWN":
        return f"Drift status of stack {stack_id} is UNKNOWN: {reason}"
    return f"Drift detection failed for stack {stack_id}: {reason}"


def change_set_failed(stack_id: str, change_set_id: str, reason: str) -> str:
    return f"Change set {change_set_id} for stack {stack_id} FAILED: {reason}"


def change_set_only(stack_id: str, change_set_id: str, url: str) -> str:
    return (
        f"Change set created for stack {stack_id} (change set {change_set_id}); "
        f"please review and execute it manually if needed: {url}"
    )


def execute_failed(stack_id: str, change_set_id: str, reason: str) -> str:
    return f"Execution of change set {change_set_id} failed on stack {stack_id}: {reason}"


def obsolete(stack_id: str, change_set_id: str, url: str) -> str:
    return (
        f"Warning: change set {change_set_id} for stack {stack_id} is OBSOLETE; "
        f"check the stack and re-run healing if needed: {url}"
    )


def healed(stack_id: str, change_set_id: str) -> str:
    return f"Stack drift has been healed. Stack {stack_id}, change set {change_set_id}"


def still_line(item: dict[str, Any]) -> str:
    """``Param /Tags/team: not reverted: …`` for one entry of a NOT_HEALED run."""
    where = f"{item['logicalId']} {item['path']}" if item.get("path") else str(item["logicalId"])
    return f"{where}: {item['reason']}"


def not_healed(stack_id: str, change_set_id: str, still: list[dict[str, Any]]) -> str:
    lines = "; ".join(still_line(i) for i in still)
    return (
        f"Stack {stack_id} is NOT healed: change set {change_set_id} ran, but drift detection "
        f"afterwards still finds {len(still)} difference(s): {lines}"
    )


def still_details(still: list[dict[str, Any]]) -> tuple[tuple[str, str], ...]:
    """Notification detail rows: what is still drifted and why."""
    return tuple(
        (f"{i['logicalId']} {i.get('path') or ''}".strip(), str(i["reason"])) for i in still
    )


def held(stack_id: str, change_set_id: str, reasons: list[str], run_id: str, url: str) -> str:
    why = "; ".join(reasons)
    return (
        f"Change set {change_set_id} for stack {stack_id} is held for review: {why}. "
        f"Approve with 'cfnops approve {run_id}' or reject with 'cfnops reject {run_id}': {url}"
    )


def decided(verb: str, stack_id: str, change_set_id: str, by: str, reason: str) -> str:
    text = f"Change set {change_set_id} for stack {stack_id} was {verb} by {by}"
    return f"{text}: {reason}" if reason else text


def expired(stack_id: str, change_set_id: str, seconds: int) -> str:
    return (
        f"Change set {change_set_id} for stack {stack_id} was not approved within "
        f"{seconds} s; it was deleted and the run ended as expired"
    )


def not_revertable(stack_id: str, change_set_id: str, lines: list[str]) -> str:
    return (
        f"Stack {stack_id} has drift that CloudFormation cannot revert (change set "
        f"{change_set_id} contained no changes): " + "; ".join(lines)
    )
