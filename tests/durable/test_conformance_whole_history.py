"""The conformance runner compares whole histories: an extra or duplicate event fails.

For each suite, its first requirement's own expected history is played back as
the actual history inside the execution's frame (it matches), then with one
event duplicated and with an extra failed step planted (neither may match).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from conformance.runner import REQUIREMENTS, SUITES, compare_history, load_requirements


def _first_of_each_suite() -> list[Any]:
    assert REQUIREMENTS.is_dir(), f"conformance requirements not found at {REQUIREMENTS}"
    seen: dict[str, Any] = {}
    for req in load_requirements():
        seen.setdefault(req.suite, req)
    assert sorted(seen) == sorted(SUITES)
    return [seen[s] for s in SUITES]


def _literal(value: Any) -> Any:
    """The expectation as an actual history would carry it ('*' and ${…} made concrete)."""
    if isinstance(value, dict):
        return {k: _literal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_literal(v) for v in value]
    if value == "*":
        return "2026-01-01T00:00:00Z"
    if isinstance(value, str) and value.startswith("${/"):
        return None
    return value


def _framed(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    start = {"EventType": "ExecutionStarted", "EventId": 1}
    if str(events[-1]["EventType"]).startswith("Execution"):  # the requirement lists its end
        return [start, *events]
    return [start, *events, {"EventType": "ExecutionSucceeded", "EventId": len(events) + 2}]


def _renumbered(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**e, "EventId": i} for i, e in enumerate(events, 1)]


@pytest.mark.parametrize("req", _first_of_each_suite(), ids=lambda r: r.suite)
def test_extra_or_duplicate_events_fail(req: Any) -> None:
    expected = [e for e in req.doc["ExpectedExecutionHistory"] if "${/" not in str(e)]
    expected = _renumbered([{**e} for e in expected])
    expected = [{**e, "EventId": e["EventId"] + 1} for e in expected]
    actual = _framed(_literal(copy.deepcopy(expected)))
    assert compare_history(expected, actual, {}) is None
    duplicated = _renumbered([actual[0], actual[1], *actual[1:]])
    assert compare_history(expected, duplicated, {}) is not None
    planted = [
        {"EventType": "StepStarted", "SubType": "Step", "Id": "planted"},
        {"EventType": "StepFailed", "SubType": "Step", "Id": "planted"},
    ]
    extra = _renumbered([*actual[:-1], *planted, actual[-1]])
    found = compare_history(expected, extra, {})
    assert found is not None
    if not str(expected[-1]["EventType"]).startswith("Execution"):
        assert "extra: " in found and "StepFailed" in found, found
