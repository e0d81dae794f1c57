"""cfn-lint (with sympy and networkx) is not a run-time dependency: only the schema
compilation script and the tests use it (docs/packaging.md)."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_no_cfnops_module_imports_cfn_lint() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "src" / "cfnops").rglob("*.py"))
        if "cfnlint" in _imports(path)
    ]
    assert offenders == []


def test_cfn_lint_is_a_test_dependency_only() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = {Requirement(raw).name.lower() for raw in project["dependencies"]}
    assert "cfn-lint" not in core
    test = {Requirement(raw).name.lower() for raw in project["optional-dependencies"]["test"]}
    assert "cfn-lint" in test
