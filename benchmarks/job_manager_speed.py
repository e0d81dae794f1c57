"""Costs of the job-manager features: the data-flow check, calendar rules, pool slots.

- ``job check`` on the example job-nets (every path walked, AWS-model samples);
- 1,000 fire times of a calendar schedule per day rule (Tokyo, weekends and holidays);
- acquire + release of a pool slot on SQLite (one transaction each).

    python benchmarks/job_manager_speed.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from cfnops.database import Database
from cfnops.jobs import JobStore, check_dataflow
from cfnops.jobs._calendar import Calendar, CalendarSchedule, parse_day_rule
from cfnops.jobs._pools import PoolStore
from cfnops.schedules import parse_schedule

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "jobnets"


def _best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        fn()
        times.append(time.perf_counter() - began)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat

    for name in ("webapp-stop", "webapp-start"):
        definition = json.loads((EXAMPLES / f"{name}.asl.json").read_text())
        sample = json.loads((EXAMPLES / f"{name}.input.json").read_text())
        report = check_dataflow(definition, sample)
        took = _best(lambda d=definition, s=sample: check_dataflow(d, s), repeat)
        states = len(report.states)
        print(f"job check {name}: {states} states, {took * 1000:.1f} ms (best of {repeat})")

    holidays = [date(2026, 1, 1) + timedelta(days=d) for d in range(0, 3650, 37)]
    cal = Calendar("bench", frozenset({5, 6}), frozenset(holidays))
    for rule in ("open", "next-open", "previous-open", "nth-open:3", "last-open"):
        sched = CalendarSchedule(
            parse_schedule("cron(0 9 * * ? *)", "Asia/Tokyo"), cal, parse_day_rule(rule)
        )

        def fires(s: CalendarSchedule = sched) -> None:
            at = datetime(2026, 1, 1, tzinfo=UTC)
            for _ in range(1000):
                at = s.next_after(at)

        took = _best(fires, repeat)
        print(
            f"calendar {rule:>13}: 1,000 fire times in {took * 1000:.0f} ms "
            f"({took * 1e6 / 1000:.0f} µs each)"
        )

    with tempfile.TemporaryDirectory() as tmp:
        store = JobStore(Database.open(f"sqlite:///{tmp}/bench.sqlite"))
        store.create_run("bench-run", "bench", {"StartAt": "P", "States": {}}, {})
        pools = PoolStore(store.engine)
        pools.set("bench", 3)
        samples = []
        for i in range(200):
            began = time.perf_counter()
            pools.try_acquire("bench", "bench-run", f"T#{i}")
            pools.release("bench", "bench-run", f"T#{i}")
            samples.append(time.perf_counter() - began)
        print(
            f"pool slot acquire+release (SQLite): median {statistics.median(samples) * 1000:.2f} ms"
        )


if __name__ == "__main__":
    main()
