"""Logging for CLI commands: one line per problem by default, tracebacks with ``-vv``.

Libraries underneath log exceptions with their tracebacks (DBOS logs "Exception
encountered in background workflow" with ``exc_info`` on its own ``dbos`` logger and
handler). In a user's terminal a failure is one clear line: the message, then the
exception's type and text. ``-vv`` (debug) keeps every traceback.
"""

from __future__ import annotations

import copy
import logging
import sys

from cfnops.cli import _json_stderr
from cfnops.logcontext import JsonFormatter

__all__ = ["LOG_FORMATS", "JsonFormatter", "OneLineFormatter", "configure_logging"]

LOG_FORMATS = ("text", "json")

_FORMAT = "%(levelname)s %(name)s: %(message)s"
# DBOS keeps (and reconfigures) the handler with this name instead of adding its own.
_DBOS_HANDLER = "__dbos_console_log_handler__"


class OneLineFormatter(logging.Formatter):
    """A record's message on one line; an exception as `` (Type: text)``, no traceback."""

    def format(self, record: logging.LogRecord) -> str:
        exc = record.exc_info
        plain = copy.copy(record)
        plain.exc_info, plain.exc_text, plain.stack_info = None, None, None
        text = super().format(plain)
        if exc and exc[1] is not None:
            detail = " ".join(str(exc[1]).split())
            what = f"{type(exc[1]).__name__}: {detail}" if detail else type(exc[1]).__name__
            text = f"{text.rstrip(':')} ({what})"
        run_id = getattr(record, "run_id", None)  # set by extra= or on DBOS's lines about a run
        if run_id and str(run_id) not in text:
            text = f"{text} [run {run_id}]"
        return " ".join(text.splitlines())


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is when a record is emitted (never a stale one)."""

    @property  # type: ignore[override]
    def stream(self) -> object:
        return sys.stderr

    @stream.setter
    def stream(self, _value: object) -> None:
        pass


def configure_logging(verbose: int, log_format: str = "text") -> None:
    """Warnings by default, ``-v`` info, ``-vv`` debug with full tracebacks; ``json``:
    one JSON object per line (:class:`JsonFormatter`) on stderr, and every other line
    written to stderr turned into one too (:mod:`cfnops.cli._json_stderr`).

    Applies to the root logger and to DBOS's logger (which does not propagate).
    """
    level = logging.WARNING - 10 * min(verbose, 2)
    formatter: logging.Formatter
    if log_format == "json":
        _json_stderr.install()
    else:
        _json_stderr.uninstall()
    if log_format == "json":
        formatter = JsonFormatter(tracebacks=verbose >= 2)
    elif verbose >= 2:
        formatter = logging.Formatter(_FORMAT)
    else:
        formatter = OneLineFormatter(_FORMAT)
    handler = _StderrHandler()
    handler.setFormatter(formatter)
    root = logging.getLogger()
    for old in list(root.handlers):
        if isinstance(old, _StderrHandler):  # ours, from an earlier command in this process
            root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)

    dbos = logging.getLogger("dbos")
    dbos.propagate = False
    for old in list(dbos.handlers):
        if old.name == _DBOS_HANDLER:
            dbos.removeHandler(old)
    dbos_handler = _StderrHandler()
    dbos_handler.name = _DBOS_HANDLER
    dbos_handler.setFormatter(formatter)
    dbos.addHandler(dbos_handler)
