"""A worker with an event trigger and no AWS region fails at start with one line (exit 2),
instead of logging a traceback every second; failing chores warn once per new error."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from tests._runtime import runtime_for

from cfnops.config import load_settings
from cfnops.jobs._service import JobService


def add_event_trigger(db: Path) -> None:
    jobs = JobService(runtime_for(load_settings(database_url=f"sqlite:///{db}")))
    jobs.store.put_schedule(
        {
            "name": "on-backup",
            "kind": "event",
            "definition": json.dumps(
                {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}
            ),
            "machine_name": "p",
            "expression": json.dumps({"source": ["aws.backup"]}),
            "timezone": "UTC",
            "input": "{}",
            "next_fire": None,
            "options": json.dumps({"queue_url": "http://127.0.0.1:9/q"}),
        }
    )


@pytest.mark.slow
def test_worker_with_a_trigger_and_no_region_fails_at_start(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    add_event_trigger(db)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "CFNOPS_AWS__REGION")
    }
    env.update(CFNOPS_DATABASE_URL=f"sqlite:///{db}", AWS_CONFIG_FILE="/nonexistent")
    done = subprocess.run(
        [sys.executable, "-m", "cfnops", "worker"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "no AWS region configured" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_a_failing_chore_warns_once_per_new_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from cfnops.jobs import _triggers

    calls = {"n": 0}

    def fire_due(self: object) -> None:
        calls["n"] += 1
        raise RuntimeError("queue unreachable")

    stop = threading.Event()
    jobs = JobService(
        runtime_for(load_settings(database_url=f"sqlite:///{tmp_path / 'db.sqlite'}"))
    )
    original = _triggers.TriggerService.fire_due
    _triggers.TriggerService.fire_due = fire_due  # type: ignore[method-assign]
    try:
        with caplog.at_level(logging.WARNING, logger=_triggers.__name__):
            worker = threading.Thread(target=_triggers.run_services, args=(jobs, stop, 0.01))
            worker.start()
            while calls["n"] < 5:
                stop.wait(0.01)
            stop.set()
            worker.join(timeout=10)
    finally:
        _triggers.TriggerService.fire_due = original  # type: ignore[method-assign]
    warnings = [r for r in caplog.records if "fire_due failed" in r.getMessage()]
    assert len(warnings) == 1
    assert warnings[0].exc_info is None  # no traceback at the default verbosity
