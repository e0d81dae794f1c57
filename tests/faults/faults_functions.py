"""Local functions for the fault tests (imported by workers through --import / modules).

``faults-effect`` is the side effect whose repeats the tests count: after sleeping
``sleep`` seconds it appends a line ``<mark> <pid> <token>`` to the run's log file. The
token is the Task's idempotency token (the same in every attempt at that Task), as a real
receiver would use to apply an effect once.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
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


def _tracked(payload: Any, ctx: TaskContext) -> Any:
    """An effect that says when it starts and when it has finished, and in which process:
    ``start|end <run> <mark> <pid> <time> <token>`` lines (one ``write`` each, appended)."""
    log = Path(payload["log"])
    mark, run = payload["mark"], payload.get("run", "-")

    def line(what: str) -> None:
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(
                fd,
                f"{what} {run} {mark} {os.getpid()} {time.time():.6f} {ctx.task_token}\n".encode(),
            )
        finally:
            os.close(fd)

    line("start")
    time.sleep(float(payload.get("sleep", 0)))
    line("end")
    return {"mark": mark}


def tracked_chain(log: Path, run: str, tasks: int, sleep: float) -> dict[str, Any]:
    """Pass → ``tasks`` tracked effects one after another → Pass."""
    states: dict[str, Any] = {"Before": {"Type": "Pass", "Next": "T1"}}
    for n in range(1, tasks + 1):
        states[f"T{n}"] = {
            "Type": "Task",
            "Resource": "arn:aws:states:::lambda:invoke",
            "Parameters": {
                "FunctionName": "faults-tracked",
                "Payload": {"log": str(log), "run": run, "mark": f"T{n}", "sleep": sleep},
            },
            "ResultSelector": {"mark.$": "$.Payload.mark"},
            "ResultPath": f"$.t{n}",
            "Next": f"T{n + 1}" if n < tasks else "After",
        }
    states["After"] = {"Type": "Pass", "End": True}
    return {"StartAt": "Before", "States": states}


@dataclass(frozen=True)
class Line:
    what: str
    run: str
    mark: str
    pid: int
    at: float


def read_lines(log: Path) -> list[Line]:
    if not log.exists():
        return []
    found = []
    for text in log.read_text().splitlines():
        parts = text.split()
        if len(parts) >= 5:
            found.append(Line(parts[0], parts[1], parts[2], int(parts[3]), float(parts[4])))
    return found


@dataclass
class Verdict:
    """What an effect log says about exactly-once (see :func:`judge`)."""

    repeated: list[str] = field(default_factory=list)  # a finished effect started again
    doubled: list[str] = field(default_factory=list)  # a run executed by two live pids
    lost: list[str] = field(default_factory=list)  # an expected effect that never finished
    in_flight_again: int = 0  # effects in flight in a killed process, run once more

    def ok(self) -> bool:
        return not (self.repeated or self.doubled or self.lost)


def judge(lines: list[Line], expected: dict[str, list[str]], killed: dict[int, float]) -> Verdict:
    """Exactly-once over an effect log.

    ``expected``: run → marks that must each end; ``killed``: pid → when it was killed
    (SIGKILL). A finished effect must never start again; an effect may start again only
    in another process after the one running it was killed (it was in flight: it may
    even have written its ``end`` line before the kill, but not its checkpoint);
    a run's effects must come from one live process at a time: a second pid may start
    an effect of the run only after every earlier pid of that run was killed.
    """
    verdict = Verdict()
    by_run: dict[str, list[Line]] = {}
    for line in sorted(lines, key=lambda item: item.at):
        by_run.setdefault(line.run, []).append(line)
    for run, marks in expected.items():
        events = by_run.get(run, [])
        ended: dict[str, int] = {}  # mark -> pid that ended it
        owners: list[int] = []
        for line in events:
            if line.what == "start":
                if line.mark in ended:
                    first = ended[line.mark]
                    if killed.get(first, float("inf")) < line.at and first != line.pid:
                        # ended in a process killed before it could record the result:
                        # it was in flight for the engine (at least once, same token)
                        verdict.in_flight_again += 1
                        del ended[line.mark]
                    else:
                        verdict.repeated.append(f"{run}/{line.mark} by pid {line.pid}")
                if owners and owners[-1] != line.pid:
                    earlier = [p for p in owners if p != line.pid]
                    alive = [p for p in earlier if killed.get(p, float("inf")) > line.at]
                    if alive:
                        verdict.doubled.append(f"{run}: pid {line.pid} while {alive} alive")
                    else:
                        verdict.in_flight_again += 1
                if line.pid not in owners:
                    owners.append(line.pid)
                elif owners[-1] != line.pid:
                    owners.remove(line.pid)
                    owners.append(line.pid)
            else:
                if line.mark in ended:
                    verdict.repeated.append(f"{run}/{line.mark} ended twice")
                ended[line.mark] = line.pid
        verdict.lost.extend(f"{run}/{m}" for m in marks if m not in ended)
    return verdict


register_function("faults-effect", _effect)
register_function("faults-tracked", _tracked)
