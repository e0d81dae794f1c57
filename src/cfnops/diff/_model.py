"""The diff model: frozen values, no behaviour beyond small queries.

Impact names follow ``ResourceImpact`` of ``@aws-cdk/cloudformation-diff`` so a
report reads the same as ``cdk diff``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cfnops.diff._drift import DriftEntry
    from cfnops.diff._security_model import SecurityView


MANGLED_NOTE = (
    "only non-ASCII characters differ, and GetTemplate returns each as '?': "
    "the deployed template is equivalent"
)


class Impact(StrEnum):
    """What deploying the new template does to a resource (or to one property)."""

    NO_CHANGE = "NO_CHANGE"
    WILL_UPDATE = "WILL_UPDATE"
    MAY_REPLACE = "MAY_REPLACE"
    WILL_REPLACE = "WILL_REPLACE"
    WILL_CREATE = "WILL_CREATE"
    WILL_DESTROY = "WILL_DESTROY"
    WILL_ORPHAN = "WILL_ORPHAN"

    @property
    def rank(self) -> int:
        """Severity for "worst of": NO_CHANGE < WILL_UPDATE < MAY_REPLACE < WILL_REPLACE."""
        return _RANK[self]

    @property
    def replaces(self) -> bool:
        """True for MAY_REPLACE and WILL_REPLACE: the physical id may change."""
        return self in (Impact.MAY_REPLACE, Impact.WILL_REPLACE)


_RANK = {
    Impact.NO_CHANGE: 0,
    Impact.WILL_UPDATE: 1,
    Impact.MAY_REPLACE: 2,
    Impact.WILL_REPLACE: 3,
    Impact.WILL_CREATE: 1,
    Impact.WILL_ORPHAN: 1,
    Impact.WILL_DESTROY: 4,
}


def worst(*impacts: Impact) -> Impact:
    """The most severe of ``impacts`` (``NO_CHANGE`` for none)."""
    found = Impact.NO_CHANGE
    for impact in impacts:
        if impact.rank > found.rank:
            found = impact
    return found


class Change(StrEnum):
    """How a named template entry (parameter, output, section ...) changed."""

    ADDED = "ADDED"
    REMOVED = "REMOVED"
    MODIFIED = "MODIFIED"


@dataclass(frozen=True)
class PropertyDiff:
    """One top-level property of a resource that changed or is affected.

    ``old``/``new`` are the template values (``None`` when absent, see
    ``change``). ``change`` is ``None`` when the text is identical and the
    property is only affected through a reference (``propagated_from``).
    ``path`` is the create-only schema path that decided the impact, if any;
    ``parameter`` the parameter whose changed value affects it (``--stack`` /
    ``--parameters`` only). ``decided_by`` names the data that decided a
    replacement-related impact: ``"registry schema"``, ``"resource
    specification"`` (the "Update requires" statements of the documentation)
    or ``"UpdatePolicy"`` (a resource attribute).
    """

    name: str
    impact: Impact
    reason: str
    old: Any = None
    new: Any = None
    change: Change | None = Change.MODIFIED
    path: str | None = None
    propagated_from: str | None = None
    parameter: str | None = None
    decided_by: str | None = None


@dataclass(frozen=True)
class AttributeDiff:
    """A changed resource attribute outside ``Properties`` (DependsOn, Metadata ...)."""

    name: str
    change: Change
    old: Any = None
    new: Any = None


@dataclass(frozen=True)
class ResourceDiff:
    """A resource that differs between the templates.

    ``reason`` explains the resource-level impact, following propagation
    chains ("Queue is replaced because QueueName refers to Bucket, which is
    replaced because BucketName is create-only"). ``notes`` carries fixed
    caveats (custom resources); ``annotations`` is free for other analyses
    (guard findings) to attach text to a resource, see :func:`annotate`.
    """

    logical_id: str
    type: str
    impact: Impact
    reason: str = ""
    old_type: str | None = None
    properties: tuple[PropertyDiff, ...] = ()
    other: tuple[AttributeDiff, ...] = ()
    notes: tuple[str, ...] = ()
    annotations: tuple[str, ...] = ()

    def property(self, name: str) -> PropertyDiff | None:
        return next((p for p in self.properties if p.name == name), None)


@dataclass(frozen=True)
class EntryDiff:
    """A changed named entry of a template section (``Outputs/BucketArn`` ...)."""

    name: str
    change: Change
    old: Any = None
    new: Any = None


@dataclass(frozen=True)
class DeployFinding:
    """A failure CloudFormation would raise before or while deploying NEW, known offline.

    ``rule`` is ``physical-name-collision``, ``custom-name-replaced``,
    ``name-exists`` (with ``--stack``) or ``schema`` (``--validate``: a property that
    does not match the registry schema; ``code`` is cfn-lint's rule id). ``path`` is
    the JSON path of the value in NEW, ``line`` its line when known.
    """

    rule: str
    logical_id: str
    message: str
    path: tuple[str, ...] = ()
    line: int | None = None
    code: str | None = None
    level: str = "error"


@dataclass(frozen=True)
class ValueChange:
    """A resource or output whose value changes because something it refers to is replaced.

    ``kind`` is ``"resource"`` (``properties`` lists the mutable properties that
    refer to ``refers_to``) or ``"output"``. Informational: not counted in
    ``difference_count``.
    """

    kind: str
    name: str
    impact: Impact
    properties: tuple[str, ...]
    refers_to: str
    reason: str


@dataclass(frozen=True)
class ParameterValue:
    """A parameter's deployed value against the value the deploy would use."""

    name: str
    old: str | None
    new: str | None


@dataclass(frozen=True)
class TemplateDiff:
    """Every difference between two templates, with replacement analysis.

    ``sections`` holds the top-level keys outside the named sections
    (AWSTemplateFormatVersion, Description, Transform, Rules, unknown keys).
    ``security`` is the IAM / security-group view (not counted in
    ``difference_count``: its changes belong to resources already listed).
    ``value_changes`` lists resources and outputs that change value because a
    resource they refer to is replaced (not counted either). ``drift`` is the
    deployed stack's live drift when asked for (``None`` otherwise).
    """

    resources: tuple[ResourceDiff, ...] = ()
    parameters: tuple[EntryDiff, ...] = ()
    outputs: tuple[EntryDiff, ...] = ()
    conditions: tuple[EntryDiff, ...] = ()
    mappings: tuple[EntryDiff, ...] = ()
    metadata: tuple[EntryDiff, ...] = ()
    sections: tuple[EntryDiff, ...] = ()
    mangled_equivalent: bool = False
    parameter_values: tuple[ParameterValue, ...] = ()
    schema_region: str = "us-east-1"
    schema_source: str = ""
    notes: tuple[str, ...] = field(default=())
    security: SecurityView | None = None
    value_changes: tuple[ValueChange, ...] = ()
    drift: tuple[DriftEntry, ...] | None = None
    deploy_findings: tuple[DeployFinding, ...] = ()

    @property
    def difference_count(self) -> int:
        """Changed resources + outputs + parameters + conditions + mappings + metadata
        keys + other top-level keys (the count ``cdk diff`` prints)."""
        return (
            len(self.resources)
            + len(self.outputs)
            + len(self.parameters)
            + len(self.conditions)
            + len(self.mappings)
            + len(self.metadata)
            + len(self.sections)
        )

    @property
    def is_empty(self) -> bool:
        return self.difference_count == 0

    @property
    def counted_differences(self) -> int:
        """``difference_count``, except 0 when the only differences are mangled characters.

        GetTemplate returns every code point above U+007F as ``?``; a diff that
        vanishes once the new template is mangled the same way is no change to
        the stack (as ``cdk diff`` counts it). Reports print this number.
        """
        return 0 if self.mangled_equivalent else self.difference_count

    def resource(self, logical_id: str) -> ResourceDiff | None:
        return next((r for r in self.resources if r.logical_id == logical_id), None)

    def count(self, *impacts: Impact) -> int:
        return sum(1 for r in self.resources if r.impact in impacts)


def annotate(diff: TemplateDiff, annotations: Mapping[str, Sequence[str]]) -> TemplateDiff:
    """``diff`` with extra text attached to resources (for example guard findings).

    Keys are logical ids; ids the diff does not report are ignored (an
    annotation never turns an unchanged resource into a difference).
    """
    if not annotations:
        return diff
    resources = tuple(
        replace(r, annotations=(*r.annotations, *annotations.get(r.logical_id, ())))
        for r in diff.resources
    )
    return replace(diff, resources=resources)


def escalate(diff: TemplateDiff, reasons: Mapping[str, str]) -> TemplateDiff:
    """``diff`` with in-place updates of the named resources turned into replacements.

    For analyses that know more than the template, such as the guard: a custom
    resource whose handler answers an Update with a new PhysicalResourceId is
    replaced, and CloudFormation then sends a Delete for the old id (AWS docs:
    "Custom resource request types: Update",
    https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/crpg-ref-requesttypes-update.html).
    Only resources reported as WILL_UPDATE change (an update is what sends the
    handler its request); the reason and a note say why.
    """
    if not reasons:
        return diff
    out = []
    for res in diff.resources:
        why = reasons.get(res.logical_id)
        if why is None or res.impact is not Impact.WILL_UPDATE:
            out.append(res)
            continue
        out.append(
            replace(
                res,
                impact=Impact.WILL_REPLACE,
                reason=f"{res.logical_id} is replaced, old one deleted: {why}",
                notes=tuple(n for n in res.notes if not n.startswith("update — the handler")),
            )
        )
    return replace(diff, resources=tuple(out))
