"""Live drift beside the template change (``cfnops diff --stack NAME --drift``).

Pure: the caller (the CLI edge) detects drift — with :func:`cfnops.heal.drift_report`
or any other source — and hands the drifted properties over as plain values. A
drifted property that the new template also changes is marked: the deploy will
overwrite what someone changed by hand (or fail on it), and the template diff
alone does not show it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from cfnops.diff._model import TemplateDiff


@dataclass(frozen=True)
class DriftedProperty:
    """One drifted property of a deployed resource (``path`` as in DescribeStackResourceDrifts,
    ``/Prop/0/Sub``); a resource deleted out of band has ``status="DELETED"`` and path ``""``."""

    logical_id: str
    resource_type: str
    status: str  # MODIFIED | DELETED
    path: str = ""
    expected: str | None = None
    actual: str | None = None
    difference_type: str | None = None  # NOT_EQUAL | ADD | REMOVE


@dataclass(frozen=True)
class DriftEntry:
    """A drifted property in the report, with whether the new template changes it too."""

    drift: DriftedProperty
    also_changed: bool
    impact: str | None = None  # the template change's impact on that resource, if any


def with_drift(diff: TemplateDiff, drifted: Iterable[DriftedProperty]) -> TemplateDiff:
    """``diff`` with the stack's live drift attached (``TemplateDiff.drift``).

    A drifted property is *also changed* when the new template changes the same
    top-level property of that resource (or the resource itself is replaced,
    destroyed or its drift is a deletion and the template touches it).
    """
    entries: list[DriftEntry] = []
    for item in drifted:
        res = diff.resource(item.logical_id)
        top = item.path.strip("/").split("/", 1)[0] if item.path else ""
        changed = False
        if res is not None:
            changed = (
                res.impact.replaces
                or res.impact.value in ("WILL_DESTROY", "WILL_ORPHAN")
                or item.status == "DELETED"
                or any(p.name == top for p in res.properties)
            )
        entries.append(DriftEntry(item, changed, res.impact.value if res is not None else None))
    entries.sort(key=lambda e: (not e.also_changed, e.drift.logical_id, e.drift.path))
    return replace(diff, drift=tuple(entries))
