"""The public surface of ``cfnops.sandbox`` (change it on purpose, not by accident)."""

from __future__ import annotations

import cfnops.sandbox
from cfnops.sandbox import extensions


def test_public_names() -> None:
    assert sorted(cfnops.sandbox.__all__) == [
        "Delays",
        "Sandbox",
        "SandboxError",
        "SandboxState",
        "allow_remote_control",
        "current_state",
        "is_loopback",
        "register_control",
        "register_middleware",
        "reset_all",
    ]
    for name in cfnops.sandbox.__all__:
        assert getattr(cfnops.sandbox, name) is not None


def test_every_extension_module_has_install() -> None:
    import importlib

    for name in extensions.EXTENSIONS:
        module = importlib.import_module(f"cfnops.sandbox.extensions.{name}")
        assert callable(module.install), name
