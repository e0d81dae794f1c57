"""The run's stop/hold watcher: a failing database is logged, never silently ignored."""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest

from cfnops.asl import CancelToken
from cfnops.jobs import _runner


class _Store:
    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    def stop_requested(self, run_id: str) -> bool:
        self.calls += 1
        if self.calls <= self.failures:
            raise RuntimeError("database is locked")
        return self.calls == self.failures + 2  # a stop arrives once it answers again


class _Quiet:
    def refresh(self) -> None: ...

    def flush(self) -> None: ...


def test_persistent_failures_are_logged_and_a_stop_still_arrives(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(_runner, "WATCH_SECONDS", 0.001)
    monkeypatch.setattr(_runner, "PERSISTENT_TICKS", 3)
    store, root, done = _Store(failures=7), CancelToken(), threading.Event()
    quiet: Any = _Quiet()

    def stop_when_cancelled() -> None:
        while not root.cancelled:
            done.wait(0.001)
        done.set()

    ender = threading.Thread(target=stop_when_cancelled)
    ender.start()
    with caplog.at_level(logging.WARNING, logger="cfnops.jobs"):
        _runner._watch(store, "run-1", root, quiet, quiet, done)  # type: ignore[arg-type]
    ender.join(timeout=5)
    messages = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert messages[0] == (
        "WARNING",
        "run run-1: watcher tick failed, retrying: database is locked",
    )
    errors = [m for level, m in messages if level == "ERROR"]
    assert len(errors) == 2  # ticks 3 and 6 of 7 failures in a row
    assert "job stop, hold and skip do not reach this run" in errors[0]
    assert ("WARNING", "run run-1: watcher recovered after 7 failed tick(s)") in messages
    # the watcher's thread has no run bound: each line names its run for JSON logs
    assert {getattr(r, "run_id", None) for r in caplog.records} == {"run-1"}
    assert root.cancelled
