"""Every fixture of ../shared/conformance/diff, in both directions when symmetric."""

from __future__ import annotations

from pathlib import Path

import pytest
from diff_fixtures import fixture_files, load_fixture, mismatches, record

from cfnops.diff import diff_templates


def _cases() -> list[object]:
    cases: list[object] = []
    for path in fixture_files():
        data = load_fixture(path)
        directions = ["forward", "reverse"] if data.get("symmetric") else ["forward"]
        cases.extend(pytest.param(path, d, id=f"{path.stem}-{d}") for d in directions)
    return cases


@pytest.mark.parametrize(("path", "direction"), _cases())
def test_fixture(path: Path, direction: str) -> None:
    data = load_fixture(path)
    old, new = data["old"], data["new"]
    if direction == "reverse":
        old, new = new, old
    features = set(data.get("features") or [])
    result = diff_templates(old, new, expand_foreach="foreach-expansion" in features)
    problems = mismatches(data["expected"], result)
    record(data["id"], not problems)
    assert not problems, "\n".join(problems)
