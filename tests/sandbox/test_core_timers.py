"""Delayed work finishes without anyone polling the sandbox."""

from __future__ import annotations

import time

from cfnops.sandbox import Sandbox


def test_a_due_timer_runs_without_a_request(cfnops_sandbox: Sandbox) -> None:
    fired: list[float] = []
    cfnops_sandbox.state.schedule(0.3, lambda: fired.append(time.monotonic()))
    deadline = time.monotonic() + 5
    while not fired:
        assert time.monotonic() < deadline, "the timer never ran"
        time.sleep(0.05)
