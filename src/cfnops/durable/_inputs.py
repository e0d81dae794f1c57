"""How DBOS records the arguments of ``cfnops.run`` (shared by engine and records)."""

from __future__ import annotations

from typing import Any


def run_args(inputs: Any) -> list[Any]:
    """``[workflow name, event]`` from DBOS's recorded inputs of ``cfnops.run``."""
    if isinstance(inputs, dict):
        return list(inputs.get("args") or inputs.get("positionalArgs") or [])
    return []
