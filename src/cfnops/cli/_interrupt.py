"""Ctrl-C and SIGTERM for every command: stop waiting at once, say what became of the run.

The first SIGINT (or SIGTERM) hands over to a thread that, within a second, reports
each run this process started and is still running — left RUNNING (a worker, or
the next command, resumes it once this process's lease expires) or cancelled,
as ``on_interrupt`` says (``CFNOPS_ON_INTERRUPT`` / ``on_interrupt`` in
cfnops.toml; default ``leave``) — and exits with 130 without a traceback. Leaving
a run is what ``kill -9`` does: every checkpoint is already committed, so nothing
is lost and no finished step runs again. A second signal exits at once.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

from cfnops.cli._exit import flush_output, hard_exit

__all__ = ["EXIT_INTERRUPTED", "at_interrupt", "exit_code", "forget", "install"]

EXIT_INTERRUPTED = 130
_DEADLINE_SECONDS = 1.5  # the report gives up and exits by then, whatever it was doing
_JOB_WORKFLOW = "cfnops.jobs.execution"
_started = threading.Event()
_code = EXIT_INTERRUPTED
_cleanups: list[Callable[[], object]] = []  # this process's, run once before the exit


def at_interrupt(cleanup: Callable[[], object]) -> Callable[[], object]:
    """Run ``cleanup`` (best effort, within the exit deadline) if a signal ends the command:
    a temporary folder the command would have removed on its way out, for example."""
    _cleanups.append(cleanup)
    return cleanup


def forget(cleanup: Callable[[], object]) -> None:
    """The command got past the point where ``cleanup`` was needed."""
    with contextlib.suppress(ValueError):
        _cleanups.remove(cleanup)


def install() -> None:
    """Handle SIGINT and SIGTERM in the main thread from now on (idempotent)."""
    if threading.current_thread() is not threading.main_thread():
        return
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)


def exit_code(signum: int) -> int:
    """The shell's convention: 128 + the signal number (130 for Ctrl-C, 143 for SIGTERM)."""
    return 128 + int(signum)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    global _code
    if _started.is_set():  # the second signal: no more reporting
        hard_exit(exit_code(signum))
    _code = exit_code(signum)
    _started.set()
    threading.Thread(target=_report_and_exit, args=(signum,), name="cfnops-interrupt").start()


def _report_and_exit(signum: int) -> None:
    timer = threading.Timer(_DEADLINE_SECONDS, _hard_exit)
    timer.daemon = True
    timer.start()
    name = "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name
    lines = [f"interrupted ({name})"]
    try:
        lines += _runs_report()
    except Exception as exc:  # the report is best effort: the exit is not
        lines.append(f"  (could not read the run states: {exc})")
    _write("\n".join(lines))
    for cleanup in list(_cleanups):
        with contextlib.suppress(Exception):
            cleanup()
    _hard_exit()


def _runs_report() -> list[str]:
    engine = _engine()
    if engine is None:
        return []
    mode = str(getattr(engine.settings, "on_interrupt", "leave"))
    lines: list[str] = []
    for run_id, workflow in list(engine.started.items()):
        status = engine.status(run_id)
        if status not in ("PENDING", "ENQUEUED"):
            continue
        stop = (
            f"cfnops job stop {run_id}"
            if workflow == _JOB_WORKFLOW
            else f"cfnops runs cancel {run_id}"
        )
        if mode == "cancel":
            if workflow == _JOB_WORKFLOW:  # a job-net stops through its own store (ABORTED)
                from cfnops.jobs import JobService

                jobs = JobService(engine.runtime)
                jobs.stop(run_id)
                # This process still executes it: give the stop a moment to land.
                deadline = time.monotonic() + 1.0
                while jobs.store.get_run(run_id).status == "RUNNING":
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.05)
                status = jobs.store.get_run(run_id).status
                lines.append(f"  job run {run_id} stopped: {status} (on_interrupt = cancel)")
            else:
                engine.cancel(run_id)
                lines.append(f"  run {run_id} cancelled (on_interrupt = cancel)")
        else:
            lines.append(
                f"  run {run_id} left RUNNING: a worker ('cfnops worker') or the next "
                f"command resumes it once this process's lease expires; '{stop}' stops it"
            )
    return lines


def _engine() -> Any:
    durable = sys.modules.get("cfnops.durable")  # never import the engine just to report
    engine_class = getattr(durable, "Engine", None)  # None while still being imported
    return None if engine_class is None else engine_class.current()


def _write(text: str) -> None:
    with contextlib.suppress(Exception):
        sys.stderr.write(text + "\n")
    flush_output()


def _hard_exit() -> None:
    hard_exit(_code)
