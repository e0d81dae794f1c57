"""Verify a REVERT_DRIFT change set against the drift detection of the same run.

Every change must be *explained* by detected drift: a ``Modify`` of a resource
detection found ``MODIFIED`` whose drifted property paths cover each target
path of the change, or an ``Add`` of a resource detection found ``DELETED``.
Anything else is a phantom (AWS's trackers show drift-aware change sets
proposing such changes: cloudformation-coverage-roadmap #2559, #2505, #2546)
and holds the run with the change and the reason:

- a change on a resource detection found in sync (or did not check);
- a target path that did not drift;
- a value known only after apply (``{{changeSet:KNOWN_AFTER_APPLY}}``);
- a replacement where the registry schema says the property updates in place;
- ``ResourceDriftStatus`` ``UNSUPPORTED`` or ``UNKNOWN``;
- ``SyncWithActual`` mixed with real changes;
- a write to a path whose drift CloudFormation ignored
  (``ResourceDriftIgnoredAttributes``);
- a value the change set read (``Drift.ActualValue``) that differs from the
  value detection saw (the resource changed again since).

Field meanings: API reference ``ResourceChange``, ``ResourceTargetDefinition``,
``LiveResourceDrift``, ``ResourceDriftIgnoredAttribute``
(https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_ResourceTargetDefinition.html)
and the User Guide's "Using drift-aware change sets"
(https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/drift-aware-change-sets.html).
Pure: plain data in, frozen dataclasses out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cfnops.heal._changeview import ChangeView, DetailView

_UNKNOWN_VALUE = re.compile(r"\{\{changeSet[A-Za-z]*:?[A-Z_]*\}\}")
_UNVERIFIABLE = ("UNSUPPORTED", "UNKNOWN")


@dataclass(frozen=True)
class DriftedPath:
    """One drifted property as detection reported it (path relative to ``Properties``)."""

    path: str
    actual: str | None = None


@dataclass(frozen=True)
class DetectedResource:
    """What drift detection of this run said about one resource."""

    logical_id: str
    status: str  # IN_SYNC | MODIFIED | DELETED | NOT_CHECKED
    paths: tuple[DriftedPath, ...] = ()


@dataclass(frozen=True)
class Match:
    """How one change (or one target path of it) was matched to detected drift."""

    logical_id: str
    path: str | None
    explained: bool
    drift_path: str | None = None
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "logicalId": self.logical_id,
            "path": self.path,
            "explained": self.explained,
            "driftPath": self.drift_path,
            "reason": self.reason,
        }


def detected_from_json(
    drifted: list[dict[str, Any]], statuses: Mapping[str, str]
) -> dict[str, DetectedResource]:
    """Index the run's detection: drifted resources (JSON of ``ResourceDrift``) and statuses."""
    out = {lid: DetectedResource(lid, status) for lid, status in statuses.items()}
    for item in drifted:
        # Ignored and accepted differences drifted too: the policy, not the
        # verification, decides about them.
        paths = tuple(
            DriftedPath(str(p["path"]), p.get("actual")) for p in item.get("properties", [])
        )
        lid = str(item["logicalId"])
        out[lid] = DetectedResource(lid, str(item["status"]), paths)
    return out


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix.rstrip("/") + "/")


def _relative(target_path: str) -> str:
    """``/Properties/Tags/0`` → ``/Tags/0`` (detection paths are relative to Properties)."""
    return target_path[len("/Properties") :] if _under(target_path, "/Properties") else target_path


def _same_value(a: str | None, b: str | None) -> bool:
    def parse(v: str | None) -> Any:
        try:
            return json.loads(v) if v is not None else None
        except ValueError:
            return v

    return a == b or parse(a) == parse(b)


def _covering(path: str, detected: DetectedResource) -> DriftedPath | None:
    """The drifted path that covers ``path``: the same, a parent, or (whole property) a child."""
    for drifted in detected.paths:
        if _under(path, drifted.path) or _under(drifted.path, path):
            return drifted
    return None


def _known_after_apply(detail: DetailView) -> bool:
    return any(
        v is not None and bool(_UNKNOWN_VALUE.search(v)) for v in (detail.before, detail.after)
    )


