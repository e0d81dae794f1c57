"""Offset paging for the sandbox's list APIs: the token is the next item's index."""

from __future__ import annotations

from typing import Any

__all__ = ["page"]


def page(items: list[Any], key: str, token: object, size: int) -> dict[str, Any]:
    """``{key: items from token, at most size}`` plus ``NextToken`` when more remain."""
    start = int(str(token or 0))
    result: dict[str, Any] = {key: items[start : start + size]}
    if start + size < len(items):
        result["NextToken"] = str(start + size)
    return result
