"""What a run looks like from its history: each state's status, input and output.

A thin name over :func:`cfnops.jobs.derive_status`, the one derivation the CLI
(``job show``, notifications, force checks) and the console share.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from cfnops.jobs._status import StateRun, derive_status

__all__ = ["StateView", "state_views"]

StateView = StateRun


def state_views(
    history: Iterable[Mapping[str, Any]], definition: Mapping[str, Any] | None = None
) -> dict[str, StateView]:
    """One view per state name: top-level states, and nested ones summed over iterations."""
    return derive_status(history, definition).overall
