"""Dependencies point one way (docs/architecture.md), checked by walking the imports.

Every ``import``/``from`` statement of every module under ``src/cfnops`` counts,
function-level ones included (a lazy import is still a dependency). Relative
imports are resolved; ``if TYPE_CHECKING:`` imports count too (they are a
dependency of the types, and the layering should hold for them as well).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests._source import parse_file

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "cfnops"

# The layers, bottom to top. A module may import its own package and anything in
# a lower layer, never a higher one.
ENGINES_AND_CORES = (
    "durable",
    "asl",
    "diff",
    "schemas",
    "notify",
    "eventpatterns",
    "schedules",
    "templates",
)
CAPABILITIES = ("heal", "ami", "jobs", "guard")
# Compositions built on capabilities' public APIs (the importer writes job-nets through
# cfnops.jobs; metrics read heal's and jobs' stores; review composes diff, guard and heal's
# drift report): above the capabilities, below the front.
EXTENSIONS = ("jobimport", "metrics", "review")
FRONT = ("cli", "console", "demo", "sandbox", "lambda_handlers", "builtin_workflows", "worker")
# The worker service is a front below the CLI (the CLI runs it; a container or a systemd
# unit may run it from Python): it composes capabilities and extensions and picks the
# process's workflows (builtin_workflows), never another front.
WORKER_FORBIDDEN = tuple(f for f in FRONT if f not in ("worker", "builtin_workflows"))

FOUNDATION = (
    "errors",
    "config",
    "http",
    "_config_file",
    "_config_env",
    "_config_check",
    "aws",
    "_version",
    "_lazy",
    "database",
    "logcontext",
    "telemetry",
    "tracing",
)
# The runtime value (settings, clients, database, notifiers): above the foundation and
# notify, below the engines that hand it to workflows.
RUNTIME = ("runtime",)
_ABOVE_RUNTIME = tuple(c for c in ENGINES_AND_CORES if c != "notify")

FORBIDDEN: dict[str, tuple[str, ...]] = {
    **{
        base: RUNTIME + ENGINES_AND_CORES + CAPABILITIES + EXTENSIONS + FRONT for base in FOUNDATION
    },
    "runtime": _ABOVE_RUNTIME + CAPABILITIES + EXTENSIONS + FRONT,
    "notify": RUNTIME + CAPABILITIES + EXTENSIONS + FRONT,
    **{core: CAPABILITIES + EXTENSIONS + FRONT for core in _ABOVE_RUNTIME},
    **{cap: EXTENSIONS + FRONT for cap in CAPABILITIES},
    **{ext: FRONT for ext in EXTENSIONS},
    "worker": WORKER_FORBIDDEN,
}


def _module_name(path: Path, root: Path = SRC) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, root: Path = SRC) -> Iterator[tuple[int, str]]:
    """(line, absolute module name) of every import in ``path``."""
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = parse_file(path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            yield node.lineno, target
            # `from cfnops import heal` imports the package cfnops.heal
            for alias in node.names:
                yield node.lineno, f"{target}.{alias.name}"


def _top(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "cfnops" or len(parts) < 2:
        return None
    return parts[1]


def _modules_of(top: str) -> list[Path]:
    pkg = PACKAGE / top
    if pkg.is_dir():
        return sorted(pkg.rglob("*.py"))
    single = PACKAGE / f"{top}.py"
    return [single] if single.exists() else []


def violations(top: str) -> list[str]:
    found = []
    for path in _modules_of(top):
        for line, target in _imports(path):
            dest = _top(target)
            if dest is not None and dest in FORBIDDEN[top]:
                found.append(f"{path.relative_to(SRC)}:{line} imports {target}")
    return sorted(set(found))


@pytest.mark.parametrize("top", sorted(FORBIDDEN))
def test_layer_imports_nothing_above_it(top: str) -> None:
    assert _modules_of(top), f"cfnops.{top} does not exist: update the layers in this test"
    bad = violations(top)
    assert not bad, (
        f"cfnops.{top} must not import {', '.join(FORBIDDEN[top])} "
        "(see docs/architecture.md):\n  " + "\n  ".join(bad)
    )


def test_every_package_is_placed_in_a_layer() -> None:
    """A new package must be given a layer here, or its imports go unchecked."""
    placed = set(FORBIDDEN) | set(FRONT) | {"__main__"}
    present = {
        p.name if p.is_dir() else p.stem
        for p in PACKAGE.iterdir()
        if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py")
    }
    present.discard("__init__")
    assert present - placed == set(), f"place these in a layer: {sorted(present - placed)}"


def test_the_walk_sees_function_level_and_relative_imports(tmp_path: Path) -> None:
    """The walker itself: lazy and relative imports are found and resolved."""
    module = tmp_path / "cfnops" / "durable" / "_probe.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        "import json\n"
        "def later():\n"
        "    from cfnops.jobs import JobService\n"
        "    from ..heal import _workflow\n"
        "    from . import _engine\n"
    )
    targets = {t for _, t in _imports(module, tmp_path)}
    assert {"cfnops.jobs", "cfnops.heal", "cfnops.heal._workflow", "cfnops.durable"} <= targets
    assert {_top(t) for t in targets} >= {"jobs", "heal", "durable"}


# -- public surfaces, one runtime (issue 32) ----------------------------------------------

# Entry points: they build the runtime once and may keep process-wide state.
ENTRY_POINTS = ("cli", "console", "lambda_handlers", "demo", "__main__")


def _package_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _library_modules() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if _package_of(p) not in ENTRY_POINTS]


def test_no_package_imports_another_packages_private_modules() -> None:
    """What another package needs is exported by its ``__init__`` (and pinned there)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        own = _package_of(path)  # __main__ included: it calls cfnops.cli.entry
        for line, target in _imports(path):
            parts = target.split(".")
            if parts[0] != "cfnops" or len(parts) < 3 or parts[1] == own:
                continue
            if parts[2].startswith("_") and not parts[2].startswith("__"):
                found.append(f"{path.relative_to(SRC)}:{line} imports {target}")
    assert not found, "import the package's public names instead:\n  " + "\n  ".join(
        sorted(set(found))
    )


def test_no_capability_imports_another_capability() -> None:
    """heal, ami, jobs and guard share only what lies below them (e.g. cfnops.schedules)."""
    found = []
    for cap in CAPABILITIES:
        for path in _modules_of(cap):
            for line, target in _imports(path):
                dest = _top(target)
                if dest in CAPABILITIES and dest != cap:
                    found.append(f"{path.relative_to(SRC)}:{line} imports {target}")
    assert not found, "\n  ".join(["capabilities import each other:", *sorted(set(found))])


def test_load_settings_is_called_only_by_entry_points() -> None:
    """Below the entry points settings arrive in the runtime; nothing re-reads them."""
    found = []
    for path in _library_modules():
        for node in ast.walk(parse_file(path)):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name == "load_settings":
                    found.append(f"{path.relative_to(SRC)}:{node.lineno}")
    # Runtime.from_environment is the one library door to the environment: it is what a
    # Lambda handler or a worker calls, once.
    assert found == ["cfnops/runtime.py:" + _from_environment_line()], found


def _from_environment_line() -> str:
    tree = parse_file(PACKAGE / "runtime.py")
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "from_environment":
            for inner in ast.walk(node):
                if isinstance(inner, ast.Call) and getattr(inner.func, "id", "") == "load_settings":
                    return str(inner.lineno)
    raise AssertionError("Runtime.from_environment no longer calls load_settings")