def _check_detail(
    change: ChangeView,
    detail: DetailView,
    detected: DetectedResource,
    schema: Mapping[str, str],
) -> Match:
    lid = change.logical_id
    path = _relative(detail.path)
    if _known_after_apply(detail):
        return Match(lid, detail.path, False, None, "value known only after apply")
    for ignored_path, why in change.ignored_attributes:
        if _under(path, _relative(ignored_path)):
            reason = f"CloudFormation ignored drift at {ignored_path} ({why}) yet writes it"
            return Match(lid, detail.path, False, None, reason)
    if detail.requires_recreation in ("Always", "Conditionally"):
        said = schema.get(f"{change.resource_type}/{detail.name}")
        if said == "Never":
            reason = (
                f"RequiresRecreation={detail.requires_recreation} but the schema says "
                f"{detail.name} updates in place"
            )
            return Match(lid, detail.path, False, None, reason)
    covering = _covering(path, detected)
    if covering is None:
        drifted = ", ".join(d.path for d in detected.paths) or "none"
        reason = f"path did not drift (drifted: {drifted})"
        return Match(lid, detail.path, False, None, reason)
    seen, now = covering.actual, detail.drift_actual
    stale = seen is not None and now is not None and not _same_value(now, seen)
    if covering.path == path and stale:
        reason = f"actual value changed since detection ({seen!r} → {now!r})"
        return Match(lid, detail.path, False, covering.path, reason)
    return Match(lid, detail.path, True, covering.path, "drifted")


def _is_sync(change: ChangeView) -> bool:
    return change.action == "SyncWithActual" or (
        bool(change.details) and all(d.change_type == "SyncWithActual" for d in change.details)
    )


def verify(
    changes: tuple[ChangeView, ...],
    detected: Mapping[str, DetectedResource],
    schema: Mapping[str, str] | None = None,
) -> tuple[Match, ...]:
    """Match every change (every target path of a Modify) to this run's detected drift.

    ``schema`` maps ``"Type/Property"`` to the registry schema's ``RequiresRecreation``
    (``Never`` / ``Always`` / ``Conditionally``); a missing entry is not judged.
    """
    schema = schema or {}
    out: list[Match] = []
    real = [c for c in changes if not _is_sync(c)]
    for c in changes:
        lid = c.logical_id
        found = detected.get(lid)
        status = found.status if found else "not in the detection"
        if c.drift_status in _UNVERIFIABLE:
            why = f"ResourceDriftStatus {c.drift_status}: its actual state cannot be compared"
            out.append(Match(lid, None, False, None, why))
            continue
        if _is_sync(c):
            if real:
                out.append(Match(lid, None, False, None, "SyncWithActual mixed with real changes"))
            else:
                out.append(Match(lid, None, True, None, "SyncWithActual only (metadata)"))
            continue
        if c.action == "Add":
            ok = found is not None and found.status == "DELETED"
            why = "deleted out of band" if ok else f"added but detection found it {status}"
            out.append(Match(lid, None, ok, None, why))
            continue
        if c.action != "Modify":
            out.append(Match(lid, None, False, None, f"{c.action} is not a drift revert"))
            continue
        if found is None or found.status != "MODIFIED":
            out.append(Match(lid, None, False, None, f"changed but detection found it {status}"))
            continue
        if not c.details:
            out.append(Match(lid, None, False, None, "a Modify without target paths"))
            continue
        out.extend(_check_detail(c, d, found, schema) for d in c.details)
    return tuple(out)


def unexplained_reasons(
    changes: tuple[ChangeView, ...], matches: tuple[Match, ...]
) -> tuple[str, ...]:
    """One gate reason per unexplained match, naming the resource, type and path."""
    types = {c.logical_id: c.resource_type for c in changes}
    reasons = []
    for m in matches:
        if m.explained:
            continue
        at = f" at {m.path}" if m.path else ""
        reasons.append(
            f"{m.logical_id} ({types.get(m.logical_id, '?')}) unexplained change{at}: {m.reason}"
        )
    return tuple(reasons)
