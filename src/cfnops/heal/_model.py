"""Drift as cfnops reports it: frozen values built from DescribeStackResourceDrifts.

Field meanings follow the API reference of ``StackResourceDrift`` and
``PropertyDifference`` (https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_PropertyDifference.html).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from cfnops.heal._attribution import Attribution
from cfnops.heal._coverage import Coverage, count


@dataclass(frozen=True)
class PropertyDrift:
    """One property that differs: JSON-pointer path, expected vs actual, difference type."""

    path: str
    expected: str | None
    actual: str | None
    difference_type: str  # NOT_EQUAL | ADD | REMOVE
    ignored: bool = False
    accepted: bool = False  # covered by an active ``cfnops drift accept``

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "expected": self.expected,
            "actual": self.actual,
            "differenceType": self.difference_type,
            "ignored": self.ignored,
            "accepted": self.accepted,
        }


@dataclass(frozen=True)
class ResourceDrift:
    """A resource's drift: IN_SYNC, MODIFIED, DELETED or NOT_CHECKED (with its reason)."""

    logical_id: str
    resource_type: str
    status: str
    physical_id: str | None = None
    properties: tuple[PropertyDrift, ...] = ()
    reason: str | None = None
    attribution: Attribution | None = None
    accepted: str | None = None  # the acceptance(s) that hold, as text

    @property
    def effective_status(self) -> str:
        """``IN_SYNC`` when every difference of a MODIFIED resource is ignored;
        ``ACCEPTED`` when the rest is accepted drift (or a deleted resource is accepted)."""
        if self.status == "MODIFIED" and self.properties:
            if all(p.ignored for p in self.properties):
                return "IN_SYNC"
            if all(p.ignored or p.accepted for p in self.properties):
                return "ACCEPTED"
        if self.status == "DELETED" and self.accepted:
            return "ACCEPTED"
        return self.status

    def to_json(self) -> dict[str, Any]:
        return {
            "logicalId": self.logical_id,
            "resourceType": self.resource_type,
            "physicalId": self.physical_id,
            "status": self.status,
            "effectiveStatus": self.effective_status,
            "reason": self.reason,
            "accepted": self.accepted,
            "properties": [p.to_json() for p in self.properties],
            "attribution": self.attribution.to_json() if self.attribution else None,
        }


@dataclass(frozen=True)
class StackDriftReport:
    """One stack's drift, with nested stacks' reports under ``nested``."""

    stack_name: str
    stack_id: str
    status: str  # DRIFTED | IN_SYNC | UNKNOWN | NOT_CHECKED
    detection_status: str = "DETECTION_COMPLETE"
    reason: str | None = None
    resources: tuple[ResourceDrift, ...] = ()
    nested: tuple[StackDriftReport, ...] = field(default_factory=tuple)

    @property
    def effective_status(self) -> str:
        """DRIFTED only when some resource (here or nested) drifted beyond ignore rules."""
        if self.status not in ("DRIFTED", "IN_SYNC"):
            return self.status
        drifted = any(r.effective_status in ("MODIFIED", "DELETED") for r in self.resources)
        if drifted or any(n.effective_status == "DRIFTED" for n in self.nested):
            return "DRIFTED"
        return "IN_SYNC"

    def drifted(self) -> tuple[ResourceDrift, ...]:
        return tuple(r for r in self.resources if r.effective_status in ("MODIFIED", "DELETED"))

    def not_checked(self) -> tuple[ResourceDrift, ...]:
        return tuple(r for r in self.resources if r.status == "NOT_CHECKED")

    @property
    def coverage(self) -> Coverage:
        """This stack's own resources (nested stacks are counted in their own report)."""
        if self.status == "NOT_CHECKABLE":
            return Coverage(stacks_not_checkable=1)
        return count(
            (r.status, r.reason)
            for r in self.resources
            if r.resource_type != "AWS::CloudFormation::Stack"
        )

    @property
    def coverage_with_nested(self) -> Coverage:
        out = self.coverage
        for n in self.nested:
            out = out + n.coverage_with_nested
        return out

    def with_resources(self, resources: tuple[ResourceDrift, ...]) -> StackDriftReport:
        return replace(self, resources=resources)

    def to_json(self) -> dict[str, Any]:
        return {
            "stackName": self.stack_name,
            "stackId": self.stack_id,
            "status": self.status,
            "effectiveStatus": self.effective_status,
            "detectionStatus": self.detection_status,
            "reason": self.reason,
            "coverage": self.coverage.to_json(),
            "coverageWithNested": self.coverage_with_nested.to_json(),
            "resources": [r.to_json() for r in self.resources],
            "nested": [n.to_json() for n in self.nested],
        }


def resource_from_api(item: Mapping[str, Any]) -> ResourceDrift:
    """A :class:`ResourceDrift` from one ``StackResourceDrift`` of the API."""
    props = tuple(
        PropertyDrift(
            path=str(d.get("PropertyPath", "")),
            expected=d.get("ExpectedValue"),
            actual=d.get("ActualValue"),
            difference_type=str(d.get("DifferenceType", "NOT_EQUAL")),
        )
        for d in item.get("PropertyDifferences", []) or []
    )
    return ResourceDrift(
        logical_id=str(item["LogicalResourceId"]),
        resource_type=str(item.get("ResourceType", "")),
        status=str(item.get("StackResourceDriftStatus", "NOT_CHECKED")),
        physical_id=item.get("PhysicalResourceId"),
        properties=props,
        reason=(item.get("DriftStatusReason") or None),
    )


def report_from_json(data: dict[str, Any]) -> StackDriftReport:
    """Inverse of :meth:`StackDriftReport.to_json` (step results are JSON)."""
    return StackDriftReport(
        stack_name=data["stackName"],
        stack_id=data["stackId"],
        status=data["status"],
        detection_status=data.get("detectionStatus", "DETECTION_COMPLETE"),
        reason=data.get("reason"),
        resources=tuple(
            ResourceDrift(
                logical_id=r["logicalId"],
                resource_type=r["resourceType"],
                status=r["status"],
                physical_id=r.get("physicalId"),
                reason=r.get("reason"),
                accepted=r.get("accepted"),
                properties=tuple(
                    PropertyDrift(
                        p["path"],
                        p["expected"],
                        p["actual"],
                        p["differenceType"],
                        p["ignored"],
                        bool(p.get("accepted")),
                    )
                    for p in r["properties"]
                ),
                attribution=(
                    Attribution.from_json(r["attribution"]) if r.get("attribution") else None
                ),
            )
            for r in data["resources"]
        ),
        nested=tuple(report_from_json(n) for n in data.get("nested", [])),
    )
