"""One line per run a worker picks up (recovered or dequeued) and per run it finishes, as
heals already had: the operator watching ``cfnops worker`` sees its work."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime

from cfnops.database import Database
from cfnops.durable import RunRecord, RunStore

__all__ = ["watch_runs"]

_log = logging.getLogger(__name__)
_FINAL = frozenset({"SUCCEEDED", "FAILED", "CANCELLED"})
_POLL_SECONDS = 1.0


def watch_runs(
    database: Database,
    executor_id: str,
    stop: threading.Event,
    say: Callable[[str], None],
    *,
    poll_seconds: float = _POLL_SECONDS,
) -> threading.Thread:
    """A daemon thread saying ``run ID (WORKFLOW): picked up`` and ``…: OUTCOME``.

    It reads runs on ``database``, the worker's own handle (no second pool).
    """
    started = datetime.now(UTC)

    def loop() -> None:
        seen: dict[str, str] = {}
        errors: set[tuple[str, str]] = set()
        store: RunStore | None = None
        try:
            while not stop.wait(poll_seconds):
                try:
                    store = store or RunStore(database)
                    records = store.list_runs(limit=200)
                except Exception as error:  # the database may be away for a while: say so
                    _log_once(error, errors)
                    time.sleep(poll_seconds)
                    continue
                for record in reversed(records):  # oldest first
                    try:
                        _report(record, executor_id, started, seen, say)
                    except Exception as error:  # a line that cannot be said: say why
                        _log_once(error, errors, f"cannot report run {record.run_id}", "going on")
        finally:
            if store is not None:
                store.close()

    thread = threading.Thread(target=loop, name="cfnops-worker-lines", daemon=True)
    thread.start()
    return thread


def _log_once(
    error: Exception,
    errors: set[tuple[str, str]],
    what: str = "cannot list runs",
    then: str = "retrying",
) -> None:
    """Log each distinct error once (a database away for minutes is one line, not one a
    second); the thread keeps polling."""
    text = f"{type(error).__name__}: {error}"
    if (what, text) in errors:
        return
    errors.add((what, text))
    _log.warning("worker run lines: %s (%s); %s", what, text, then)


def _report(
    record: RunRecord,
    executor_id: str,
    started: datetime,
    seen: dict[str, str],
    say: Callable[[str], None],
) -> None:
    if record.executor != executor_id:
        return
    before = seen.get(record.run_id)
    if record.status in _FINAL:
        if before in _FINAL:
            return
        if before is None and (record.updated is None or record.updated < started):
            seen[record.run_id] = record.status  # ended before this worker started
            return
        seen[record.run_id] = record.status
        detail = f": {record.error}" if record.error and record.status != "SUCCEEDED" else ""
        say(f"run {record.run_id} ({record.workflow}): {record.outcome}{detail}")
    elif before is None and record.status == "RUNNING":
        seen[record.run_id] = record.status
        say(f"run {record.run_id} ({record.workflow}): picked up")
