"""Build the Lambda deployment package of deploy/*.yaml: only what the handlers import.

The handlers named in deploy/ (``cfnops.lambda_handlers.heal``, ``….ami``) are followed
through every ``import`` of cfnops's own modules, function-level ones included (a lazy
import runs at invocation), so the package holds exactly the cfnops modules they can
reach, with their package data: no console web stack, no sandbox, no CLI. A module
that imports by name (``importlib.import_module``, or a package's lazy table handed to
``cfnops._lazy.lazy_exports``) brings its whole package.

Third-party code is every distribution those modules import, with what it requires
*on the target* (markers evaluated for the runtime's Python and architecture, extras
such as DBOS's ``sqlalchemy[asyncio]`` and ``psycopg[binary]`` followed), at the version
installed here. Pure-Python distributions are copied from this environment; any with
compiled code is downloaded as the wheel built for the runtime (``pip download
--only-binary=:all: --platform manylinux…_<arch> --python-version 3.X``, as AWS
recommends: https://repost.aws/knowledge-center/lambda-python-package-compatible).
Every compiled module in the finished zip is then checked: its CPython ABI tag and its
ELF machine must match the runtime, or the build fails.

The runtime and architecture come from the templates (``Runtime:``, ``Architectures:``);
``--runtime``/``--arch`` that disagree with them are refused (exit 2).

    python scripts/build_lambda.py --runtime python3.13 --out dist/lambda.zip
"""

from __future__ import annotations

import argparse
import ast
import importlib.metadata as md
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

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
        targets = list(_imports(path, name))
        by_name = name != "cfnops._lazy" and "import_module(" in path.read_text(encoding="utf-8")
        if by_name or "cfnops._lazy" in targets:
            # a lazy table (``__getattr__`` importing by name, or a table handed to
            # cfnops._lazy.lazy_exports, which does the importing): its whole package
            folder = path.parent
            package = name if path.name == "__init__.py" else name.rpartition(".")[0]
            todo += [f"{package}.{p.stem}" for p in folder.glob("*.py") if p.stem != "__init__"]
            # and the modules of other packages it names (``"Schedule": "cfnops.schedules"``)
            todo += [
                n.value.partition(":")[0]
                for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                if isinstance(n, ast.Constant)
                and isinstance(n.value, str)
                and n.value.startswith("cfnops.")
            ]
        for target in targets:
            if target.split(".")[0] == "cfnops":
                todo.append(target)
            elif target and target.split(".")[0] not in sys.stdlib_module_names:
                third.add(target.split(".")[0])
    return seen, third


class BuildError(Exception):
    """What is wrong and what to do; main() prints it and exits 2."""


_RUNTIME = re.compile(r"^\s*Runtime:\s*['\"]?(python3\.\d+)", re.M)
_ARCH = re.compile(r"^\s*Architectures:\s*(?:\[\s*(\w+)|\n\s*-\s*(\w+))", re.M)
_MACHINE = {"x86_64": 0x3E, "arm64": 0xB7}  # ELF e_machine
_PIP_ARCH = {"x86_64": "x86_64", "arm64": "aarch64"}


def declared(deploy: Path) -> tuple[str, str]:
    """The one (runtime, architecture) every template in ``deploy`` declares."""
    runtimes: dict[str, list[str]] = {}
    arches: dict[str, list[str]] = {}
    for template in sorted(deploy.glob("*.yaml")):
        text = template.read_text(encoding="utf-8")
        for found in _RUNTIME.findall(text):
            runtimes.setdefault(found, []).append(template.name)
        for pair in _ARCH.findall(text):
            arches.setdefault(next(a for a in pair if a), []).append(template.name)
        if _RUNTIME.search(text) and not _ARCH.search(text):
            arches.setdefault("x86_64", []).append(template.name)  # Lambda's default
    if len(runtimes) != 1 or len(arches) != 1:
        raise BuildError(
            f"{deploy}: the templates declare runtimes {runtimes} and architectures {arches}; "
            "make them declare one Runtime and one architecture so one package fits them all"
        )
    return next(iter(runtimes)), next(iter(arches))


