"""The public names of cfnops.cli, pinned (a change here is an API change)."""

from __future__ import annotations

import cfnops.cli


def test_cli_exports_are_pinned() -> None:
    assert sorted(cfnops.cli.__all__) == ["app", "entry", "run"]
    for name in cfnops.cli.__all__:
        assert callable(getattr(cfnops.cli, name)), name
