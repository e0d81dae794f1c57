"""``cfnops diff --validate``: properties of changed resources against the registry schema.

CloudFormation validates a change set before executing it and fails the deploy on
property syntax (AWS docs, "Validate stack deployments",
https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/validate-stack-deployments.html).
What of that is knowable offline is what the resource types' registry schemas say; the
check is cfn-lint's (its E3 rules: JSON-schema validation of every resource's
properties against the same registry schemas, aware of intrinsic functions), not a
hand-written one. cfn-lint is not a dependency of cfnops (docs/packaging.md): it runs
as the ``cfn-lint`` command, like git for ``--git-ref``. Only resources the diff lists
as created or changed are reported (an unchanged resource deployed before);
``E3019`` (unique primary identifiers) is left to the diff's own name check, which
also covers names that are not identifiers.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from cfnops.errors import UsageError

__all__ = ["schema_findings"]

_SKIPPED = frozenset({"E3019"})
_INSTALL = "pip install 'cfn-lint>=1.58,<2' (the `test` extra has it)"


def _command() -> str:
    beside = Path(sys.executable).parent / "cfn-lint"
    found = str(beside) if beside.is_file() else shutil.which("cfn-lint")
    if found is None:
        raise UsageError("--validate needs the cfn-lint command", hint=_INSTALL)
    return found


def _matches(template: Path, region: str) -> list[dict[str, Any]]:
    argv = [_command(), "--format", "json", "--regions", region, "--", str(template)]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UsageError(f"--validate: cfn-lint did not run: {exc}", hint=_INSTALL) from None
    try:
        found = json.loads(done.stdout or "[]")
    except json.JSONDecodeError:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise UsageError(f"--validate: cfn-lint failed on {template}: {tail[0]}") from None
    return [m for m in found if isinstance(m, dict)] if isinstance(found, list) else []


def schema_findings(template: Path, diff: Any, region: str) -> list[Any]:
    """cfn-lint's schema findings (E3…) on the created or changed resources of ``diff``
    (a :class:`cfnops.diff.TemplateDiff` of NEW = ``template``), each with its line."""
    from cfnops.diff import DeployFinding, Impact

    gone = (Impact.WILL_DESTROY, Impact.WILL_ORPHAN, Impact.NO_CHANGE)
    wanted = {r.logical_id for r in diff.resources if r.impact not in gone}
    if not wanted:
        return []
    out: list[Any] = []
    for m in _matches(template, region):
        code = str((m.get("Rule") or {}).get("Id", ""))
        location = m.get("Location") or {}
        path = tuple(str(p) for p in location.get("Path") or ())
        if not code.startswith("E3") or code in _SKIPPED:
            continue
        if len(path) < 2 or path[0] != "Resources" or path[1] not in wanted:
            continue
        line = (location.get("Start") or {}).get("LineNumber")
        where = ".".join(p for p in path[1:] if p != "Properties")
        message = f"{where}: {m.get('Message', '')} (cfn-lint {code})"
        out.append(DeployFinding("schema", path[1], message, path, line, code))
    return out
