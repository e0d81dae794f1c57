"""Load the shared diff conformance fixtures and compare an answer with ``expected``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cfnops.diff import TemplateDiff, to_json
from cfnops.diff._normalise import plain

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
FIXTURES = SHARED / "conformance" / "diff"
CORPUS = SHARED / "corpus" / "cfn-templates"


def fixture_files() -> list[Path]:
    if not FIXTURES.is_dir():
        return []
    return sorted(FIXTURES.glob("*.yaml"))


def load_fixture(path: Path) -> dict[str, Any]:
    from cfnlint.decode import decode_str

    data, matches = decode_str(path.read_text(encoding="utf-8"))
    assert not matches, f"{path.name}: {matches}"
    result: dict[str, Any] = plain(data)
    return result


_SECTIONS = ("outputs", "parameters", "conditions", "mappings", "metadata", "sections")


def mismatches(expected: dict[str, Any], got: TemplateDiff) -> list[str]:
    """Every way ``got`` disagrees with a fixture's ``expected`` block."""
    out: list[str] = []
    if got.difference_count != expected["differenceCount"]:
        out.append(
            f"differenceCount expected {expected['differenceCount']} got {got.difference_count}"
        )
    want_resources: dict[str, Any] = expected.get("resources") or {}
    reported = {r.logical_id: r for r in got.resources}
    for rid, want in want_resources.items():
        have = reported.get(rid)
        if want["impact"] == "NO_CHANGE":
            if have is not None:
                out.append(f"{rid}: expected NO_CHANGE got {have.impact.value}")
            continue
        if have is None:
            out.append(f"{rid}: expected {want['impact']}, not reported")
            continue
        if have.impact.value != want["impact"]:
            out.append(f"{rid}: expected {want['impact']} got {have.impact.value}")
        if "properties" in want:
            want_props = {k: v["impact"] for k, v in (want["properties"] or {}).items()}
            have_props = {p.name: p.impact.value for p in have.properties}
            if want_props != have_props:
                out.append(f"{rid}: properties expected {want_props} got {have_props}")
        want_other = set(want.get("other") or [])
        have_other = {a.name for a in have.other}
        if want_other != have_other:
            out.append(f"{rid}: other expected {sorted(want_other)} got {sorted(have_other)}")
    for rid, have in reported.items():
        if rid not in want_resources:
            out.append(f"{rid}: unexpected {have.impact.value}")
    for key in _SECTIONS:
        want_entries = expected.get(key) or {}
        have_entries = {e.name: e.change.value for e in getattr(got, key)}
        if want_entries != have_entries:
            out.append(f"{key}: expected {want_entries} got {have_entries}")
    out.extend(_security_mismatches(expected, got))
    if "mangled_equivalent" in expected and (
        got.mangled_equivalent != expected["mangled_equivalent"]
    ):
        out.append(f"mangled_equivalent expected {expected['mangled_equivalent']}")
    return out


_STATEMENT_KEYS = {"effect", "actions", "principals", "resources", "condition", "unparseable"}


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _camel_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {_camel(str(k)): _camel_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_camel_keys(v) for v in value]
    return value


def _comparable(items: list[Any]) -> list[str]:
    """Order-insensitive form of a list of statements / rules / policies."""
    out = []
    for item in items:
        if isinstance(item, dict) and ("effect" in item or "unparseable" in item):
            item = {k: v for k, v in item.items() if k in _STATEMENT_KEYS}
        if isinstance(item, dict):
            item = {k: sorted(v, key=repr) if isinstance(v, list) else v for k, v in item.items()}
        out.append(json.dumps(item, sort_keys=True))
    return sorted(out)


def _security_mismatches(expected: dict[str, Any], got: TemplateDiff) -> list[str]:
    """The optional security views: only the keys present in ``expected`` are asserted."""
    out: list[str] = []
    doc = to_json(got)
    for fixture_key, doc_key in (("iam", "iam"), ("security_groups", "securityGroups")):
        for key, want in (expected.get(fixture_key) or {}).items():
            if key.endswith("_count"):
                have: Any = len(doc[doc_key][_camel(key[: -len("_count")])])
                if have != want:
                    out.append(f"{fixture_key}.{key}: expected {want} got {have}")
                continue
            have = doc[doc_key].get(_camel(key))
            if isinstance(want, list):
                if _comparable(_camel_keys(want)) != _comparable(have or []):
                    out.append(f"{fixture_key}.{key}: expected {want} got {have}")
            elif have != want:
                out.append(f"{fixture_key}.{key}: expected {want} got {have}")
    return out


CONFORMANCE: dict[str, bool] = {}


def record(fixture_id: str, passed: bool) -> None:
    """A fixture passes only if every direction it runs in passes."""
    CONFORMANCE[fixture_id] = CONFORMANCE.get(fixture_id, True) and passed
