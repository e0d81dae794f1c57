"""pre-commit entry points (``.pre-commit-hooks.yaml`` at the repository root).

``python -m cfnops.cli.hooks guard FILE...`` runs ``cfnops guard`` on each changed
CloudFormation/SAM template; when handler code changed (any other file), it also
guards every template of the repository that declares a custom resource, since the
code's template is not among the changed files. Files that are not templates are
not an error. The exit code is the worst of the guard runs (0, 1 findings, 2 input).

``python -m cfnops.cli.hooks job-test FILE...`` runs ``cfnops job test`` for each changed
job-net or mock file that has its pair: ``NAME.asl.json`` (or ``.asl.yaml``/``.asl.yml``)
and ``NAME.mocks.json`` side by side. Files without a pair are not an error. The exit code
is the worst of the runs (0 passed, 1 a case failed, 2 a case could not run / bad file).

``cfnops-diff`` needs no wrapper: its entry is ``cfnops diff --git-ref REF
--fail-on replace`` with the changed files appended.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

__all__ = ["guard_files", "job_test_files", "main"]

_TEMPLATE_SUFFIXES = (".yaml", ".yml", ".json", ".template")
_CUSTOM_MARKERS = ("Custom::", "AWS::CloudFormation::CustomResource")


def _is_template(path: Path) -> bool:
    if path.suffix not in _TEMPLATE_SUFFIXES or not path.is_file():
        return False
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return "Resources" in text and (
        "AWSTemplateFormatVersion" in text
        or "Type: AWS::" in text
        or '"Type": "AWS::' in text
        or "Custom::" in text
    )


def _repository_templates() -> list[Path]:
    done = subprocess.run(
        ["git", "ls-files", "-z", "--", *(f"*{s}" for s in _TEMPLATE_SUFFIXES)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        return []
    paths = [Path(p) for p in done.stdout.decode().split("\0") if p]
    return [
        p
        for p in paths
        if _is_template(p) and any(m in p.read_text(encoding="utf-8") for m in _CUSTOM_MARKERS)
    ]


def guard_files(files: list[str], extra: list[str]) -> int:
    """Guard the templates among ``files`` (and, when code changed, the repository's
    templates with custom resources); ``extra`` are options passed to ``cfnops guard``."""
    from cfnops.cli.main import run

    paths = [Path(f) for f in files]
    templates = [p for p in paths if _is_template(p)]
    if any(not _is_template(p) and p.suffix not in _TEMPLATE_SUFFIXES for p in paths):
        templates += [t for t in _repository_templates() if t not in templates]
    worst = 0
    for template in templates:
        worst = max(worst, run(["guard", str(template), *extra]))
    return worst


_JOBNET_SUFFIXES = (".asl.json", ".asl.yaml", ".asl.yml")


def _job_test_pair(path: Path) -> tuple[Path, Path] | None:
    name = path.name
    for suffix in (*_JOBNET_SUFFIXES, ".mocks.json"):
        if name.endswith(suffix):
            stem = path.with_name(name[: -len(suffix)])
            mocks = stem.with_name(stem.name + ".mocks.json")
            defs = [stem.with_name(stem.name + s) for s in _JOBNET_SUFFIXES]
            found = next((d for d in defs if d.is_file()), None)
            return (found, mocks) if found is not None and mocks.is_file() else None
    return None


def job_test_files(files: list[str]) -> int:
    """``cfnops job test`` for each job-net / mock file pair among ``files`` (once each)."""
    from cfnops.cli.main import run

    pairs = {pair for f in files if (pair := _job_test_pair(Path(f))) is not None}
    worst = 0
    for definition, mocks in sorted(pairs):
        worst = max(worst, run(["job", "test", str(definition), "--mocks", str(mocks)]))
    return worst


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "job-test":
        return job_test_files(args[1:])
    if not args or args[0] != "guard":
        sys.stderr.write(
            "usage: python -m cfnops.cli.hooks guard [GUARD OPTIONS] FILE...\n"
            "       python -m cfnops.cli.hooks job-test FILE...\n"
        )
        return 2
    options: list[str] = []
    files: list[str] = []
    rest = iter(args[1:])
    for arg in rest:
        if arg in ("--code", "--output", "-o"):
            options += [arg, next(rest, "")]
        elif arg.startswith("-"):
            options.append(arg)
        else:
            files.append(arg)
    return guard_files(files, options)


if __name__ == "__main__":
    sys.exit(main())
