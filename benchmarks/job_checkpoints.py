"""Cost of a job-net Task's checkpoint on SQLite: first run and replay, wall and CPU time.

A job-net of N sequential Lambda Tasks (a local fake function, no AWS) runs once through
the durable ports (each Task: a lookup of its position, the call, one write), then is
replayed from its checkpoints as recovery does (each Task: one lookup). Every round is a
fresh process; with ``--base-src`` the same script also runs from another checkout's
``src/`` (the base of a change, same venv) in the same interleaved rounds, and the
report prints the medians of both. Figures are printed, never asserted.

    python benchmarks/job_checkpoints.py [--tasks 300] [--rounds 7] [--base-src ../base/src]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cfnops.database import Database

HERE = Path(__file__).resolve()
SRC = HERE.parents[1] / "src"


def measure(tasks: int) -> str:
    """One round in this process: per-Task ms (run wall, replay wall, run CPU, replay CPU)."""
    from cfnops.asl import FakeInvoker
    from cfnops.jobs import JobStore
    from cfnops.jobs._runner import execute_run
    from cfnops.jobs._tables import runs

    states = {
        f"T{i}": {
            "Type": "Task",
            "Resource": "arn:aws:lambda:us-east-1:1:function:f",
            **({"Next": f"T{i + 1}"} if i < tasks - 1 else {"End": True}),
        }
        for i in range(tasks)
    }
    definition = {"StartAt": "T0", "States": states}
    invoker = FakeInvoker({"f": lambda payload, ctx: payload})
    with tempfile.TemporaryDirectory() as tmp:
        store = JobStore(Database.open(f"sqlite:///{Path(tmp) / 'bench.sqlite'}"))
        store.create_run("bench-1", "bench", definition, {"x": 1})
        figures = []
        for replay in (False, True):
            if replay:  # as if the process had died before recording the end
                with store.engine.begin() as conn:
                    conn.execute(
                        runs.update().where(runs.c.run_id == "bench-1").values(status="RUNNING")
                    )
            wall, cpu = time.perf_counter(), time.process_time()
            result = execute_run(store, "bench-1", lambda row: invoker, account="1" * 12)
            figures.append((time.perf_counter() - wall, time.process_time() - cpu))
            assert result.status == "SUCCEEDED", result
    (run_wall, run_cpu), (replay_wall, replay_cpu) = figures
    per = [x / tasks * 1000 for x in (run_wall, replay_wall, run_cpu, replay_cpu)]
    return " ".join(f"{x:.4f}" for x in per)


def _round(src: Path, tasks: int) -> list[float]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run(
        [sys.executable, str(HERE), "--one", "--tasks", str(tasks)],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return [float(x) for x in out.stdout.split()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--base-src", type=Path, help="another checkout's src/ to compare")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(measure(args.tasks))
        return
    sources = {"this checkout": SRC}
    if args.base_src is not None:
        sources["base"] = args.base_src.resolve()
    results: dict[str, list[list[float]]] = {name: [] for name in sources}
    for _ in range(args.rounds):
        for name, src in sources.items():
            results[name].append(_round(src, args.tasks))
    labels = ("run wall", "replay wall", "run CPU", "replay CPU")
    print(f"{args.tasks} sequential Tasks, {args.rounds} interleaved rounds, ms per Task (median):")
    for name, rows in results.items():
        medians = [statistics.median(col) for col in zip(*rows, strict=True)]
        shown = ", ".join(f"{k} {v:.3f}" for k, v in zip(labels, medians, strict=True))
        print(f"  {name:14s} {shown}")


if __name__ == "__main__":
    main()
