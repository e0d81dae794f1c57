"""CDK cloud assemblies (``cdk.out``): every stack diffed by its artifact id.

A cloud assembly is a directory with a ``manifest.json`` whose ``artifacts`` map
artifact ids to ``aws:cloudformation:stack`` artifacts (``properties.templateFile``,
``properties.stackName``), ``cdk:asset-manifest`` artifacts (``properties.file``: a
``*.assets.json`` listing each asset's hash and source path) and nested assemblies
(``cdk:cloud-assembly``, one per CDK Stage, ``properties.directoryName``). Reference:
the cloud-assembly schema of the CDK (``@aws-cdk/cloud-assembly-schema``, "manifest").

Nested stacks are ``AWS::CloudFormation::Stack`` resources whose ``Metadata`` names
the template file in the assembly (``aws:asset:path``); they are diffed from those
files, recursively. An asset (Lambda code, a nested template) is referred to by its
content hash (an S3 key ``<hash>.zip`` and the metadata path ``asset.<hash>``): when
the asset's files are the same in both assemblies, or the asset is a nested template
(diffed on its own), the new hash is read as the old one so it is not counted.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from cfnops.diff._load import load_template
from cfnops.diff._model import TemplateDiff
from cfnops.diff.errors import TemplateLoadError

_STACK = "aws:cloudformation:stack"
_ASSETS = "cdk:asset-manifest"
_NESTED_ASSEMBLY = "cdk:cloud-assembly"
_NESTED_STACK = "AWS::CloudFormation::Stack"
_ASSET_PATH = "aws:asset:path"
_HASH = re.compile(r"[0-9a-f]{64}")


class StackChange(StrEnum):
    """How a stack differs between two assemblies."""

    ADDED = "ADDED"
    REMOVED = "REMOVED"
    MODIFIED = "MODIFIED"
    UNCHANGED = "UNCHANGED"


@dataclass(frozen=True)
class StackArtifact:
    """One stack of an assembly: its artifact id, stack name and template file."""

    artifact_id: str
    stack_name: str
    template_file: Path


@dataclass(frozen=True)
class Assembly:
    """A loaded cloud assembly: its stacks by artifact id and its assets by hash."""

    directory: Path
    stacks: Mapping[str, StackArtifact]
    asset_paths: Mapping[str, str] = field(default_factory=dict)  # source path → hash

    def stack(self, name: str) -> StackArtifact | None:
        """The artifact with this id, or else the one deploying a stack of this name."""
        found = self.stacks.get(name)
        if found is not None:
            return found
        return next((s for s in self.stacks.values() if s.stack_name == name), None)


@dataclass(frozen=True)
class StackDiff:
    """One stack's difference; ``nested`` holds its nested stacks' (by logical id)."""

    artifact_id: str
    stack_name: str
    change: StackChange
    diff: TemplateDiff
    template_file: str
    nested: tuple[StackDiff, ...] = ()

    @property
    def is_empty(self) -> bool:
        return self.diff.is_empty and all(n.is_empty for n in self.nested)

    def walk(self) -> list[StackDiff]:
        """This stack and its nested stacks, depth first."""
        out = [self]
        for child in self.nested:
            out.extend(child.walk())
        return out


@dataclass(frozen=True)
class AssemblyDiff:
    """Every stack of two assemblies, in artifact-id order."""

    stacks: tuple[StackDiff, ...]

    def walk(self) -> list[StackDiff]:
        return [s for top in self.stacks for s in top.walk()]

    @property
    def difference_count(self) -> int:
        return sum(s.diff.difference_count for s in self.walk())


def is_assembly(path: str | Path) -> bool:
    """True for a directory holding a ``manifest.json`` (a CDK cloud assembly)."""
    p = Path(path)
    return p.is_dir() and (p / "manifest.json").is_file()


def _manifest(directory: Path) -> dict[str, Any]:
    source = directory / "manifest.json"
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TemplateLoadError(
            str(source), f"not a readable cloud assembly manifest: {exc}"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("artifacts", {}), dict):
        raise TemplateLoadError(
            str(source),
            "not a cloud assembly manifest: expected an object with an 'artifacts' object",
            hint="point at the cdk.out directory that `cdk synth` writes",
        )
    return data


def _asset_hashes(directory: Path, file_name: str) -> dict[str, str]:
    try:
        data = json.loads((directory / file_name).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TemplateLoadError(
            str(directory / file_name), f"unreadable asset manifest: {exc}"
        ) from None
    files = data.get("files", {}) if isinstance(data, dict) else {}
    out: dict[str, str] = {}
    for asset_hash, entry in files.items() if isinstance(files, dict) else ():
        path = entry.get("source", {}).get("path") if isinstance(entry, dict) else None
        if isinstance(path, str):
            out[path] = str(asset_hash)
    return out


def load_assembly(path: str | Path, *, _prefix: str = "") -> Assembly:
    """Read ``manifest.json`` (and nested Stage assemblies) of a ``cdk.out`` directory."""
    directory = Path(path)
    manifest = _manifest(directory)
    stacks: dict[str, StackArtifact] = {}
    assets: dict[str, str] = {}
    for artifact_id, artifact in sorted(manifest.get("artifacts", {}).items()):
        if not isinstance(artifact, dict):
            continue
        kind = artifact.get("type")
        props = artifact.get("properties") or {}
        if kind == _STACK:
            template = props.get("templateFile")
            if not isinstance(template, str):
                raise TemplateLoadError(
                    str(directory / "manifest.json"),
                    f"stack artifact {artifact_id!r} has no properties.templateFile",
                )
            name = str(props.get("stackName") or artifact_id)
            full_id = _prefix + artifact_id
            stacks[full_id] = StackArtifact(full_id, name, directory / template)
        elif kind == _ASSETS and isinstance(props.get("file"), str):
            assets.update(_asset_hashes(directory, props["file"]))
        elif kind == _NESTED_ASSEMBLY and isinstance(props.get("directoryName"), str):
            inner = load_assembly(directory / props["directoryName"], _prefix=f"{artifact_id}/")
            stacks.update(inner.stacks)
            assets.update(
                {str(Path(props["directoryName"]) / k): v for k, v in inner.asset_paths.items()}
            )
    return Assembly(directory, stacks, assets)


def _digest(path: Path) -> str | None:
    """A hash of a file's bytes or a directory's relative paths and bytes (None: missing)."""
    if path.is_file():
        return hashlib.sha256(path.read_bytes()).hexdigest()
    if not path.is_dir():
        return None
    sha = hashlib.sha256()
    for item in sorted(p for p in path.rglob("*") if p.is_file()):
        sha.update(str(item.relative_to(path)).encode() + b"\0")
        sha.update(hashlib.sha256(item.read_bytes()).digest())
    return sha.hexdigest()


def _hash_of(assembly: Assembly, template_dir: Path, asset_path: str) -> str | None:
    rel = (template_dir / asset_path).relative_to(assembly.directory).as_posix()
    found = assembly.asset_paths.get(rel) or assembly.asset_paths.get(asset_path)
    if found:
        return found
    match = _HASH.search(asset_path)
    return match.group(0) if match else None


def _replace_strings(value: Any, old: str, new: str) -> Any:
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, list):
        return [_replace_strings(v, old, new) for v in value]
    if isinstance(value, dict):
        return {k: _replace_strings(v, old, new) for k, v in value.items()}
    return value


def _asset_path(resource: Any) -> str | None:
    meta = resource.get("Metadata") if isinstance(resource, dict) else None
    path = meta.get(_ASSET_PATH) if isinstance(meta, dict) else None
    return path if isinstance(path, str) else None


def _unchanged_assets(
    old_t: dict[str, Any], new_t: dict[str, Any], old_a: Assembly, new_a: Assembly, where: Path
) -> tuple[dict[str, Any], dict[str, tuple[str, str]]]:
    """``new_t`` with same-content asset hashes read as the old ones; nested templates found."""
    old_res = old_t.get("Resources") or {}
    new_res = dict(new_t.get("Resources") or {})
    nested: dict[str, tuple[str, str]] = {}
    old_where = old_a.directory / where.relative_to(new_a.directory)
    for logical_id, res in new_res.items():
        new_path, old_path = _asset_path(res), _asset_path(old_res.get(logical_id))
        if new_path is None or old_path is None:
            continue
        is_nested = isinstance(res, dict) and res.get("Type") == _NESTED_STACK
        if is_nested:
            nested[logical_id] = (old_path, new_path)
        same = is_nested or _digest(old_where / old_path) == _digest(where / new_path)
        new_hash = _hash_of(new_a, where, new_path)
        old_hash = _hash_of(old_a, old_where, old_path)
        if same and new_hash and old_hash and new_hash != old_hash:
            res = _replace_strings(res, new_hash, old_hash)
        if same and new_path != old_path:
            res = _replace_strings(res, new_path, old_path)
        new_res[logical_id] = res
    return {**new_t, "Resources": new_res}, nested


DiffFn = Callable[[dict[str, Any], dict[str, Any]], TemplateDiff]


def _without_asset_metadata(template: Any) -> Any:
    """The template without the CDK's ``aws:asset:*`` resource metadata: a new asset
    changes it together with the property that deploys the asset (``Code``,
    ``TemplateURL``), and that property's change is the one worth showing."""
    resources = template.get("Resources") if isinstance(template, dict) else None
    if not isinstance(resources, dict):
        return template
    out = dict(template)
    out["Resources"] = {}
    for logical_id, resource in resources.items():
        meta = resource.get("Metadata") if isinstance(resource, dict) else None
        if isinstance(meta, dict) and any(str(k).startswith("aws:asset:") for k in meta):
            kept = {k: v for k, v in meta.items() if not str(k).startswith("aws:asset:")}
            resource = {k: v for k, v in resource.items() if k != "Metadata"}
            if kept:
                resource["Metadata"] = kept
        out["Resources"][logical_id] = resource
    return out


