"""What a scheduled drift scan costs on top of the scan itself (cfnops only, no AWS).

Each fire is a durable run: the ``scan`` step (replaced here by a synthetic fleet of
``--stacks`` stacks, every tenth drifted, a few flipping each fire), the ``compare``
step (the previous scan's state read from the run database, then compared) and, when
something changed, ``notify`` (no channel configured: nothing leaves). The figure is
the wall time per run — everything but the AWS calls of a real scan — measured at the
start and after ``--runs`` earlier runs are in the database (the previous-run lookup
reads run ids by prefix and inputs only, then one output).

    python benchmarks/drift_schedule.py [--stacks 600] [--runs 200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from cfnops.runtime import Runtime

os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")


def _fleet(stacks: int, fire: int) -> dict[str, Any]:
    state = {}
    for i in range(stacks):
        drifted = i % 10 == 0 or (i % 97 == fire % 97)  # one or two flip each fire
        key = f"1111111111{i % 3:02d}/eu-west-1/stack-{i:04d}"
        state[key] = {
            "status": "DRIFTED" if drifted else "IN_SYNC",
            "drifted": ["Param"] if drifted else [],
        }
    return {
        "state": state,
        "counts": {},
        "coverage": {},
        "seconds": 0.0,
        "throttled": 0,
        "reportDir": None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stacks", type=int, default=600)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()

    from cfnops.builtin_workflows import register_all
    from cfnops.config import load_settings
    from cfnops.durable import Engine
    from cfnops.heal import _scan_watch as watch
    from cfnops.heal import plan_drift_schedules
    from cfnops.heal._scan_watch import DRIFT_SCAN_WORKFLOW, drift_scan_event, drift_scan_run_id

    fires = iter(range(10**9))
    watch._scan_step = lambda rt, config, run_id: _fleet(args.stacks, next(fires))  # type: ignore[assignment]

    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(
            database_url=f"sqlite:///{tmp}/bench.sqlite",
            aws={"region": "eu-west-1"},
            notify={"console": False},
            drift_scan={"schedules": {"bench": {"schedule": "rate(5 minutes)"}}},
        )
        register_all()
        engine = Engine.start_process(Runtime.from_settings(settings))
        (plan,) = plan_drift_schedules(settings)
        start = datetime(2030, 1, 1, tzinfo=UTC)
        times: list[float] = []
        notified = 0
        for n in range(args.runs):
            due = start + timedelta(minutes=5 * n)
            began = time.perf_counter()
            run_id = drift_scan_run_id(plan.name, due)
            engine.start(
                DRIFT_SCAN_WORKFLOW, drift_scan_event(plan.name, plan.config, due), run_id=run_id
            )
            out = engine.result(run_id, timeout=120)
            times.append(time.perf_counter() - began)
            notified += bool(out["appeared"] or out["cleared"] or out["changed"])
        engine.shutdown(grace_seconds=0)

    first, last = times[1:11], times[-10:]
    print(f"{args.runs} scheduled runs of a {args.stacks}-stack fleet (SQLite, no AWS):")
    print(f"  runs 2-11:   median {statistics.median(first) * 1000:.0f} ms per run")
    print(f"  last 10:     median {statistics.median(last) * 1000:.0f} ms per run")
    print(f"  notified:    {notified} of {args.runs} runs (something appeared or cleared)")


if __name__ == "__main__":
    main()
