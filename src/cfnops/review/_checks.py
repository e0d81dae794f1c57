"""What a review adds to a diff: the guard's findings on custom resources, the registry
schema (``validate``), names already taken in the account, the stack's live drift."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cfnops.diff import DriftedProperty, TemplateDiff
    from cfnops.review._request import ReviewRuntime

__all__ = ["validated", "with_guard_findings", "with_live_drift", "with_taken_names"]

_CUSTOM = "AWS::CloudFormation::CustomResource"


def with_guard_findings(result: TemplateDiff, template: Path, code: Path | None) -> TemplateDiff:
    """Attach ``cfnops guard`` findings to changed custom resources (if there are any)."""
    if not any(r.type.startswith("Custom::") or r.type == _CUSTOM for r in result.resources):
        return result
    from cfnops.diff import annotate, escalate
    from cfnops.guard import GuardInputError, diff_annotations, replacement_reasons

    try:
        annotated = annotate(result, diff_annotations(template, code))
        return escalate(annotated, replacement_reasons(template, code))
    except GuardInputError:  # the guard could not read it: the plain diff still stands
        return result


def validated(result: TemplateDiff, template: Path, region: str, validate: bool) -> TemplateDiff:
    """With ``validate``: the changed resources' properties against the registry schema."""
    if not validate:
        return result
    from cfnops.review._validate import schema_findings

    found = schema_findings(template, result, region)
    return replace(result, deploy_findings=(*result.deploy_findings, *found))


def with_taken_names(
    runtime: ReviewRuntime, new: dict[str, Any], result: TemplateDiff
) -> TemplateDiff:
    """Explicit names ``result`` creates that are already taken in the account."""
    from cfnops.review._names_live import taken_names

    taken = taken_names(runtime.clients, new, result)
    return replace(result, deploy_findings=(*result.deploy_findings, *taken))


def with_live_drift(runtime: ReviewRuntime, stack: str, result: TemplateDiff) -> TemplateDiff:
    """Detect the stack's drift (cfnops.heal) and attach it to the diff."""
    from cfnops.diff import with_drift
    from cfnops.heal import drift_report

    cfn = runtime.clients.client("cloudformation")
    ignore = runtime.settings.heal.ignore
    report = drift_report(cfn, stack, ignore=ignore, follow_nested=False)
    return with_drift(result, _drifted(report.resources))


def _drifted(resources: Any) -> list[DriftedProperty]:
    from cfnops.diff import DriftedProperty

    drifted: list[DriftedProperty] = []
    for res in resources:
        if res.effective_status == "DELETED":
            drifted.append(DriftedProperty(res.logical_id, res.resource_type, "DELETED"))
        elif res.effective_status == "MODIFIED":
            drifted.extend(
                DriftedProperty(
                    res.logical_id,
                    res.resource_type,
                    "MODIFIED",
                    p.path,
                    p.expected,
                    p.actual,
                    p.difference_type,
                )
                for p in res.properties
                if not p.ignored
            )
    return drifted
