"""The worker's run-lines thread logs a failing run listing, and a line it cannot say,
once per distinct error and keeps polling (it swallowed every listing error silently,
then died on the first line it could not say)."""

from __future__ import annotations

import logging
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import pytest

import cfnops.worker._run_lines as worker_lines
from cfnops.database import Database
from cfnops.durable import RunRecord


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


def _running(run_id: str) -> RunRecord:
    now = datetime.now(UTC) + timedelta(seconds=5)
    return RunRecord(run_id, "wf", "RUNNING", None, None, None, now, now, None, "exec-1", "cfnops")


class _TwoRuns:
    """Two runs of this worker, newest first (as list_runs returns them)."""

    def __init__(self, database: Any) -> None:
        pass

    def list_runs(self, *, limit: int) -> list[RunRecord]:
        return [_running("run-2"), _running("run-1")]

    def close(self) -> None:
        pass


def test_a_line_that_cannot_be_said_is_logged_with_its_run_and_the_thread_goes_on(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The thread used to die on the first failing line (a closed or non-UTF-8 stdout)."""
    monkeypatch.setattr(worker_lines, "RunStore", _TwoRuns)
    lines: list[str] = []
    said = threading.Event()

    def say(line: str) -> None:
        if "run-1" in line:
            raise UnicodeEncodeError("ascii", line, 0, 1, "ordinal not in range(128)")
        lines.append(line)
        said.set()

    stop = threading.Event()
    with caplog.at_level(logging.WARNING, logger="cfnops.worker._run_lines"):
        thread = worker_lines.watch_runs(
            cast(Database, object()), "exec-1", stop, say, poll_seconds=0.01
        )
        assert said.wait(timeout=20), "the thread stopped at the line it could not say"
        stop.set()
        thread.join(timeout=20)
    assert not thread.is_alive()
    assert lines == ["run run-2 (wf): picked up"]
    messages = [r.getMessage() for r in caplog.records if r.name == "cfnops.worker._run_lines"]
    assert messages == [
        "worker run lines: cannot report run run-1 (UnicodeEncodeError: 'ascii' codec can't "
        "encode character '\\x72' in position 0: ordinal not in range(128)); going on"
    ]
