"""Build the Lambda deployment package of deploy/*.yaml: only what the handlers import.

The handlers named in deploy/ (``cfnops.lambda_handlers.heal``, ``….ami``) are followed
through every ``import`` of cfnops's own modules, function-level ones included (a lazy
import runs at invocation), so the package holds exactly the cfnops modules they can
reach, with their package data: no console web stack, no sandbox, no CLI. A module
that imports by name (``importlib.import_module``: a package's lazy ``__getattr__``
table) brings its whole package. Third-party
code is every distribution those modules import, with the distributions it requires
(from the installed metadata, extras left out). Files are copied from the installed
distributions' RECORDs, so the package matches this environment (build it on Linux
x86_64 / arm64 for the matching Lambda architecture).

    python scripts/build_lambda.py --out dist/lambda.zip      # prints size and contents
"""

from __future__ import annotations

import argparse
import ast
import importlib.metadata as md
import re
import sys
import zipfile
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
HANDLER = re.compile(r"Handler:\s*(cfnops\.[\w.]+)\.\w+")
_DATA = (".json", ".json.gz", ".yaml", ".asl.json", "py.typed")


def handler_modules(deploy: Path) -> list[str]:
    found = set()
    for template in sorted(deploy.glob("*.yaml")):
        found.update(HANDLER.findall(template.read_text(encoding="utf-8")))
    return sorted(found)


def _module_file(name: str) -> Path | None:
    base = SRC.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports(path: Path, name: str) -> Iterable[str]:
    """Every import that can run (``if TYPE_CHECKING:`` blocks never do)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")
        for stmt in node.body
        for inner in ast.walk(stmt)
    }
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join([*parts, node.module] if node.module else parts)
            else:
                target = node.module or ""
            yield target
            yield from (f"{target}.{a.name}" for a in node.names)


def closure(roots: list[str]) -> tuple[set[str], set[str]]:
    """(cfnops modules reachable from ``roots``, top-level third-party names they import)."""
    seen: set[str] = set()
    third: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        path = _module_file(name)
        if path is None:
            continue
        seen.add(name)
        parts = name.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]  # parent packages
        if "import_module(" in path.read_text(encoding="utf-8"):
            # a lazy table (``__getattr__`` importing by name): its whole package
            folder = path.parent
            package = name if path.name == "__init__.py" else name.rpartition(".")[0]
            todo += [f"{package}.{p.stem}" for p in folder.glob("*.py") if p.stem != "__init__"]
        for target in _imports(path, name):
            if target.split(".")[0] == "cfnops":
                todo.append(target)
            elif target and target.split(".")[0] not in sys.stdlib_module_names:
                third.add(target.split(".")[0])
    return seen, third


def distributions(top_levels: set[str]) -> set[str]:
    owners = md.packages_distributions()
    todo = [d for top in top_levels for d in owners.get(top, [])]
    found: set[str] = set()
    while todo:
        dist = todo.pop()
        key = dist.lower().replace("_", "-")
        if key in found or key == "cfnops":
            continue
        try:
            requires = md.distribution(dist).requires or []
        except md.PackageNotFoundError:
            continue
        found.add(key)
        for req in requires:
            if "extra ==" in req:
                continue
            todo.append(re.split(r"[ ;<>=!~\[(]", req, maxsplit=1)[0])
    return found


def build(out: Path) -> dict[str, int]:
    modules, third = closure(handler_modules(ROOT / "deploy"))
    sizes: dict[str, int] = {}
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        packages = {m for m in modules if (_module_file(m) or Path()).name == "__init__.py"}
        for name in sorted(modules):
            path = _module_file(name)
            assert path is not None
            zf.write(path, path.relative_to(SRC).as_posix())
            sizes["cfnops"] = sizes.get("cfnops", 0) + path.stat().st_size
        for package in sorted(packages):  # package data (the schema table …)
            folder = SRC.joinpath(*package.split("."))
            for data in folder.rglob("*"):
                inner = data.relative_to(folder).parts
                if (
                    data.is_file()
                    and data.name.endswith(_DATA)
                    and (len(inner) == 1 or inner[0] == "data")
                ):
                    zf.write(data, data.relative_to(SRC).as_posix())
                    sizes["cfnops"] += data.stat().st_size
        for dist in sorted(distributions(third)):
            found = md.distribution(dist)
            for file in found.files or []:
                if file.suffix == ".pyc" or "__pycache__" in file.parts:
                    continue
                path = Path(str(found.locate_file(file)))
                if path.is_file() and ".." not in file.parts and not str(file).startswith("/"):
                    zf.write(path, file.as_posix())
                    sizes[dist] = sizes.get(dist, 0) + path.stat().st_size
    return sizes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist" / "lambda.zip")
    args = parser.parse_args()
    sizes = build(args.out)
    print(
        f"{args.out}: {args.out.stat().st_size / 1e6:.1f} MB zipped, "
        f"{sum(sizes.values()) / 1e6:.1f} MB unzipped (Lambda's limit: 250 MB unzipped)"
    )
    for name, size in sorted(sizes.items(), key=lambda kv: -kv[1]):
        print(f"  {name:<40} {size / 1e6:7.2f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
