"""What a review found: the diffs to render, and what the gate and the checks decided."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cfnops.review._sources import FileDiff

if TYPE_CHECKING:
    from cfnops.diff import AssemblyDiff, ResourceDiff, TemplateDiff

__all__ = ["ReviewResult"]


@dataclass(frozen=True)
class ReviewResult:
    """One review: either template diffs (``files``, under ``title``) or a cloud-assembly
    diff (``assembly``).

    ``skipped`` are files given with a git ref that are not CloudFormation templates.
    ``tripped`` is ``None`` when the ``fail_on`` gate passed (or was not asked for),
    else the resources that tripped it (empty: a non-resource difference tripped
    ``any``). ``deploy_errors`` (with ``fail_on``) name the error-level deploy
    findings, ``"LogicalId (rule)"``, sorted: the deploy would fail.
    """

    title: str
    files: tuple[FileDiff, ...] = ()
    assembly: AssemblyDiff | None = None
    skipped: tuple[Path, ...] = ()
    tripped: tuple[ResourceDiff, ...] | None = None
    deploy_errors: tuple[str, ...] = ()

    @property
    def diffs(self) -> tuple[TemplateDiff, ...]:
        """Every template diff, the assembly's stacks included."""
        if self.assembly is not None:
            return tuple(s.diff for s in self.assembly.walk())
        return tuple(f.diff for f in self.files)

    @property
    def failed(self) -> bool:
        """Whether the gate tripped or the deploy would fail (``fail_on`` given)."""
        return self.tripped is not None or bool(self.deploy_errors)
