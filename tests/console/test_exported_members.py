"""The public names of cfnops.console, pinned (a change here is an API change)."""

from __future__ import annotations

import cfnops.console


def test_console_exports_are_pinned() -> None:
    assert sorted(cfnops.console.__all__) == [
        "Auth",
        "BadFilter",
        "BadTokenFile",
        "ConsoleError",
        "Forbidden",
        "NotFound",
        "Principal",
        "ROLES",
        "Role",
        "RunFinished",
        "TokenRequired",
        "create_app",
        "is_loopback",
        "read_token_file",
        "require_role",
    ]
    assert len(set(cfnops.console.__all__)) == len(cfnops.console.__all__)


def test_console_exports_resolve() -> None:
    for name in cfnops.console.__all__:
        assert getattr(cfnops.console, name) is not None, name
