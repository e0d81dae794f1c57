"""How DBOS records the arguments of ``cfnops.run``, and what a run's values must be
(JSON): shared by the engine, the records and the SDK context."""

from __future__ import annotations

import json
from typing import Any

from cfnops.durable.errors import StepResultNotJson


def check_json(step: str, value: Any) -> None:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StepResultNotJson(step, type(value).__name__, str(exc)) from exc


def run_args(inputs: Any) -> list[Any]:
    """``[workflow name, event]`` from DBOS's recorded inputs of ``cfnops.run``."""
    if isinstance(inputs, dict):
        return list(inputs.get("args") or inputs.get("positionalArgs") or [])
    return []