@dataclass(frozen=True)
class Target:
    runtime: str  # python3.13
    arch: str  # x86_64 | arm64

    @property
    def version(self) -> str:
        return self.runtime.removeprefix("python")

    @property
    def abi(self) -> str:
        return "cp" + self.version.replace(".", "")

    def environment(self, extra: str = "") -> dict[str, str]:
        """Marker values on the Lambda runtime (Amazon Linux, CPython)."""
        return {
            "python_version": self.version,
            "python_full_version": self.version + ".0",
            "platform_machine": _PIP_ARCH[self.arch],
            "sys_platform": "linux",
            "platform_system": "Linux",
            "os_name": "posix",
            "implementation_name": "cpython",
            "platform_python_implementation": "CPython",
            "extra": extra,
        }


def distributions(top_levels: set[str], target: Target) -> dict[str, str]:
    """{distribution: installed version} the modules need on ``target``, extras followed."""
    owners = md.packages_distributions()
    todo: list[tuple[str, frozenset[str]]] = [
        (d, frozenset()) for top in top_levels for d in owners.get(top, [])
    ]
    found: dict[str, str] = {}
    done: set[tuple[str, frozenset[str]]] = set()
    while todo:
        dist, extras = todo.pop()
        key = canonicalize_name(dist)
        if (key, extras) in done or key == "cfnops":
            continue
        done.add((key, extras))
        try:
            meta = md.distribution(dist)
        except md.PackageNotFoundError:
            raise BuildError(
                f"{dist} (needed on {target.runtime}) is not installed here: "
                f"pip install '{dist}' and build again"
            ) from None
        found[key] = meta.version
        for raw in meta.requires or []:
            req = Requirement(raw)
            wanted = ["", *sorted(extras)]
            if req.marker is None or any(
                req.marker.evaluate(target.environment(e)) for e in wanted
            ):
                todo.append((req.name, frozenset(req.extras)))
    return found


def _compiled(dist: str) -> bool:
    files = md.distribution(dist).files or []
    return any(f.suffix in (".so", ".pyd") for f in files)


def _copy_installed(zf: zipfile.ZipFile, dist: str) -> int:
    found = md.distribution(dist)
    size = 0
    for file in found.files or []:
        if file.suffix == ".pyc" or "__pycache__" in file.parts:
            continue
        path = Path(str(found.locate_file(file)))
        if path.is_file() and ".." not in file.parts and not str(file).startswith("/"):
            zf.write(path, file.as_posix())
            size += path.stat().st_size
    return size


def _download(dist: str, version: str, target: Target, into: Path) -> Path:
    arch = _PIP_ARCH[target.arch]
    platforms = [f"manylinux2014_{arch}", f"manylinux_2_28_{arch}", f"manylinux_2_34_{arch}"]
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:"]
    cmd += [f"--platform={p}" for p in platforms]
    cmd += [f"--python-version={target.version}", "--implementation=cp"]
    cmd += [f"--abi={target.abi}", "--abi=abi3", "--abi=none", "-d", str(into)]
    got = subprocess.run([*cmd, f"{dist}=={version}"], capture_output=True, text=True)
    stem = f"{re.sub(r'[-_.]+', '_', dist).lower()}-{version}-"
    wheels = sorted(w for w in into.glob("*.whl") if w.name.lower().startswith(stem))
    if got.returncode != 0 or not wheels:
        raise BuildError(
            f"{dist} {version}: no wheel for {target.runtime} on {target.arch} "
            f"({got.stderr.strip().splitlines()[-1:] or 'pip found none'}); "
            "pin a version that publishes one"
        )
    return wheels[0]


def _copy_wheel(zf: zipfile.ZipFile, wheel: Path) -> int:
    size = 0
    with zipfile.ZipFile(wheel) as whl:
        for info in whl.infolist():
            top = info.filename.split("/")[0]
            if info.is_dir() or top.endswith(".data") or ".." in info.filename.split("/"):
                continue
            zf.writestr(info.filename, whl.read(info))
            size += info.file_size
    return size


