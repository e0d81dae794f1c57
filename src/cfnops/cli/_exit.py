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


def hard_exit(code: int) -> NoReturn:
    """End now, without waiting for threads or exit handlers, output delivered."""
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
