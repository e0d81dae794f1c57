"""After the change set ran: what is still drifted among the resources the heal reverted.

A heal ends ``HEALED`` only when a fresh drift detection finds every resource it
set out to revert ``IN_SYNC`` (ignored or accepted differences aside, as for the
first detection). Otherwise it ends ``NOT_HEALED`` with one entry per property
still drifted and why:

- ``changed again``: the property did not drift at the first detection, or its
  actual value differs from the one detection saw (changed since, by someone);
- ``not reverted``: the same difference as before the heal (the change set did not
  revert it: the property cannot be reverted, or the resource ignored the write);
- ``deleted``: the resource is gone.

Pure: the two detections' ``drifted`` JSON (see ``read_drift``) in, plain data out.
"""

from __future__ import annotations

from typing import Any

__all__ = ["still_drifted"]

_COUNTED = ("MODIFIED", "DELETED")


def _by_path(entry: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {str(p["path"]): p for p in entry.get("properties", [])}


def _counts(prop: dict[str, Any]) -> bool:
    return not prop.get("ignored") and not prop.get("accepted")


def _why(now: dict[str, Any], before: dict[str, Any] | None) -> str:
    if before is None:
        return "changed again: it was in sync when the heal started"
    if str(now.get("actual")) != str(before.get("actual")):
        return (
            f"changed again: actual {before.get('actual')!r} at detection, "
            f"{now.get('actual')!r} after the heal"
        )
    return "not reverted: the change set left it as it was"


def _entry(lid: str, rtype: str, path: str | None, reason: str, **values: Any) -> dict[str, Any]:
    return {"logicalId": lid, "resourceType": rtype, "path": path, "reason": reason, **values}


def still_drifted(
    healed: list[dict[str, Any]], after: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Each property (or deleted resource) of ``healed`` that ``after`` still finds drifted.

    ``healed``: the first detection's drifted resources; ``after``: the new one's.
    Only resources the heal set out to revert (effective status MODIFIED or
    DELETED at first) are judged: the heal did not promise anything else.
    """
    targets = {str(d["logicalId"]): d for d in healed if d.get("effectiveStatus") in _COUNTED}
    out: list[dict[str, Any]] = []
    for now in after:
        lid = str(now["logicalId"])
        first = targets.get(lid)
        if first is None or now.get("effectiveStatus") not in _COUNTED:
            continue
        rtype = str(now.get("resourceType", ""))
        if now.get("status") == "DELETED":
            out.append(_entry(lid, rtype, None, "deleted: the resource is gone after the heal"))
            continue
        before = _by_path(first)
        for prop in now.get("properties", []):
            if not _counts(prop):
                continue
            path = str(prop["path"])
            why = _why(prop, before.get(path))
            out.append(
                _entry(
                    lid, rtype, path, why, expected=prop.get("expected"), actual=prop.get("actual")
                )
            )
    return out