def _stack_diff(
    artifact_id: str,
    stack_name: str,
    old_file: Path | None,
    new_file: Path | None,
    old_a: Assembly,
    new_a: Assembly,
    diff_fn: DiffFn,
    depth: int = 0,
) -> StackDiff:
    old_t = load_template(old_file) if old_file else {}
    new_t = load_template(new_file) if new_file else {}
    nested_files: dict[str, tuple[str, str]] = {}
    if old_file and new_file:
        new_t, nested_files = _unchanged_assets(old_t, new_t, old_a, new_a, new_file.parent)
        change = StackChange.MODIFIED
    else:
        change = StackChange.ADDED if new_file else StackChange.REMOVED
    diff = diff_fn(_without_asset_metadata(old_t), _without_asset_metadata(new_t))
    if change is StackChange.MODIFIED and diff.is_empty:
        change = StackChange.UNCHANGED
    children: list[StackDiff] = []
    if depth < 16:  # a nested stack is at most a few levels deep; a loop stops here
        for logical_id, (old_path, new_path) in sorted(nested_files.items()):
            assert old_file is not None and new_file is not None
            child = _stack_diff(
                f"{artifact_id}/{logical_id}",
                logical_id,
                old_file.parent / old_path,
                new_file.parent / new_path,
                old_a,
                new_a,
                diff_fn,
                depth + 1,
            )
            children.append(child)
    if change is StackChange.UNCHANGED and any(not c.is_empty for c in children):
        change = StackChange.MODIFIED
    shown = new_file or old_file
    return StackDiff(
        artifact_id, stack_name, change, diff, str(shown) if shown else "", tuple(children)
    )


def diff_assemblies(old: Assembly, new: Assembly, diff_fn: DiffFn) -> AssemblyDiff:
    """Diff every stack by artifact id (added and removed stacks included), nested stacks
    recursively; ``diff_fn(old_template, new_template)`` does each template pair."""
    out: list[StackDiff] = []
    for artifact_id in sorted(set(old.stacks) | set(new.stacks)):
        o, n = old.stacks.get(artifact_id), new.stacks.get(artifact_id)
        name = (n or o).stack_name  # type: ignore[union-attr]
        out.append(
            _stack_diff(
                artifact_id,
                name,
                o.template_file if o else None,
                n.template_file if n else None,
                old,
                new,
                diff_fn,
            )
        )
    return AssemblyDiff(tuple(out))
