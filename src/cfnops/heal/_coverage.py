"""Coverage: what a drift report or heal actually checked, and what it could not.

Drift detection compares only what it supports, and a stack can read
``IN_SYNC`` while some of its resources were never compared
(cloudformation-coverage-roadmap #1723, #801, #2546). Every report and heal
result therefore counts its resources:

- **checked**: detection compared the resource (``IN_SYNC``, ``MODIFIED``, ``DELETED``);
- **not checked**: detection tried and could not (``NOT_CHECKED`` with a reason,
  ``UNKNOWN``);
- **unsupported**: the type does not support drift detection (``NOT_CHECKED``
  without a reason; AWS leaves such resources out of DescribeStackResourceDrifts,
  so reports add them from ListStackResources — User Guide, "Resource type
  support", https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/resource-import-supported-resources.html).

Stacks whose status forbids detection count as ``stacks_not_checkable``.
Pure: plain data in, frozen values out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["checked", "not_checked", "unsupported"]
CHECKED_STATUSES = frozenset({"IN_SYNC", "MODIFIED", "DELETED"})


def classify(status: str, reason: str | None) -> Kind:
    """Which coverage bucket a resource drift status (and its reason) falls in."""
    if status in CHECKED_STATUSES:
        return "checked"
    if status == "NOT_CHECKED" and not reason:
        return "unsupported"
    return "not_checked"


@dataclass(frozen=True)
class Coverage:
    """Counts of checked / not checked / unsupported resources (and uncheckable stacks)."""

    checked: int = 0
    not_checked: int = 0
    unsupported: int = 0
    stacks_not_checkable: int = 0

    @property
    def total(self) -> int:
        return self.checked + self.not_checked + self.unsupported

    @property
    def percent(self) -> float | None:
        """Checked share of all resources, one decimal; ``None`` without resources."""
        return round(100.0 * self.checked / self.total, 1) if self.total else None

    @property
    def complete(self) -> bool:
        return not (self.not_checked or self.unsupported or self.stacks_not_checkable)

    def __add__(self, other: Coverage) -> Coverage:
        return Coverage(
            self.checked + other.checked,
            self.not_checked + other.not_checked,
            self.unsupported + other.unsupported,
            self.stacks_not_checkable + other.stacks_not_checkable,
        )

    def text(self) -> str:
        share = "n/a" if self.percent is None else f"{self.percent:g}%"
        out = (
            f"coverage {share}: {self.checked} of {self.total} resources checked, "
            f"{self.not_checked} not checked, {self.unsupported} unsupported"
        )
        if self.stacks_not_checkable:
            out += f", {self.stacks_not_checkable} stack(s) not checkable"
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "checked": self.checked,
            "notChecked": self.not_checked,
            "unsupported": self.unsupported,
            "total": self.total,
            "percent": self.percent,
            "stacksNotCheckable": self.stacks_not_checkable,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Coverage:
        return cls(
            int(data.get("checked", 0)),
            int(data.get("notChecked", 0)),
            int(data.get("unsupported", 0)),
            int(data.get("stacksNotCheckable", 0)),
        )


def count(items: Iterable[tuple[str, str | None]]) -> Coverage:
    """Coverage of ``(status, reason)`` pairs."""
    tally = {"checked": 0, "not_checked": 0, "unsupported": 0}
    for status, reason in items:
        tally[classify(status, reason)] += 1
    return Coverage(tally["checked"], tally["not_checked"], tally["unsupported"])


def total(coverages: Iterable[Coverage]) -> Coverage:
    out = Coverage()
    for c in coverages:
        out = out + c
    return out
