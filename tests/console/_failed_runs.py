"""Record failed job runs: ``python _failed_runs.py DB COUNT PREFIX`` (a subprocess: DBOS is
one per process). Each run is a real execution of a one-state job-net that fails."""

from __future__ import annotations

import sys

from cfnops.config import load_settings
from cfnops.durable import Engine
from cfnops.jobs import JobService
from cfnops.runtime import Runtime

FAILING = {
    "Comment": "fails at once, as after an incident",
    "StartAt": "CallDatabase",
    "States": {
        "CallDatabase": {"Type": "Fail", "Error": "Db.Down", "Cause": "the database is down"}
    },
}


def main(db: str, count: int, prefix: str) -> int:
    settings = load_settings(database_url=f"sqlite:///{db}")
    engine = Engine.start_process(Runtime.from_settings(settings))
    try:
        jobs = JobService(engine.runtime)
        for i in range(count):
            run_id = f"{prefix}-{i:02d}"
            jobs.start(FAILING, {"n": i}, machine_name="nightly-load", name=run_id)
            status = jobs.wait(run_id, timeout=60).status
            assert status == "FAILED", (run_id, status)
    finally:
        engine.shutdown(grace_seconds=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
