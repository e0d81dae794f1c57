#!/usr/bin/env python3
"""Compile the "Update requires: Replacement" data of the CloudFormation docs into a table.

The CloudFormation resource specification (``CloudFormationResourceSpecification.json``)
is the machine-readable form of the resource and property reference pages: every
property carries ``UpdateType`` — ``Immutable`` ("Update requires: Replacement"),
``Conditional`` ("Update requires: Some interruptions / Replacement, depending …") or
``Mutable``. AWS froze the specification in 2024; the last cfn-lint release that
shipped it (as ``cfnlint/data/CloudSpecs/us-east-1.json``) is cfn-lint 0.87.7.

This script fetches exactly that wheel from PyPI with ``pip download --no-deps``
(or reads a wheel given with ``--wheel``), checks its sha256, reads the us-east-1
specification from it and writes ``src/cfnops/schemas/data/spec-us-east-1.json.gz``::

    {"format": 1,
     "source": {"package": "cfn-lint", "version": "0.87.7", "wheelSha256": "…",
                "file": "cfnlint/data/CloudSpecs/us-east-1.json",
                "resourceSpecificationVersion": "177.0.0"},
     "types": {"AWS::X::Y": {"c": ["Prop/*/Sub", …], "cc": […]}}}

Only **nested** paths are kept (``Prop/Sub``, ``Prop/*/Sub`` for list items and
map values): the registry schemas remain the source for top-level properties,
and the diff consults this table only for nested paths the registry does not
list (see ``cfnops.schemas``). Paths use the registry table's syntax.

Run from the repository root (needs network access to PyPI, or ``--wheel``)::

    python scripts/build_spec_table.py
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

PACKAGE, VERSION = "cfn-lint", "0.87.7"
WHEEL = "cfn_lint-0.87.7-py3-none-any.whl"
WHEEL_SHA256 = "ac6ac86dde1ba3d0fb0e217a4d329239a98f00af7862e4fa5ace6c416c4e056c"
MEMBER = "cfnlint/data/CloudSpecs/us-east-1.json"
_MAX_DEPTH = 8
_OUT = Path(__file__).resolve().parents[1] / "src" / "cfnops" / "schemas" / "data"


def _fetch(folder: Path) -> Path:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            f"{PACKAGE}=={VERSION}",
            "-d",
            str(folder),
        ],
        check=True,
    )
    return folder / WHEEL


def _nested(
    spec: dict[str, Any], type_name: str, prop_type: str | None, prefix: tuple[str, ...], depth: int
) -> list[tuple[str, str]]:
    """(path, UpdateType) of every Immutable/Conditional property below a property type."""
    if prop_type is None or depth > _MAX_DEPTH:
        return []
    found = spec["PropertyTypes"].get(f"{type_name}.{prop_type}")
    if not isinstance(found, dict):
        return []
    out: list[tuple[str, str]] = []
    for name, prop in (found.get("Properties") or {}).items():
        path = (*prefix, name)
        update = prop.get("UpdateType")
        if update in ("Immutable", "Conditional"):
            out.append(("/".join(path), update))
        out += _walk(spec, type_name, prop, path, depth + 1)
    return out


def _walk(
    spec: dict[str, Any], type_name: str, prop: dict[str, Any], path: tuple[str, ...], depth: int
) -> list[tuple[str, str]]:
    kind = prop.get("Type")
    if kind in ("List", "Map"):
        return _nested(spec, type_name, prop.get("ItemType"), (*path, "*"), depth)
    return _nested(spec, type_name, kind, path, depth)


def compile_spec(spec: dict[str, Any]) -> dict[str, dict[str, list[str]]]:
    """Nested create-only (``c``) and conditional (``cc``) paths per resource type."""
    types: dict[str, dict[str, list[str]]] = {}
    for type_name, resource in sorted(spec["ResourceTypes"].items()):
        entry: dict[str, set[str]] = {"c": set(), "cc": set()}
        for name, prop in (resource.get("Properties") or {}).items():
            for path, update in _walk(spec, type_name, prop, (name,), 0):
                entry["c" if update == "Immutable" else "cc"].add(path)
        kept = {k: sorted(v) for k, v in entry.items() if v}
        if kept:
            types[type_name] = kept
    return types


def build(wheel: Path, out_dir: Path) -> None:
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if digest != WHEEL_SHA256:
        raise SystemExit(f"{wheel}: sha256 {digest} is not the pinned {WHEEL_SHA256}")
    with zipfile.ZipFile(wheel) as archive:
        spec = json.loads(archive.read(MEMBER))
    types = compile_spec(spec)
    data = {
        "format": 1,
        "source": {
            "package": PACKAGE,
            "version": VERSION,
            "wheelSha256": digest,
            "file": MEMBER,
            "resourceSpecificationVersion": spec.get("ResourceSpecificationVersion", ""),
        },
        "types": types,
    }
    raw = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    target = out_dir / "spec-us-east-1.json.gz"
    target.write_bytes(gzip.compress(raw, compresslevel=9, mtime=0))  # byte-identical reruns
    paths = sum(len(v) for e in types.values() for v in e.values())
    print(
        f"wrote {paths} nested paths of {len(types)} types to {target} "
        f"({target.stat().st_size / 1024:.0f} KiB), resource specification "
        f"{data['source']['resourceSpecificationVersion']} from {PACKAGE} {VERSION}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, help=f"a downloaded {WHEEL} (default: fetch it)")
    parser.add_argument("--out", type=Path, default=_OUT, help="output folder")
    args = parser.parse_args(argv)
    if args.wheel is not None:
        build(args.wheel, args.out)
        return 0
    with tempfile.TemporaryDirectory() as folder:
        build(_fetch(Path(folder)), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
