"""``cfnops diff --validate``: properties of changed resources against the registry schema.

CloudFormation validates a change set before executing it and fails the deploy on
property syntax (AWS docs, "Validate stack deployments",
https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/validate-stack-deployments.html).
What of that is knowable offline is what the resource types' registry schemas say; the
check is cfn-lint's (its E3 rules: JSON-schema validation of every resource's
properties against the same registry schemas, aware of intrinsic functions), not a
hand-written one. Only resources the diff lists as created or changed are reported:
an unchanged resource deployed before. ``E3019`` (unique primary identifiers) is left
to :mod:`cfnops.diff._names`, which also covers names that are not identifiers.
"""

from __future__ import annotations

from collections.abc import Iterable

from cfnops.diff._model import DeployFinding, Impact, TemplateDiff

__all__ = ["schema_findings"]

_SKIPPED = frozenset({"E3019"})


def _checked(diff: TemplateDiff) -> set[str]:
    gone = (Impact.WILL_DESTROY, Impact.WILL_ORPHAN, Impact.NO_CHANGE)
    return {r.logical_id for r in diff.resources if r.impact not in gone}


def schema_findings(text: str, diff: TemplateDiff, regions: Iterable[str]) -> list[DeployFinding]:
    """cfn-lint's schema findings (E3…) on the created or changed resources of ``diff``,
    for NEW's ``text`` (so each finding has its line)."""
    wanted = _checked(diff)
    if not wanted:
        return []
    from cfnlint.api import ManualArgs, lint

    matches = lint(text, config=ManualArgs(regions=list(regions)))
    out: list[DeployFinding] = []
    for m in matches:
        code = str(m.rule.id)
        path = tuple(str(p) for p in (m.path or ()))
        if not code.startswith("E3") or code in _SKIPPED:
            continue
        if len(path) < 2 or path[0] != "Resources" or path[1] not in wanted:
            continue
        where = ".".join(p for p in path[1:] if p != "Properties")
        message = f"{where}: {m.message} (cfn-lint {code})"
        out.append(DeployFinding("schema", path[1], message, path, m.linenumber, code))
    return out
