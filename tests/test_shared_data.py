"""The ../shared data the suites read is there: a missing folder fails the run (the
suites that read it would otherwise collect no case and pass on nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.mark.parametrize(
    "folder",
    ["conformance/asl", "conformance/diff", "conformance/durable", "corpus/cfn-templates"],
)
def test_the_shared_data_the_suites_read_is_there(folder: str) -> None:
    found = SHARED / folder
    assert found.is_dir() and any(found.iterdir()), (
        f"{found} is missing or empty: clone the project with ../shared beside it"
    )