def build(out: Path, target: Target, wheels: Path) -> dict[str, int]:
    modules, third = closure(handler_modules(ROOT / "deploy"))
    needed = distributions(third, target)
    sizes: dict[str, int] = {}
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        sizes["cfnops"] = _copy_cfnops(zf, modules)
        for dist, version in sorted(needed.items()):
            if _compiled(dist):
                sizes[dist] = _copy_wheel(zf, _download(dist, version, target, wheels))
            else:
                sizes[dist] = _copy_installed(zf, dist)
    return sizes


def _copy_cfnops(zf: zipfile.ZipFile, modules: set[str]) -> int:
    size = 0
    packages = {m for m in modules if (_module_file(m) or Path()).name == "__init__.py"}
    for name in sorted(modules):
        path = _module_file(name)
        assert path is not None
        zf.write(path, path.relative_to(SRC).as_posix())
        size += path.stat().st_size
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
                size += data.stat().st_size
    return size


_EXT_TAG = re.compile(r"\.(cpython-(\d+)[a-z]*-([a-z0-9_]+)-linux-gnu|abi3)\.so$")


def abi_problems(package: Path, target: Target) -> list[str]:
    """Every compiled module of the zip that would not load on ``target``."""
    problems = []
    with zipfile.ZipFile(package) as zf:
        for name in zf.namelist():
            if not re.search(r"\.so(\.\d+)*$", name):
                continue
            head = zf.open(name).read(20)
            machine = int.from_bytes(head[18:20], "little") if head[:4] == b"\x7fELF" else -1
            if machine != _MACHINE[target.arch]:
                problems.append(f"{name}: not an ELF object for {target.arch}")
            tag = _EXT_TAG.search(name)
            if tag and tag.group(2) and f"cp{tag.group(2)}" != target.abi:
                problems.append(f"{name}: built for cp{tag.group(2)}, not {target.abi}")
            if tag and tag.group(3) and tag.group(3) != _PIP_ARCH[target.arch]:
                problems.append(f"{name}: built for {tag.group(3)}")
            if name.endswith(".so") and not tag and ".libs/" not in name:
                problems.append(f"{name}: a Python extension without an ABI tag")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist" / "lambda.zip")
    parser.add_argument("--runtime", help="python3.X; default: what deploy/*.yaml declare")
    parser.add_argument("--arch", choices=sorted(_MACHINE), help="default: the templates'")
    parser.add_argument("--wheels", type=Path, help="keep downloaded wheels here (a cache)")
    args = parser.parse_args(argv)
    try:
        runtime, arch = declared(ROOT / "deploy")
        for flag, asked, wanted in (
            ("--runtime", args.runtime, runtime),
            ("--arch", args.arch, arch),
        ):
            if asked and asked != wanted:
                raise BuildError(
                    f"{flag} {asked}: deploy/*.yaml declare {wanted}; build with {flag} "
                    f"{wanted}, or change the templates first so the package matches them"
                )
        target = Target(runtime, arch)
        with tempfile.TemporaryDirectory() as tmp:
            sizes = build(args.out, target, args.wheels or Path(tmp))
        problems = abi_problems(args.out, target)
        if problems:
            args.out.unlink()
            raise BuildError("compiled modules that would not load:\n  " + "\n  ".join(problems))
    except BuildError as exc:
        print(f"build_lambda: {exc}", file=sys.stderr)
        return 2
    print(
        f"{args.out}: {target.runtime} {target.arch}, {args.out.stat().st_size / 1e6:.1f} MB "
        f"zipped, {sum(sizes.values()) / 1e6:.1f} MB unzipped (Lambda's limit: 250 MB unzipped)"
    )
    for name, size in sorted(sizes.items(), key=lambda kv: -kv[1]):
        print(f"  {name:<40} {size / 1e6:7.2f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
