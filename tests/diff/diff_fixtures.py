"""Load the shared diff conformance fixtures and compare an answer with ``expected``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cfnops.diff import TemplateDiff
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
    if "mangled_equivalent" in expected and (
        got.mangled_equivalent != expected["mangled_equivalent"]
    ):
        out.append(f"mangled_equivalent expected {expected['mangled_equivalent']}")
    return out


CONFORMANCE: dict[str, bool] = {}


def record(fixture_id: str, passed: bool) -> None:
    """A fixture passes only if every direction it runs in passes."""
    CONFORMANCE[fixture_id] = CONFORMANCE.get(fixture_id, True) and passed
