"""The worker's run-lines thread logs a failing run listing once per distinct error and
keeps polling (it swallowed every error silently)."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, cast

import pytest

import cfnops.worker._run_lines as worker_lines
from cfnops.database import Database


class _FlakyStore:
    """Fails the way a database that is away does, then answers."""

    failures: list[Exception] = []
    answered = threading.Event()
    closed = threading.Event()

    def __init__(self, database: Any) -> None:
        pass

    def list_runs(self, *, limit: int) -> list[Any]:
        if _FlakyStore.failures:
            raise _FlakyStore.failures.pop(0)
        _FlakyStore.answered.set()
        return []

    def close(self) -> None:
        _FlakyStore.closed.set()


def test_run_lines_log_each_distinct_error_once_and_keep_polling(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(worker_lines, "RunStore", _FlakyStore)
    refused = OSError("connection refused")
    monkeypatch.setattr(
        _FlakyStore, "failures", [refused, OSError("connection refused"), KeyError("x")]
    )
    stop = threading.Event()
    lines: list[str] = []
    with caplog.at_level(logging.WARNING, logger="cfnops.worker._run_lines"):
        thread = worker_lines.watch_runs(
            cast(Database, object()), "exec-1", stop, lines.append, poll_seconds=0.01
        )
        deadline = time.monotonic() + 20
        while not _FlakyStore.answered.is_set():
            assert time.monotonic() < deadline, "the thread stopped polling after errors"
            time.sleep(0.01)
        stop.set()
        thread.join(timeout=20)
    assert not thread.is_alive() and _FlakyStore.closed.is_set()
    messages = [r.getMessage() for r in caplog.records if r.name == "cfnops.worker._run_lines"]
    assert messages == [
        "worker run lines: cannot list runs (OSError: connection refused); retrying",
        "worker run lines: cannot list runs (KeyError: 'x'); retrying",
    ]
    assert lines == []
