"""One way to replace an attribute of a moto class (keeps ruff and mypy both content)."""

from __future__ import annotations

from typing import Any

__all__ = ["replace"]


def replace(owner: Any, name: str, value: Any) -> None:
    """Set ``owner.name`` to ``value`` (a moto method or class attribute being patched)."""
    setattr(owner, name, value)
