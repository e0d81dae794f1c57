"""Ignore rules (``[[heal.ignore]]``): pure matching applied to reports and decisions."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from fnmatch import fnmatchcase

from cfnops.config import IgnoreRule
from cfnops.heal._model import PropertyDrift, ResourceDrift, StackDriftReport


def normalise_path(path: str) -> str:
    """Drift paths are ``/Value``; change-set paths ``/Properties/Value``: compare the former."""
    if path.startswith("/Properties/"):
        path = path[len("/Properties") :]
    return path if path.startswith("/") else "/" + path


def rule_matches(
    rule: IgnoreRule, stack: str, logical_id: str, resource_type: str, path: str
) -> bool:
    """True when ``rule`` covers this property (globs on every field; a path rule
    also covers everything below it: ``/Tags`` ignores ``/Tags/0/Value``)."""
    if not fnmatchcase(resource_type, rule.resource_type):
        return False
    if not fnmatchcase(stack, rule.stack) or not fnmatchcase(logical_id, rule.logical_id):
        return False
    path = normalise_path(path)
    wanted = normalise_path(rule.property_path)
    return fnmatchcase(path, wanted) or path.startswith(wanted.rstrip("/") + "/")


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
