#!/usr/bin/env python3
"""Compile cfn-lint's registry schemas into cfnops' update-behaviour table.

Reads every resource schema through ``cfnlint.schema.PROVIDER_SCHEMA_MANAGER``
pointed at the schemas *bundled with cfn-lint* (explicit provider/resource
directories, so a newer user cache under ``~/.cache/cfn-lint`` cannot change the
result), and writes ``src/cfnops/schemas/data/``:

* ``us-east-1.json.gz`` — the base table: ``{"format", "source", "region", "types"}``;
* ``overlay-<region>.json.gz`` — for every other region, only the types whose
  entry differs from the base (``"changed"``) and the base types that region
  lacks (``"removed"``).

One entry per resource type, empty fields left out::

    {"c":  createOnlyProperties, "cc": conditionalCreateOnlyProperties,
     "ro": readOnlyProperties,   "wo": writeOnlyProperties,
     "pi": primaryIdentifier,    "tu": tagging.tagUpdatable,
     "rs": replacementStrategy,  "u":  array paths with "insertionOrder": false}

Paths drop the ``/properties/`` prefix (``Config/Port``, ``Rules/*/Id``).

Run from the repository root after upgrading cfn-lint::

    python scripts/build_schema_table.py
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path
from typing import Any

BASE_REGION = "us-east-1"
_MAX_DEPTH = 12
_OUT = Path(__file__).resolve().parents[1] / "src" / "cfnops" / "schemas" / "data"


def _strip(pointer: str) -> str:
    prefix = "/properties/"
    return pointer[len(prefix) :] if pointer.startswith(prefix) else pointer.lstrip("/")


def _resolve(schema: dict[str, Any], node: Any, seen: frozenset[str]) -> tuple[Any, frozenset[str]]:
    """Follow local ``$ref`` pointers; ``seen`` stops recursive definitions."""
    while isinstance(node, dict) and isinstance(node.get("$ref"), str):
        ref = node["$ref"]
        if not ref.startswith("#/") or ref in seen:
            return {}, seen
        seen = seen | {ref}
        target: Any = schema
        for part in ref[2:].split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        node = target
    return node, seen


def _unordered(schema: dict[str, Any]) -> list[str]:
    """Array paths (``*`` for items) that the schema declares ``insertionOrder: false``."""
    found: set[str] = set()

    def walk(node: Any, path: tuple[str, ...], seen: frozenset[str], depth: int) -> None:
        node, seen = _resolve(schema, node, seen)
        if not isinstance(node, dict) or depth > _MAX_DEPTH:
            return
        if node.get("insertionOrder") is False and path:
            found.add("/".join(path))
        for key in ("oneOf", "anyOf", "allOf"):
            for sub in node.get(key, []) or []:
                walk(sub, path, seen, depth + 1)
        items = node.get("items")
        if isinstance(items, dict):
            walk(items, (*path, "*"), seen, depth + 1)
        props = node.get("properties")
        if isinstance(props, dict):
            for name, sub in props.items():
                walk(sub, (*path, name), seen, depth + 1)
        patterns = node.get("patternProperties")
        if isinstance(patterns, dict):
            for sub in patterns.values():
                walk(sub, (*path, "*"), seen, depth + 1)

    for name, sub in (schema.get("properties") or {}).items():
        walk(sub, (name,), frozenset(), 0)
    return sorted(found)


def entry(schema: dict[str, Any]) -> dict[str, Any]:
    """The compact table entry of one registry schema."""
    out: dict[str, Any] = {}
    for key, field in (
        ("c", "createOnlyProperties"),
        ("cc", "conditionalCreateOnlyProperties"),
        ("ro", "readOnlyProperties"),
        ("wo", "writeOnlyProperties"),
        ("pi", "primaryIdentifier"),
    ):
        paths = sorted({_strip(p) for p in schema.get(field, []) or [] if isinstance(p, str)})
        if paths:
            out[key] = paths
    tagging = schema.get("tagging")
    if isinstance(tagging, dict) and isinstance(tagging.get("tagUpdatable"), bool):
        out["tu"] = tagging["tagUpdatable"]
    if isinstance(schema.get("replacementStrategy"), str):
        out["rs"] = schema["replacementStrategy"]
    unordered = _unordered(schema)
    if unordered:
        out["u"] = unordered
    return out


def _write(path: Path, data: dict[str, Any]) -> int:
    raw = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    # mtime=0 keeps the output byte-identical between runs.
    blob = gzip.compress(raw, compresslevel=9, mtime=0)
    path.write_bytes(blob)
    return len(blob)


def build(out_dir: Path) -> None:
    import cfnlint
    from cfnlint.helpers import REGIONS
    from cfnlint.schema.manager import ProviderSchemaManager

    data_dir = Path(cfnlint.__file__).resolve().parent / "data" / "schemas"
    manager = ProviderSchemaManager(
        providers_dir=data_dir / "providers", resources_dir=data_dir / "resources"
    )
    version = getattr(cfnlint, "__version__", None)
    if version is None:
        from importlib.metadata import version as dist_version

        version = dist_version("cfn-lint")
    schema_date = json.loads((data_dir / "version.json").read_text()).get("schema_date", "")
    source = {"cfn_lint": version, "schema_date": schema_date}

    def region_table(region: str) -> dict[str, dict[str, Any]]:
        table: dict[str, dict[str, Any]] = {}
        for type_name in manager.get_resource_types(region):
            try:
                schema = manager.get_resource_schema(region, type_name).schema
            except Exception:  # a pointer without a schema file: not in this region
                continue
            table[type_name] = entry(schema)
        return table

    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.json.gz"):
        if not old.name.startswith("spec-"):  # scripts/build_spec_table.py owns those
            old.unlink()
    base = region_table(BASE_REGION)
    total = _write(
        out_dir / f"{BASE_REGION}.json.gz",
        {"format": 1, "source": source, "region": BASE_REGION, "types": base},
    )
    for region in REGIONS:
        if region == BASE_REGION:
            continue
        table = region_table(region)
        changed = {t: e for t, e in table.items() if base.get(t) != e}
        removed = sorted(set(base) - set(table))
        total += _write(
            out_dir / f"overlay-{region}.json.gz",
            {
                "format": 1,
                "source": source,
                "region": region,
                "changed": changed,
                "removed": removed,
            },
        )
    print(
        f"wrote {len(base)} types ({BASE_REGION}) + {len(REGIONS) - 1} region overlays "
        f"to {out_dir} ({total / 1024:.0f} KiB), cfn-lint {version}, schemas {schema_date}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=_OUT, help="output folder")
    args = parser.parse_args(argv)
    build(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
