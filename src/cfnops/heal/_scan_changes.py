"""What changed between two fleet drift scans (pure: plain data in, frozen dataclasses out).

A scan's *state* maps each stack (``account/region/stack``; StackSet instances as
``stackset:<set>/account/region``) to its status and drifted resources. Comparing it
with the previous scan's state gives the stacks whose drift **appeared** (drifted now,
not before — on the first scan, every drifted stack), **cleared** (drifted before, in
sync now, or gone from the fleet) and **changed** (drifted both times, other
resources). A stack that could not be checked this time (an error, no supported
resource) keeps its previous state, so its drift neither appears nor clears because
of a failed call; it is listed as not checked. A StackSet instance whose drift is not
known (the API's ``NOT_CHECKED``) keeps its previous state without being listed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cfnops.heal._model import StackDriftReport
from cfnops.heal._scan import ScanResult

KNOWN = ("DRIFTED", "IN_SYNC")

__all__ = ["DriftChanges", "StackChange", "compare_states", "scan_state"]


def scan_state(result: ScanResult) -> dict[str, dict[str, Any]]:
    """``key → {"status", "drifted"}`` for every root stack and StackSet instance."""
    out: dict[str, dict[str, Any]] = {}
    for r in result.rows:
        drifted = _drifted(r.report, "") if r.report else []
        out[f"{r.account}/{r.region}/{r.stack}"] = {"status": r.status, "drifted": drifted}
    for s in result.stack_sets:
        key = f"stackset:{s.stack_set}/{s.account}/{s.region}"
        out[key] = {"status": s.drift, "drifted": []}
    return out


def _drifted(report: StackDriftReport, prefix: str) -> list[str]:
    """Drifted logical ids; a nested stack's as ``<nested stack name>/<logical id>``."""
    out = sorted(prefix + d.logical_id for d in report.drifted())
    for n in report.nested:
        out += _drifted(n, f"{prefix}{n.stack_name}/")
    return out


@dataclass(frozen=True)
class StackChange:
    """One stack in a change list; ``resources`` are the drifted ones (now, or before)."""

    key: str
    resources: tuple[str, ...] = ()
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"stack": self.key, "resources": list(self.resources), "note": self.note}


@dataclass(frozen=True)
class DriftChanges:
    appeared: tuple[StackChange, ...]
    cleared: tuple[StackChange, ...]
    changed: tuple[StackChange, ...]
    not_checked: tuple[StackChange, ...]
    state: Mapping[str, Mapping[str, Any]]  # this scan's, with carried states merged
    first: bool

    @property
    def any(self) -> bool:
        return bool(self.appeared or self.cleared or self.changed)

    @property
    def drifted(self) -> int:
        return sum(1 for s in self.state.values() if s["status"] == "DRIFTED")

    def to_json(self) -> dict[str, Any]:
        return {
            "appeared": [c.to_json() for c in self.appeared],
            "cleared": [c.to_json() for c in self.cleared],
            "changed": [c.to_json() for c in self.changed],
            "notChecked": [c.to_json() for c in self.not_checked],
            "drifted": self.drifted,
            "firstScan": self.first,
            "state": {k: dict(v) for k, v in self.state.items()},
        }


def compare_states(
    previous: Mapping[str, Mapping[str, Any]] | None, current: Mapping[str, Mapping[str, Any]]
) -> DriftChanges:
    """The changes from ``previous`` (None: the first scan) to ``current``."""
    before = previous or {}
    appeared: list[StackChange] = []
    cleared: list[StackChange] = []
    changed: list[StackChange] = []
    unchecked: list[StackChange] = []
    state: dict[str, dict[str, Any]] = {}
    for key in sorted(current):
        now = current[key]
        old = before.get(key)
        was = old is not None and old["status"] == "DRIFTED"
        if now["status"] not in KNOWN:
            # A StackSet instance's NOT_CHECKED (no stack set drift detection ran, its
            # account not scanned) is normal: kept quietly, not listed as not checked.
            if not key.startswith("stackset:"):
                unchecked.append(StackChange(key, note=str(now["status"])))
            if old is not None:  # keep the last known state, so the next scan compares to it
                state[key] = {**dict(old), "carried": True}
            continue
        state[key] = {"status": now["status"], "drifted": list(now["drifted"])}
        resources = tuple(now["drifted"])
        if now["status"] == "DRIFTED" and not was:
            appeared.append(StackChange(key, resources))
        elif now["status"] != "DRIFTED" and was:
            assert old is not None
            cleared.append(StackChange(key, tuple(old["drifted"]), "back in sync"))
        elif was and old is not None and sorted(old["drifted"]) != sorted(resources):
            changed.append(StackChange(key, resources, f"was {', '.join(old['drifted']) or '-'}"))
    for key in sorted(set(before) - set(current)):
        if before[key]["status"] == "DRIFTED":
            cleared.append(StackChange(key, tuple(before[key]["drifted"]), "no longer found"))
    return DriftChanges(
        tuple(appeared), tuple(cleared), tuple(changed), tuple(unchecked), state, previous is None
    )


def _line(kind: str, change: StackChange) -> str:
    text = f"{kind:<9} {change.key}"
    if change.resources:
        text += f"  {', '.join(change.resources)}"
    if change.note:
        text += f"  ({change.note})"
    return text


def changes_subject(schedule: str, changes: DriftChanges) -> str:
    parts = []
    if changes.appeared:
        parts.append(f"drift appeared on {len(changes.appeared)} stack(s)")
    if changes.cleared:
        parts.append(f"cleared on {len(changes.cleared)}")
    if changes.changed:
        parts.append(f"changed on {len(changes.changed)}")
    return f"cfnops drift scan {schedule}: {', '.join(parts) or 'no change'}"


def changes_message(schedule: str, run_id: str, changes: DriftChanges) -> str:
    """The notification text: one line per stack, in a code block (Slack keeps it aligned)."""
    since = "first scan" if changes.first else "since the previous scan"
    head = (
        f"Drift scan {schedule} ({since}): {len(changes.appeared)} appeared, "
        f"{len(changes.cleared)} cleared, {len(changes.changed)} changed; "
        f"{changes.drifted} stack(s) drifted now."
    )
    lines = [_line("APPEARED", c) for c in changes.appeared]
    lines += [_line("CLEARED", c) for c in changes.cleared]
    lines += [_line("CHANGED", c) for c in changes.changed]
    tail = ""
    if changes.not_checked:
        tail = (
            f"\nNot checked this time ({len(changes.not_checked)}, previous state kept): "
            + ", ".join(f"{c.key} ({c.note})" for c in changes.not_checked[:20])
        )
        if len(changes.not_checked) > 20:
            tail += ", …"
    return f"{head}\n```\n" + "\n".join(lines) + f"\n```{tail}\nRun: {run_id}"
