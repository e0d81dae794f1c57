"""``cfnops demo jobnet`` in a subprocess (it starts its own sandbox and engine)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests._runtime import runtime_for

from cfnops.config import load_settings
from cfnops.jobs import JobService

pytestmark = pytest.mark.slow


def test_demo_jobnet_stops_then_starts_the_web_system(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'named.sqlite'}"
    env = {**os.environ, "CFNOPS_DATABASE_URL": url}  # honoured: the runs are recorded there
    for key in ("AWS_ENDPOINT_URL", "AWS_PROFILE"):
        env.pop(key, None)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cfnops",
            "-o",
            "json",
            "demo",
            "jobnet",
            "--delay",
            "0",
            "--wait-seconds",
            "0",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout)
    assert [r["status"] for r in results] == ["SUCCEEDED", "SUCCEEDED"]
    assert "Web system stopped" in results[0]["slack"]
    assert "Web system started" in results[1]["slack"]
    recorded = JobService(runtime_for(load_settings(database_url=url))).store.list_runs(limit=10)
    assert sorted(r.machine_name for r in recorded) == ["webapp-start", "webapp-stop"]
