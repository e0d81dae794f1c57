"""Why REVERT_DRIFT found nothing to revert: which drift CloudFormation leaves alone."""

from __future__ import annotations

from typing import Any

from cfnops.errors import CfnopsError
from cfnops.schemas import load_table

# DescribeChangeSet StatusReason when the change set has no changes.
NO_CHANGES_MARKER = "didn't contain changes"


def _create_only(region: str, resource_type: str) -> tuple[tuple[str, ...], ...]:
    try:
        behaviour = load_table(region).get(resource_type)
    except (CfnopsError, KeyError, LookupError):
        return ()
    return tuple(behaviour.create_only) if behaviour is not None else ()


def unrevertable_drift(drifted: list[dict[str, Any]], region: str) -> list[str]:
    """One line per drifted property, saying why REVERT_DRIFT does not reconcile it.

    Drift-aware change sets do not reconcile create-only properties (User Guide,
    "Using drift-aware change sets"); ignored properties are kept on purpose.
    """
    lines: list[str] = []
    for res in drifted:
        where = f"{res['logicalId']} ({res['resourceType']})"
        create_only = _create_only(region, res["resourceType"])
        if res["status"] == "DELETED":
            lines.append(f"{where}: deleted outside CloudFormation")
            continue
        for prop in res.get("properties", []):
            parts = tuple(p for p in prop["path"].strip("/").split("/") if not p.isdigit())
            if prop.get("ignored"):
                why = "ignored by a [heal] ignore rule"
            elif any(parts[: len(c)] == tuple(c) for c in create_only):
                why = "create-only property (changing it needs a replacement)"
            else:
                why = "CloudFormation reported nothing to revert"
            lines.append(
                f"{where} {prop['path']}: expected {prop['expected']!r}, actual "
                f"{prop['actual']!r} — {why}"
            )
    return lines or ["no drifted property was reported"]
