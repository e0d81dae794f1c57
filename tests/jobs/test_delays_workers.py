"""Two workers, one late run: exactly one delay notification."""

from __future__ import annotations

import select
import signal
import time
from pathlib import Path

import pytest
from tests._runtime import runtime_for
from tests._subprocess import cfnops, wait_for, worker_env

from cfnops.config import load_settings
from cfnops.jobs import JobService, TriggerService
from cfnops.jobs._delays import list_alerts
from cfnops.jobs._starts import monitor_options

pytestmark = pytest.mark.slow
PASS = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}


def test_a_late_scheduled_run_is_notified_once_by_two_workers(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    jobs = JobService(runtime_for(load_settings(database_url=f"sqlite:///{db}")))
    triggers = TriggerService(jobs)
    triggers.add_schedule(
        "late-e2e",
        "late-e2e.asl.json",
        PASS,
        "cron(0 2 * * ? *)",
        "UTC",
        {},
        options=monitor_options(start_grace=30),
    )
    (row,) = jobs.store.list_schedules("schedule")
    assert jobs.store.advance_schedule("late-e2e", row["next_fire"], time.time() - 120)
    env = worker_env(db)
    workers = [cfnops(env, "worker") for _ in range(2)]
    try:
        for w in workers:
            assert w.stdout is not None
            ready, _, _ = select.select([w.stdout], [], [], 90)
            assert ready and w.stdout.readline().startswith("cfnops worker")
        wait_for(
            lambda: any(a["condition"] == "late-start" for a in list_alerts(jobs)),
            timeout=60,
            what="the late-start alert",
        )
        time.sleep(3)  # more ticks of both workers
    finally:
        for w in workers:
            w.send_signal(signal.SIGTERM)
        outputs = [w.communicate(timeout=60) for w in workers]
    assert all(w.returncode == 0 for w in workers), outputs
    (alert,) = list_alerts(jobs)
    assert alert["condition"] == "late-start" and alert["details"]["lateSeconds"] >= 110
    assert jobs.store.get_run(alert["runId"]).status == "SUCCEEDED"
    errs = "".join(err for _, err in outputs)
    assert errs.count(" LATE-START ") == 1, errs  # the console channel's one panel
    assert f"run {alert['runId']} started late" in errs
