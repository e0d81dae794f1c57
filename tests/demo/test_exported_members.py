"""cfnops.demo exports nothing itself: the CLI imports its modules (a change is an API change)."""

from __future__ import annotations

import cfnops.demo


def test_demo_exports_are_pinned() -> None:
    assert cfnops.demo.__all__ == []
