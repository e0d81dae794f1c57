"""The public names of cfnops.eventpatterns, pinned (a change here is an API change)."""

from __future__ import annotations

import cfnops.eventpatterns


def test_eventpatterns_exports_are_pinned() -> None:
    assert sorted(cfnops.eventpatterns.__all__) == [
        "InvalidEventPattern",
        "matches",
        "parse_pattern",
        "validate_pattern",
    ]
    assert len(set(cfnops.eventpatterns.__all__)) == len(cfnops.eventpatterns.__all__)


def test_eventpatterns_exports_resolve() -> None:
    for name in cfnops.eventpatterns.__all__:
        assert getattr(cfnops.eventpatterns, name) is not None, name
