"""What a heal run saw and holds, read from its recorded steps (for any front to show).

The step names and result shapes are heal's own (``_workflow.py``); fronts call these
instead of reading them, so that a renamed step changes one module.
"""

from __future__ import annotations

from typing import Any

from cfnops.durable import StepRecord
from cfnops.heal._runs import gate_decision


def polled_drift(steps: list[StepRecord]) -> list[dict[str, Any]]:
    """One row per drifted property (resource, path, expected, actual) from the run's poll."""
    for step in reversed(steps):
        if step.name.startswith("wait-drift-detection") and isinstance(step.result, dict):
            rows = []
            for res in step.result.get("drifted") or []:
                props = res.get("properties") or [{}]
                for prop in props:
                    rows.append(
                        {
                            "logicalId": res.get("logicalId"),
                            "resourceType": res.get("resourceType"),
                            "status": res.get("status"),
                            "path": prop.get("path", "-"),
                            "expected": prop.get("expected"),
                            "actual": prop.get("actual"),
                            "ignored": prop.get("ignored", False),
                        }
                    )
            return rows
    return []


def held_changes(steps: list[StepRecord]) -> list[dict[str, Any]]:
    """The held change set as a readable list: action, replacement, scope, paths, before → after."""
    gate = gate_decision(steps) or {}
    drift = polled_drift(steps)
    out = []
    for change in gate.get("changes") or []:
        paths = list(change.get("paths") or [])
        values = []
        for path in paths:
            short = path.removeprefix("/Properties")
            found = next(
                (
                    d
                    for d in drift
                    if d["logicalId"] == change.get("logicalId") and d["path"] == short
                ),
                None,
            )
            # REVERT_DRIFT puts the template's value back over the live one.
            if found:
                values.append({"path": path, "before": found["actual"], "after": found["expected"]})
            else:
                values.append({"path": path, "before": None, "after": None})
        scope = sorted({p.split("/")[1] for p in paths if p.count("/") >= 1 and p.split("/")[1]})
        out.append({**change, "scope": scope, "values": values})
    return out
