"""Load the compiled table: the base region plus one region's overlay.

The table is data, not code: ``data/us-east-1.json.gz`` holds every type, and
``data/overlay-<region>.json.gz`` the entries that differ in that region. Entries
stay raw JSON until :meth:`SchemaTable.get` turns one into a :class:`TypeBehaviour`,
so loading a region is one gzip read and one ``json.loads`` (a few milliseconds).
"""

from __future__ import annotations

import gzip
import json
import pkgutil
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cfnops.schemas.errors import UnknownRegionError

BASE_REGION = "us-east-1"
CUSTOM_RESOURCE_TYPE = "AWS::CloudFormation::CustomResource"

Path = tuple[str, ...]


@dataclass(frozen=True)
class TableSource:
    """Where the table came from: the cfn-lint version and its schema date; ``spec``
    names the resource specification of the nested "Update requires" paths
    (``scripts/build_spec_table.py``), empty when the region has none."""

    cfn_lint: str
    schema_date: str
    spec: str = ""


@dataclass(frozen=True)
class TypeBehaviour:
    """Update behaviour of one resource type (paths relative to ``/properties``).

    ``*`` in a path stands for every item of an array. ``spec_create_only`` /
    ``spec_conditional_create_only`` are nested paths the CloudFormation resource
    specification (the docs' "Update requires: Replacement" statements) marks
    ``Immutable`` / ``Conditional`` and the registry schema does not list.
    """

    type_name: str
    create_only: tuple[Path, ...] = ()
    conditional_create_only: tuple[Path, ...] = ()
    read_only: tuple[Path, ...] = ()
    write_only: tuple[Path, ...] = ()
    primary_identifier: tuple[Path, ...] = ()
    tag_updatable: bool | None = None
    replacement_strategy: str | None = None
    unordered: frozenset[Path] = frozenset()
    spec_create_only: tuple[Path, ...] = ()
    spec_conditional_create_only: tuple[Path, ...] = ()


def _paths(raw: Any) -> tuple[Path, ...]:
    return tuple(tuple(p.split("/")) for p in raw or ())


def _spec_only(paths: tuple[Path, ...], registry: tuple[Path, ...]) -> tuple[Path, ...]:
    """Spec paths the registry says nothing about (neither the path nor an ancestor)."""
    known = set(registry)
    return tuple(p for p in paths if not any(p[:n] in known for n in range(1, len(p) + 1)))


def _behaviour(type_name: str, raw: dict[str, Any], spec: dict[str, Any] | None) -> TypeBehaviour:
    registry = _paths(raw.get("c")) + _paths(raw.get("cc"))
    spec = spec or {}
    return TypeBehaviour(
        spec_create_only=_spec_only(_paths(spec.get("c")), registry),
        spec_conditional_create_only=_spec_only(_paths(spec.get("cc")), registry),
        type_name=type_name,
        create_only=_paths(raw.get("c")),
        conditional_create_only=_paths(raw.get("cc")),
        read_only=_paths(raw.get("ro")),
        write_only=_paths(raw.get("wo")),
        primary_identifier=_paths(raw.get("pi")),
        tag_updatable=raw.get("tu"),
        replacement_strategy=raw.get("rs"),
        unordered=frozenset(_paths(raw.get("u"))),
    )


class SchemaTable:
    """Update behaviour per resource type for one region.

    ``Custom::*`` types answer with the ``AWS::CloudFormation::CustomResource``
    entry (only ``ServiceToken`` is create-only). Unknown types answer ``None``.
    """

    def __init__(
        self,
        region: str,
        source: TableSource,
        entries: dict[str, Any],
        spec: dict[str, Any] | None = None,
    ) -> None:
        self.region = region
        self.source = source
        self._entries = entries
        self._spec = spec or {}
        self._built: dict[str, TypeBehaviour | None] = {}

    def __contains__(self, type_name: object) -> bool:
        return isinstance(type_name, str) and self.get(type_name) is not None

    def __len__(self) -> int:
        return len(self._entries)

    def type_names(self) -> list[str]:
        return sorted(self._entries)

    def get(self, type_name: str) -> TypeBehaviour | None:
        """The behaviour of ``type_name``, or ``None`` when the table does not know it."""
        if type_name in self._built:
            return self._built[type_name]
        key = CUSTOM_RESOURCE_TYPE if type_name.startswith("Custom::") else type_name
        raw = self._entries.get(key)
        built = None if raw is None else _behaviour(type_name, raw, self._spec.get(key))
        self._built[type_name] = built
        return built


def _read(name: str) -> dict[str, Any]:
    # pkgutil reads through the package's loader (a zip too) without importing
    # importlib.resources (tempfile, zipfile: a few ms of every diff)
    blob = pkgutil.get_data("cfnops.schemas", f"data/{name}")
    if blob is None:  # pragma: no cover - a loader that cannot read data
        raise FileNotFoundError(f"cfnops.schemas: data/{name}")
    data: dict[str, Any] = json.loads(gzip.decompress(blob))
    return data


def available_regions() -> list[str]:
    """Regions the shipped table covers."""
    from importlib import resources

    folder = resources.files("cfnops.schemas").joinpath("data")
    regions = {BASE_REGION}
    for item in folder.iterdir():
        name = item.name
        if name.startswith("overlay-") and name.endswith(".json.gz"):
            regions.add(name[len("overlay-") : -len(".json.gz")])
    return sorted(regions)


@lru_cache(maxsize=8)
def load_table(region: str = BASE_REGION) -> SchemaTable:
    """The table for ``region`` (cached per process).

    Raises :class:`UnknownRegionError` for a region the table does not cover.
    """
    base = _read(f"{BASE_REGION}.json.gz")
    entries: dict[str, Any] = dict(base["types"])
    if region != BASE_REGION:
        try:
            overlay = _read(f"overlay-{region}.json.gz")
        except FileNotFoundError:
            raise UnknownRegionError(region, available_regions()) from None
        for type_name in overlay.get("removed", []):
            entries.pop(type_name, None)
        entries.update(overlay.get("changed", {}))
    src = base.get("source", {})
    spec_types, spec_name = _spec()
    source = TableSource(
        cfn_lint=str(src.get("cfn_lint", "")),
        schema_date=str(src.get("schema_date", "")),
        spec=spec_name,
    )
    return SchemaTable(region, source, entries, spec_types)


def _spec() -> tuple[dict[str, Any], str]:
    """The nested "Update requires" paths of the resource specification, and its name.

    Compiled by ``scripts/build_spec_table.py`` from the us-east-1 specification;
    the nested update behaviour of a property does not vary by region.
    """
    try:
        data = _read(f"spec-{BASE_REGION}.json.gz")
    except FileNotFoundError:
        return {}, ""
    src = data.get("source", {})
    name = (
        f"resource specification {src.get('resourceSpecificationVersion', '?')} "
        f"({src.get('package', '?')} {src.get('version', '?')})"
    )
    return dict(data.get("types", {})), name
