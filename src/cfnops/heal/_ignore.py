"""Ignore rules (``[[heal.ignore]]``): pure matching applied to reports and decisions."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from cfnops.config import IgnoreRule, drift_path
from cfnops.heal._model import PropertyDrift, ResourceDrift, StackDriftReport

normalise_path = drift_path


def rule_matches(
    rule: IgnoreRule, stack: str, logical_id: str, resource_type: str, path: str
) -> bool:
    """True when ``rule`` covers this property (:meth:`IgnoreRule.covers`)."""
    return rule.covers(stack, logical_id, resource_type, path)


def is_ignored(
    rules: Iterable[IgnoreRule], stack: str, logical_id: str, resource_type: str, path: str
) -> bool:
    return any(rule_matches(r, stack, logical_id, resource_type, path) for r in rules)


def apply_ignore(report: StackDriftReport, rules: tuple[IgnoreRule, ...]) -> StackDriftReport:
    """The report with ignored property differences marked (nested stacks too)."""
    if not rules:
        return report

    def mark(resource: ResourceDrift) -> ResourceDrift:
        props = tuple(
            replace(
                p,
                ignored=is_ignored(
                    rules, report.stack_name, resource.logical_id, resource.resource_type, p.path
                ),
            )
            for p in resource.properties
        )
        return replace(resource, properties=props)

    return replace(
        report,
        resources=tuple(mark(r) for r in report.resources),
        nested=tuple(apply_ignore(n, rules) for n in report.nested),
    )


def unignored(props: Iterable[PropertyDrift]) -> tuple[PropertyDrift, ...]:
    return tuple(p for p in props if not p.ignored)
