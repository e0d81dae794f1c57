"""Local functions for the fault tests (imported by workers through --import / modules).

``faults-effect`` is the side effect whose repeats the tests count: after sleeping
``sleep`` seconds it appends a line ``<mark> <pid> <token>`` to the run's log file. The
token is the Task's idempotency token (the same in every attempt at that Task), as a real
receiver would use to apply an effect once.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from cfnops.asl import TaskContext
from cfnops.jobs import register_function


def _effect(payload: Any, ctx: TaskContext) -> Any:
    time.sleep(float(payload.get("sleep", 0)))
    with Path(payload["log"]).open("a") as fh:
        fh.write(f"{payload['mark']} {os.getpid()} {ctx.task_token}\n")
    return {"mark": payload["mark"]}


def attempts(log: Path, mark: str) -> list[tuple[int, str]]:
    """(pid, idempotency token) of each time the side effect ``mark`` was carried out."""
    if not log.exists():
        return []
    lines = [line.split() for line in log.read_text().splitlines()]
    return [(int(pid), token) for found, pid, token in lines if found == mark]


def effects(log: Path, mark: str) -> int:
    """How many times the side effect ``mark`` was carried out."""
    return len(attempts(log, mark))


def three_states(log: Path, sleep: float) -> dict[str, Any]:
    """Pass → Task (the side effect, ``sleep`` s) → Pass."""
    return {
        "StartAt": "Before",
        "States": {
            "Before": {"Type": "Pass", "Next": "Effect"},
            "Effect": {
                "Type": "Task",
                "Resource": "arn:aws:states:::lambda:invoke",
                "Parameters": {
                    "FunctionName": "faults-effect",
                    "Payload": {"log": str(log), "mark": "effect", "sleep": sleep},
                },
                "ResultSelector": {"mark.$": "$.Payload.mark"},
                "Next": "After",
            },
            "After": {"Type": "Pass", "End": True},
        },
    }


register_function("faults-effect", _effect)
