"""What a run looks like from its history: each state's status, input and output."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["StateView", "state_views"]


@dataclass
class StateView:
    """The latest visit of one state (``visits`` counts them all)."""

    name: str
    type: str
    status: str  # RUNNING | SUCCEEDED | FAILED | ABORTED
    input: Any = None
    output: Any = None
    visits: int = 0
    error: str | None = None
    cause: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "status": self.status,
            "input": self.input,
            "output": self.output,
            "visits": self.visits,
            "error": self.error,
            "cause": self.cause,
        }


def _load(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


def state_views(history: Iterable[Mapping[str, Any]]) -> dict[str, StateView]:
    """Fold history events into one :class:`StateView` per state name (in entry order)."""
    views: dict[str, StateView] = {}
    open_by_thread: dict[str, StateView] = {}
    failed: tuple[str | None, str | None] | None = None
    for event in history:
        etype = str(event["type"])
        details = event.get("details") or {}
        if etype.endswith("StateEntered"):
            name = str(details.get("name"))
            view = views.get(name) or StateView(name, etype[: -len("StateEntered")], "RUNNING")
            view.status, view.input, view.output = "RUNNING", _load(details.get("input")), None
            view.error = view.cause = None
            view.visits += 1
            views[name] = view
            open_by_thread[name] = view
        elif etype.endswith("StateExited"):
            name = str(details.get("name"))
            if name in views:
                views[name].status = "SUCCEEDED"
                views[name].output = _load(details.get("output"))
                open_by_thread.pop(name, None)
        elif etype in (
            "TaskFailed",
            "TaskTimedOut",
            "LambdaFunctionFailed",
            "ExecutionFailed",
            "MapIterationFailed",
            "EvaluationFailed",
        ):
            failed = (details.get("error"), details.get("cause"))
        elif etype in ("TaskSucceeded", "LambdaFunctionSucceeded"):
            failed = None
        if etype in ("ExecutionFailed", "ExecutionTimedOut", "ExecutionAborted"):
            status = "ABORTED" if etype == "ExecutionAborted" else "FAILED"
            for view in open_by_thread.values():
                view.status = status
                if failed and status == "FAILED":
                    view.error, view.cause = failed
            open_by_thread.clear()
        if etype == "ExecutionRedriven":
            for view in views.values():
                if view.status in ("FAILED", "ABORTED"):
                    view.status = "RUNNING"
    return views
