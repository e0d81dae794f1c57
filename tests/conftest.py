"""Session-wide settings: deterministic Hypothesis in CI, and a safety net so
that a thread a test left waiting cannot hang the run.

Durable runs execute in DBOS's non-daemon executor threads; one left waiting
(an unanswered callback, a long durable sleep) would keep the interpreter
from exiting after every test has passed. After a grace period the process
exits with pytest's status and names the threads it left behind.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# CI (CI=true) draws the same examples every run, so a landing never depends on
# luck; local runs keep exploring new examples. Generating examples is timed on a
# shared 2-core machine: "too slow" says how busy the machine was, not how the code is.
# For the same reason no example has a deadline: its time measures the machine's load.
settings.register_profile("shared", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", settings.get_profile("shared"), derandomize=True, database=None)
settings.load_profile("ci" if os.environ.get("CI") else "shared")

_status: list[int] = []


@pytest.fixture(autouse=True)
def _close_the_tests_databases() -> Any:
    """Handles a test opened through tests/_runtime.py are closed when it ends (autouse
    fixtures are set up first and torn down last, after the test's own fixtures)."""
    from tests._runtime import OPENED, close_opened

    since = len(OPENED)
    yield
    close_opened(since)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _status.append(int(exitstatus))


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    if not _status:
        return
    deadline = time.monotonic() + 10
    while True:
        stuck = [
            t
            for t in threading.enumerate()
            if t is not threading.main_thread() and not t.daemon and t.is_alive()
        ]
        if not stuck or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    if stuck:
        names = ", ".join(sorted(t.name for t in stuck))
        sys.stderr.write(f"\nconftest: exiting past threads still running: {names}\n")
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_status[-1])
