"""One runtime and one database per process, built only where the process starts.

``Database.open`` opens a pool and ``Runtime.from_settings`` /
``Runtime.from_environment`` build a runtime (clients, a pool): only the entry points
(the "Who builds it" table of docs/architecture.md), ``runtime.py`` and the database
package may call them. Everything else takes the ``Runtime`` or ``Database`` it is
given. The check walks the AST of every module under ``src/cfnops``: calls count,
docstrings and comments do not.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests._source import parse_file

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "cfnops"

BUILDERS = {
    ("Database", "open"),
    ("Database", "of"),
    ("Runtime", "from_settings"),
    ("Runtime", "from_environment"),
}
# Modules and packages (relative to src/cfnops) that may build one.
ALLOWED = ("runtime.py", "database/", "cli/", "console/", "lambda_handlers/", "demo/", "worker/")
# Named exceptions, each with its reason: (module, enclosing function).
EXCEPTIONS = {
    # Public API of cfnops.durable: an engine on a URL, for a caller that keeps no
    # Database (its docstring says to prefer one).
    ("durable/_dbos_setup.py", "make_engine"),
}


def _builder_calls(tree: ast.Module) -> list[tuple[str, int, str]]:
    """(function the call sits in, line, ``Class.method``) of each builder call."""
    found: list[tuple[str, int, str]] = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = where
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = child.name
            if (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Attribute)
                and isinstance(child.func.value, ast.Name)
                and (child.func.value.id, child.func.attr) in BUILDERS
            ):
                found.append((where, child.lineno, f"{child.func.value.id}.{child.func.attr}"))
            visit(child, inner)

    visit(tree, "<module>")
    return found


def offenders() -> list[str]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(ALLOWED) or rel in ALLOWED:
            continue
        for function, line, call in _builder_calls(parse_file(path)):
            if (rel, function) not in EXCEPTIONS:
                out.append(f"{rel}:{line} {call} in {function}()")
    return out


def test_only_entry_points_build_a_runtime_or_open_a_database() -> None:
    found = offenders()
    assert not found, (
        "take the Runtime or Database you are given (docs/architecture.md, One runtime "
        "value); only the entry points build one:\n" + "\n".join(found)
    )


def test_the_scan_sees_a_call_and_not_a_docstring() -> None:
    tree = ast.parse(
        '"""Runtime.from_settings(settings) in a docstring."""\n'
        "# Database.open(url) in a comment\n"
        "def build(settings):\n"
        "    return Database.open(settings.database_url)\n"
    )
    assert _builder_calls(tree) == [("build", 4, "Database.open")]
