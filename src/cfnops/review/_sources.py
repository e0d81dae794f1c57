"""What a review compares: template pairs (SAM transformed) and templates against their
content at a git ref. The diff itself is :mod:`cfnops.diff`'s.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfnops.errors import UsageError

if TYPE_CHECKING:
    from cfnops.diff import TemplateDiff

__all__ = ["FileDiff", "diff_pair", "git_text"]


@dataclass(frozen=True)
class FileDiff:
    """One template's diff: the file, the result and SAM's generated → SAM resource ids."""

    path: str
    diff: TemplateDiff
    owners: dict[str, tuple[str, str]] = field(default_factory=dict)


def diff_pair(
    old: dict[str, Any],
    new: dict[str, Any],
    path: str,
    *,
    region: str,
    given: dict[str, str],
    old_source: str = "OLD",
) -> FileDiff:
    """Diff two parsed templates; SAM templates are transformed first and the report
    names each generated resource's SAM resource. When the translator rejects one,
    both are compared as written and its error is the diff's first note (a warning)."""
    from cfnops.diff import (
        SamTransformError,
        diff_templates,
        is_sam,
        parameter_values,
        sam_annotations,
        sam_origins,
        sam_untransformed,
        transform_sam,
    )

    owners: dict[str, tuple[str, str]] = {}
    rejected: str | None = None
    if is_sam(old) or is_sam(new):
        try:
            old_t = transform_sam(old, old_source, region) if is_sam(old) else old
            new_t = transform_sam(new, path, region) if is_sam(new) else new
        except SamTransformError as exc:  # diff as written: the change still shows
            rejected = exc.message
        else:
            owners.update(sam_origins(old, old_t) if is_sam(old) else {})
            owners.update(sam_origins(new, new_t) if is_sam(new) else {})
            old, new = old_t, new_t
    values = parameter_values(old, new, given) if given else ()
    result = diff_templates(old, new, region=region, parameter_values=values)
    if rejected is not None:
        return FileDiff(path, sam_untransformed(result, rejected))
    return FileDiff(path, sam_annotations(result, owners), owners)


def git_text(ref: str, path: Path) -> str | None:
    """``path``'s content at git ``ref`` (``None``: the file did not exist there)."""
    folder = path.resolve().parent
    try:
        done = subprocess.run(
            ["git", "show", f"{ref}:./{path.name}"],
            cwd=folder,
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
    except FileNotFoundError:
        raise UsageError("--git-ref needs git on PATH", hint="install git") from None
    if done.returncode == 0:
        return done.stdout
    err = done.stderr.strip()
    if "exists on disk, but not in" in err or "does not exist in" in err:
        return None  # a template added since REF: every resource is created
    raise UsageError(
        f"--git-ref {ref}: git cannot show {path}: {err.splitlines()[-1] if err else 'failed'}",
        hint="give a commit, branch or tag of the repository holding the template "
        "(for example origin/main or HEAD)",
    )
