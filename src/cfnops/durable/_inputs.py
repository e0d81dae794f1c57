"""How DBOS records the arguments of ``cfnops.run``, and what a run's values must be
(JSON): shared by the engine, the records and the SDK context."""

from __future__ import annotations

import json
import re
from typing import Any

from cfnops.durable.errors import InvalidRunId, StepResultNotJson

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


_RUN_ID_FORBIDDEN = re.compile(r"[\x00-\x1f\x7f]")


def check_run_id(run_id: str) -> None:
    """Refuse an empty run id, or one with control characters (:class:`InvalidRunId`)."""
    if not run_id or not run_id.strip() or _RUN_ID_FORBIDDEN.search(run_id) or len(run_id) > 200:
        raise InvalidRunId(run_id)
