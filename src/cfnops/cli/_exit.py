"""Ending the ``cfnops`` process without the interpreter's clean-up sweep.

At exit CPython tears down every module and runs the cyclic garbage collector over
everything the command imported (boto3, DBOS, SQLAlchemy, pydantic): 50-300 ms that
no output depends on. Once the command has returned, this ends the process itself:

1. flush ``stdout``/``stderr`` (everything the command printed reaches the reader);
2. run the ``atexit`` handlers (logging's flush, DBOS's and SQLAlchemy's shutdown,
   temporary-directory removal) exactly as a normal exit would;
3. ``os._exit(code)``.

Only when the main thread is the last one: a non-daemon thread still working (a
durable run in an executor) is waited for by the normal exit path, so no
checkpoint is cut short; ``gc.freeze()`` then still spares the final sweep the
objects that existed when the command finished. Files the command wrote are closed by
the code that wrote them (``with`` blocks); sqlite commits are on disk when they return.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import sys
import threading
from typing import NoReturn


def _others_alive() -> bool:
    main = threading.main_thread()
    return any(t is not main and t.is_alive() and not t.daemon for t in threading.enumerate())


def flush_output() -> None:
    """Deliver what was printed (``stdout``, ``stderr``) before the process ends."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing to keep
            stream.flush()


class LeaveThreads(Exception):
    """Raised by a command to end with ``code`` without waiting for its runs' threads.

    A held heal run waits in ``DBOS.recv`` (up to the approval expiry) and a worker's
    parked executions wait for outcomes other processes record, on threads the
    interpreter would join at exit. Their state is in the database and the next cfnops
    process resumes them. Commands raise this; only the entry point
    (:func:`cfnops.cli.main.run`) ends the process.
    """

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def leave_threads(code: int) -> NoReturn:
    """End with ``code``: at once (:func:`hard_exit`) while other threads still wait
    (see :class:`LeaveThreads`), else as every command ends (:func:`exit_process`)."""
    if _others_alive():
        hard_exit(code)
    exit_process(code)


def hard_exit(code: int) -> NoReturn:
    """End now, without waiting for threads or exit handlers, output delivered.

    With :func:`exit_process`, the only place that calls ``os._exit``: the entry point
    after a command (:class:`LeaveThreads`), a second Ctrl-C, a worker's shutdown
    watchdog. Nothing a command leaves is lost: runs are durable.
    """
    flush_output()
    os._exit(code)


def exit_process(code: int) -> NoReturn:
    """Flush, run the exit handlers, and end the process with ``code``."""
    gc.freeze()  # what exists now is not garbage: the final collections skip it
    if _others_alive():
        sys.exit(code)
    flush_output()
    atexit._run_exitfuncs()
    if _others_alive():  # an exit handler started one: let the normal path wait for it
        sys.exit(code)
    flush_output()
    os._exit(code)
