"""Running ``cfnops`` in subprocesses that share one database (crash and CLI tests)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path


def worker_env(
    db: Path | str, *, modules: Sequence[str] = (), path: Sequence[Path] = (), **extra: str
) -> dict[str, str]:
    """This environment plus the database, fast worker heartbeats and workflow modules.

    ``db`` is a SQLite file, or a database URL. ``modules`` are imported by
    every cfnops process (``worker.workflow_modules``); ``path`` is put in front
    of ``PYTHONPATH`` so that they can be found.
    """
    env = dict(os.environ)
    env["CFNOPS_DATABASE_URL"] = db if isinstance(db, str) else f"sqlite:///{db}"
    env["CFNOPS_WORKER__HEARTBEAT_SECONDS"] = "0.5"
    env["CFNOPS_WORKER__RECOVERY_INTERVAL_SECONDS"] = "0.5"
    if modules:
        env["CFNOPS_WORKER__WORKFLOW_MODULES"] = json.dumps(list(modules))
    if path:
        env["PYTHONPATH"] = os.pathsep.join([*map(str, path), env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


def cfnops(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    """``python -m cfnops ARGS`` with pipes for its output."""
    return subprocess.Popen(
        [sys.executable, "-m", "cfnops", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(
    predicate: Callable[[], bool], timeout: float = 60, what: str = "the subprocess"
) -> None:
    """Poll ``predicate`` every 50 ms; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
