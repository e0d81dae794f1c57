"""Local Lambda stand-ins for subprocess tests (imported through worker.workflow_modules)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from cfnops.asl import TaskContext
from cfnops.jobs import register_function


def _mark(log: str, mark: str) -> None:
    with Path(log).open("a") as fh:  # mark, time, and the process that ran it
        fh.write(f"{mark} {time.time()} {os.getpid()}\n")


def _logged(payload: Any, ctx: TaskContext) -> Any:
    _mark(payload["log"], f"{payload['mark']}-start")
    time.sleep(float(payload.get("sleep", 0)))
    _mark(payload["log"], f"{payload['mark']}-end")
    return {"mark": payload["mark"]}


def count(log: str, mark: str) -> int:
    path = Path(log)
    if not path.exists():
        return 0
    return sum(1 for line in path.read_text().splitlines() if line.split()[0] == mark)


def times(log: str, mark: str) -> list[float]:
    path = Path(log)
    lines = path.read_text().splitlines() if path.exists() else []
    return [float(line.split()[1]) for line in lines if line.split()[0] == mark]


register_function("jobs-test-logged", _logged)


def _gated(payload: Any, ctx: TaskContext) -> Any:
    """Fails (as a Lambda runtime error) until the file ``payload["gate"]`` exists."""
    from cfnops.asl import LambdaError

    if not Path(payload["gate"]).exists():
        raise LambdaError("Gate.Closed", '{"errorMessage": "the gate file is missing"}')
    return {"passed": True}


register_function("jobs-test-gated", _gated)
