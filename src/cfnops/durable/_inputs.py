"""How DBOS records the arguments of ``cfnops.run``, and what a run's values must be
(JSON): shared by the engine, the records and the SDK context."""

from __future__ import annotations

import json
from typing import Any

from cfnops.durable.errors import StepResultNotJson

# Values that are JSON whatever they hold (a float may be NaN or infinite: checked).
_ALWAYS_JSON = frozenset({str, int, bool, type(None)})


def check_json(step: str, value: Any) -> None:
    """:class:`StepResultNotJson` unless ``value`` is JSON (``step`` names the place)."""
    if type(value) in _ALWAYS_JSON:  # every step's hot path: no encoding for a scalar
        return
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StepResultNotJson(step, type(value).__name__, str(exc)) from exc


def run_args(inputs: Any) -> list[Any]:
    """``[workflow name, event]`` from DBOS's recorded inputs of ``cfnops.run``."""
    if isinstance(inputs, dict):
        return list(inputs.get("args") or inputs.get("positionalArgs") or [])
    return []
