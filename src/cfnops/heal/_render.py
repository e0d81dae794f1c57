"""A fleet's drift coverage (pure; the CLI renders reports: ``cli/_drift_markdown.py``)."""

from __future__ import annotations

from collections.abc import Sequence

from cfnops.heal._coverage import Coverage, total
from cfnops.heal._model import StackDriftReport


def fleet_coverage(reports: Sequence[StackDriftReport]) -> Coverage:
    """Every stack's coverage, nested stacks included."""
    return total(r.coverage_with_nested for r in reports)
