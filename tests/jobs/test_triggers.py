"""Schedules and event triggers start runs under ``cfnops worker`` (subprocess)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests._runtime import runtime_for

from cfnops.cli.main import run
from cfnops.config import load_settings
from cfnops.jobs import JobService, TriggerService

pytestmark = pytest.mark.slow
ECHO = {"StartAt": "Echo", "States": {"Echo": {"Type": "Pass", "End": True}}}


def _wait_for(predicate: Callable[[], bool], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting for the worker"
        time.sleep(0.1)


def test_schedule_and_event_trigger_start_runs_in_a_worker(
    tmp_path: Path, sandbox_env: dict[str, str]
) -> None:
    db = tmp_path / "db.sqlite"
    settings = load_settings(database_url=f"sqlite:///{db}")
    triggers = TriggerService(JobService(runtime_for(settings)))
    definition = tmp_path / "echo.asl.json"
    definition.write_text(json.dumps(ECHO))
    added = triggers.add_schedule(
        "nightly", str(definition), ECHO, "cron(0 2 * * ? *)", "Asia/Tokyo", {"from": "schedule"}
    )
    # 02:00 in Tokyo is 17:00 UTC.
    assert datetime.fromisoformat(added["nextFire"]).astimezone(UTC).hour == 17
    triggers.add_event_trigger(
        "on-deploy", str(definition), ECHO, {"source": ["cfnops.test"], "detail": {"app": ["web"]}}
    )
    store = triggers.store
    due = store.list_schedules("schedule")[0]["next_fire"]
    assert store.advance_schedule("nightly", due, time.time() - 1)  # make it due now

    env = {**os.environ, **sandbox_env, "CFNOPS_DATABASE_URL": f"sqlite:///{db}"}
    worker = subprocess.Popen(
        [sys.executable, "-m", "cfnops", "worker"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:

        def runs(source: str) -> list[Any]:
            return [r for r in store.list_runs() if r.source == source]

        _wait_for(lambda: any(r.status == "SUCCEEDED" for r in runs("schedule:nightly")))
        for app_name in ("web", "db"):  # only "web" matches the trigger's pattern
            put = ["events", "put", "--source", "cfnops.test", "--detail-type", "Deployed"]
            assert run([*put, "--detail", json.dumps({"app": app_name})]) == 0
        _wait_for(lambda: any(r.status == "SUCCEEDED" for r in runs("event:on-deploy")))
        time.sleep(2)  # time for a wrong second run to show up
    finally:
        worker.send_signal(signal.SIGTERM)
        _out, err = worker.communicate(timeout=30)
    assert worker.returncode == 0, err
    [scheduled] = runs("schedule:nightly")
    assert scheduled.output == {"from": "schedule"}
    [triggered] = runs("event:on-deploy")
    assert triggered.output["detail"] == {"app": "web"}
    assert triggered.output["source"] == "cfnops.test"
    nxt = store.list_schedules("schedule")[0]["next_fire"]
    assert nxt > time.time() + 60  # moved on to the next 02:00 in Tokyo
    assert triggers.remove("on-deploy") and triggers.entries("event") == []
