"""Task results for the data-flow check: declared per state, else unknown (pure).

A declared result is a sample value; ``{"cfnops:samples": [r1, r2]}`` declares several,
each walked. A state inside a Map or Parallel may be named by its path (``Map/Inner``).
Subclasses may sample undeclared results (``cfnops.jobs`` does, from AWS service models).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cfnops.asl._flowcheck_model import Unknown

__all__ = ["SAMPLES_KEY", "DeclaredResults"]

SAMPLES_KEY = "cfnops:samples"


class DeclaredResults:
    """Sample results per state name (or path); anything else is :class:`Unknown`."""

    def __init__(self, declared: Mapping[str, Any] | None = None) -> None:
        self.declared = dict(declared or {})
        self.used: set[str] = set()

    def sample(self, resource: Any) -> tuple[str, Any] | None:
        """(where it comes from, a result) for an undeclared Task; None: unknown."""
        return None

    def results(self, path: str, name: str, resource: Any) -> tuple[str, list[Any]]:
        """(where the results come from, the sample results) for the Task at ``path``."""
        for key in (path, name):
            if key in self.declared:
                self.used.add(key)
                value = self.declared[key]
                if isinstance(value, Mapping) and set(value) == {SAMPLES_KEY}:
                    samples = value[SAMPLES_KEY]
                    return "declared", list(samples) if isinstance(samples, list) else [samples]
                return "declared", [value]
        sampled = self.sample(resource)
        if sampled is not None:
            return sampled[0], [sampled[1]]
        origin = f"the result of Task {path}, which is not declared"
        return "unknown (declare it with --task-results)", [Unknown(origin)]

    def unused(self) -> list[str]:
        return sorted(set(self.declared) - self.used)
