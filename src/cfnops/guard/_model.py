"""Values the guard produces: findings, notes, the report, and rule metadata."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Severity(StrEnum):
    """How bad a finding is; any ``error`` makes ``cfnops guard`` exit 1."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class RuleInfo:
    """Metadata of one rule (used by the text, JSON and SARIF renderers)."""

    id: str
    name: str
    summary: str
    severity: Severity
    help_uri: str
    # why it matters and what to do (SARIF fullDescription/help: GitHub shows it beside
    # the alert); empty: the summary and the link say it
    detail: str = ""


@dataclass(frozen=True, order=True)
class Finding:
    """One problem in a custom resource's handler: where, why, and what to do."""

    resource: str
    file: str
    line: int
    rule: str
    severity: Severity = field(compare=False)
    message: str = field(compare=False)
    fix: str = field(compare=False)

    def to_json(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "severity": self.severity.value,
            "resource": self.resource,
            "file": self.file,
            "line": self.line,
            "message": self.message,
            "fix": self.fix,
        }


@dataclass(frozen=True)
class Note:
    """Something the guard could not check (external handler, code not found, parse error)."""

    resource: str
    message: str


@dataclass(frozen=True)
class NotChecked:
    """A custom resource whose handler the guard could not analyse, and why.

    ``handler`` is the function's logical id (or the file), empty when the
    ServiceToken leads outside the template.
    """

    resource: str
    handler: str
    reason: str
    partial: bool = False  # analysed, but under an assumption the reason states

    def to_json(self) -> dict[str, str | bool]:
        return {
            "resource": self.resource,
            "handler": self.handler,
            "reason": self.reason,
            "partial": self.partial,
        }


@dataclass(frozen=True)
class ExerciseStep:
    """One request ``--exercise`` sent to a handler, and what the handler did."""

    event: str  # "Create", "Update (properties unchanged)", ...
    status: str  # the answer's Status (SUCCESS / FAILED), "" when it sent none
    physical_id: str  # the answer's PhysicalResourceId ("" when it sent none)
    detail: str = ""  # the answer's Reason, or how the run ended without one
    changes: tuple[str, ...] = ()  # the changing AWS operations it called

    def to_json(self) -> dict[str, object]:
        return {
            "event": self.event,
            "status": self.status or None,
            "physicalResourceId": self.physical_id or None,
            "detail": self.detail,
            "changes": list(self.changes),
        }


@dataclass(frozen=True)
class Exercised:
    """A custom resource's handler run with generated requests (``--exercise``).

    ``exercised`` is False when it could not be run (``reason`` says why); ``note``
    states an assumption of the run (a Python 2 handler run as its translation).
    """

    resource: str
    handler: str
    exercised: bool
    reason: str = ""
    steps: tuple[ExerciseStep, ...] = ()
    note: str = ""

    def to_json(self) -> dict[str, object]:
        return {
            "resource": self.resource,
            "handler": self.handler,
            "exercised": self.exercised,
            "reason": self.reason or None,
            "note": self.note or None,
            "steps": [step.to_json() for step in self.steps],
        }


@dataclass(frozen=True)
class GuardReport:
    """Everything ``check_template`` found for one template.

    ``not_checked`` lists the custom resources whose handler was not analysed
    (a clean report says nothing about them), and those analysed only in part
    (``partial``: an unresolvable handler name, an entry not found); each also
    has a note. ``exercised`` (``--exercise``) holds the runs of the handlers; the
    findings of those runs (EX rules) are among ``findings``.
    """

    template: str
    custom_resources: tuple[str, ...]
    findings: tuple[Finding, ...]
    notes: tuple[Note, ...]
    not_checked: tuple[NotChecked, ...] = ()
    exercised: tuple[Exercised, ...] = ()  # with --exercise: each custom resource's run

    @property
    def not_analysed(self) -> tuple[NotChecked, ...]:
        """The handlers not analysed at all (``--fail-on-unchecked`` trips on these)."""
        return tuple(item for item in self.not_checked if not item.partial)

    @property
    def has_errors(self) -> bool:
        return any(f.severity is Severity.ERROR for f in self.findings)

    def by_resource(self) -> dict[str, list[Finding]]:
        out: dict[str, list[Finding]] = {name: [] for name in self.custom_resources}
        for finding in self.findings:
            out.setdefault(finding.resource, []).append(finding)
        return out
