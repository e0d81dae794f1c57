"""What a log line is about: run id, workflow, state, step, stack, bound where it is known.

The durable engine binds ``run_id`` and ``workflow`` around a run (the same values
again when a run is recovered after a crash), its context binds ``step``, the ASL
interpreter ``state``; a capability may bind ``stack``. ``--log-format json``
(``cfnops.cli``) puts the bound fields into every JSON line; the text format ignores
them. The fields live in a :class:`contextvars.ContextVar`, so threads and tasks each
see their own: work handed to another thread (a Task's call, a Parallel or Map branch)
takes the caller's fields along through :func:`carry`.

>>> from cfnops.logcontext import bound, current
>>> with bound(run_id="r-1", workflow="cfnops.heal"):
...     current()["run_id"]
'r-1'
>>> current()
{}
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar, Token
from datetime import UTC, datetime
from typing import ParamSpec, TypeVar

__all__ = ["FIELDS", "JsonFormatter", "bind", "bound", "carry", "current", "reset"]

_T = TypeVar("_T")
_P = ParamSpec("_P")

# Attributes a caller may also pass with ``extra=`` that JSON lines carry under these names.
FIELDS = ("run_id", "workflow", "state", "step", "stack")

_EMPTY: Mapping[str, str] = {}
_FIELDS: ContextVar[Mapping[str, str]] = ContextVar("cfnops_log_fields", default=_EMPTY)


def current() -> dict[str, str]:
    """The fields bound here (a copy)."""
    return dict(_FIELDS.get())


def bind(**fields: str | None) -> Token[Mapping[str, str]]:
    """Add fields (``None`` values are left out); undo with :func:`reset`. For hot paths
    (one ASL state) where a ``with`` block's generator would cost more."""
    return _FIELDS.set({**_FIELDS.get(), **{k: v for k, v in fields.items() if v is not None}})


def reset(token: Token[Mapping[str, str]]) -> None:
    """Undo the :func:`bind` that returned ``token``."""
    _FIELDS.reset(token)


@contextmanager
def bound(**fields: str | None) -> Iterator[None]:
    """``with bound(run_id=…):`` the fields, for the block."""
    token = bind(**fields)
    try:
        yield
    finally:
        _FIELDS.reset(token)


def carry(fn: Callable[_P, _T]) -> Callable[_P, _T]:
    """``fn`` with the caller's fields, to run on another thread (which starts with none).

    Only these fields go along, not the whole :mod:`contextvars` context: a copy would
    also hand the thread the engine's workflow context, which is not meant to be shared.
    """
    fields = _FIELDS.get()
    if not fields:
        return fn

    def run(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        token = _FIELDS.set(fields)
        try:
            return fn(*args, **kwargs)
        finally:
            _FIELDS.reset(token)

    return run


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``time`` (UTC, ISO 8601), ``level``, ``logger``,
    ``message``, then the bound fields (``run_id`` / ``workflow`` / ``state`` / ``step`` /
    ``stack``, or the same names passed with ``extra=``), and ``error`` (``"Type: text"``)
    for an exception; ``traceback`` too when ``tracebacks``."""

    def __init__(self, *, tracebacks: bool = False) -> None:
        super().__init__()
        self.tracebacks = tracebacks

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        line.update(_FIELDS.get())
        for name in FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                line[name] = str(value)
        exc = record.exc_info
        if exc and exc[1] is not None:
            line["error"] = f"{type(exc[1]).__name__}: {' '.join(str(exc[1]).split())}"
            if self.tracebacks:
                line["traceback"] = self.formatException(exc)
        return json.dumps(line, ensure_ascii=False, default=str)
