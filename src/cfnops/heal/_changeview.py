"""What the gate reads of one ``ResourceChange`` of a drift-aware change set.

Fields as botocore's CloudFormation model documents them: ``ResourceChange``
(``Action``, ``Replacement``, ``ResourceDriftStatus``,
``ResourceDriftIgnoredAttributes``), ``ResourceTargetDefinition`` (``Path``,
``Name``, ``RequiresRecreation``, ``BeforeValue``/``AfterValue``,
``BeforeValueFrom``, ``AttributeChangeType``) and ``LiveResourceDrift``
(``PreviousValue``, ``ActualValue``); API reference
https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_ResourceChange.html.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def _property_name(path: str) -> str:
    parts = [p for p in path.split("/") if p]
    if parts and parts[0] == "Properties":
        parts = parts[1:]
    return parts[0] if parts else ""


@dataclass(frozen=True)
class DetailView:
    """One ``ResourceChangeDetail`` target."""

    path: str
    name: str = ""
    change_type: str = ""  # AttributeChangeType: Add | Remove | Modify | SyncWithActual
    requires_recreation: str = "Never"
    before: str | None = None
    after: str | None = None
    before_from: str | None = None  # ACTUAL_STATE | PREVIOUS_DEPLOYMENT_STATE
    drift_previous: str | None = None
    drift_actual: str | None = None

    @classmethod
    def from_api(cls, detail: dict[str, Any]) -> DetailView | None:
        target = detail.get("Target") or {}
        name = str(target.get("Name") or "")
        path = target.get("Path") or (f"/Properties/{name}" if name else "")
        if not path:
            return None
        drift = target.get("Drift") or {}
        return cls(
            path=str(path),
            name=name or _property_name(str(path)),
            change_type=str(target.get("AttributeChangeType") or ""),
            requires_recreation=str(target.get("RequiresRecreation") or "Never"),
            before=target.get("BeforeValue"),
            after=target.get("AfterValue"),
            before_from=target.get("BeforeValueFrom"),
            drift_previous=drift.get("PreviousValue"),
            drift_actual=drift.get("ActualValue"),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "changeType": self.change_type,
            "requiresRecreation": self.requires_recreation,
            "beforeValueFrom": self.before_from,
            "drifted": self.drift_actual is not None,
        }


@dataclass(frozen=True)
class ChangeView:
    """What the gate needs of one ``ResourceChange``."""

    logical_id: str
    resource_type: str
    action: str
    replacement: str = "False"
    paths: tuple[str, ...] = ()
    drift_status: str | None = None  # ResourceDriftStatus
    details: tuple[DetailView, ...] = ()
    ignored_attributes: tuple[tuple[str, str], ...] = ()  # (Path, Reason)

    @classmethod
    def from_api(cls, change: dict[str, Any]) -> ChangeView:
        rc = change.get("ResourceChange", change)
        details = tuple(
            d for d in (DetailView.from_api(x) for x in rc.get("Details", []) or []) if d
        )
        paths = tuple(
            str(d["Target"]["Path"])
            for d in rc.get("Details", []) or []
            if d.get("Target", {}).get("Path")
        )
        ignored = tuple(
            (str(a.get("Path", "")), str(a.get("Reason", "")))
            for a in rc.get("ResourceDriftIgnoredAttributes", []) or []
        )
        return cls(
            logical_id=str(rc.get("LogicalResourceId", "")),
            resource_type=str(rc.get("ResourceType", "")),
            action=str(rc.get("Action", "")),
            replacement=str(rc.get("Replacement") or "False"),
            paths=paths,
            drift_status=rc.get("ResourceDriftStatus"),
            details=details,
            ignored_attributes=ignored,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "logicalId": self.logical_id,
            "resourceType": self.resource_type,
            "action": self.action,
            "replacement": self.replacement,
            "paths": list(self.paths),
            "driftStatus": self.drift_status,
        }
