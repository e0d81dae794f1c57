"""``--log-format json``: every line on stderr is one JSON object.

Log records are formatted by :class:`cfnops.logcontext.JsonFormatter`; what the CLI
writes itself (progress lines, an error report) is written as a record by
:func:`write_record`. Anything else that reaches ``sys.stderr`` — Rich panels of
console notifications, Click's usage errors, a library's ``print`` — passes through
:class:`JsonStderr`, which turns each write of plain text into one record (a Rich
panel stays one record, its lines joined by ``\\n``) and lets lines that already are
JSON objects through unchanged. Records carry the run id and the other fields bound
with :mod:`cfnops.logcontext` in the thread that wrote them.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from datetime import UTC, datetime
from typing import Any, TextIO

from cfnops.logcontext import current

__all__ = ["JsonStderr", "install", "installed", "record_line", "uninstall", "write_record"]

# Rich and Click colour output on a terminal; a record's message is plain text.
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")


def record_line(level: str, logger: str, message: str, **fields: object) -> str:
    """One JSON line with the layout of :class:`~cfnops.logcontext.JsonFormatter`:
    ``time``, ``level``, ``logger``, ``message``, the bound fields, then ``fields``
    (``None`` values left out)."""
    line: dict[str, object] = {
        "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
        "level": level,
        "logger": logger,
        "message": message,
    }
    line.update(current())
    line.update({k: v for k, v in fields.items() if v is not None})
    return json.dumps(line, ensure_ascii=False, default=str) + "\n"


def write_record(level: str, logger: str, message: str, **fields: object) -> None:
    """Write :func:`record_line` to the real stderr (no second look by the wrapper)."""
    stream = sys.stderr
    target = stream.inner if isinstance(stream, JsonStderr) else stream
    target.write(record_line(level, logger, message, **fields))
    target.flush()


def _is_object(line: str) -> bool:
    text = line.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return False
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


class JsonStderr:
    """A text stream in front of stderr: JSON-object lines pass, other text becomes
    records (level ``INFO``, logger ``cfnops.stderr``; blank lines are dropped).

    Text is held until a write ends a line, so a message written in pieces is one
    record; :meth:`flush` writes out a partial line too (nothing is lost at exit).
    """

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner
        self._pending = ""
        self._lock = threading.RLock()

    def write(self, text: str) -> int:
        with self._lock:
            self._pending += text
            if self._pending.endswith("\n"):
                self._emit()
        return len(text)

    def _emit(self) -> None:
        pending, self._pending = self._pending, ""
        block: list[str] = []
        for line in pending.splitlines():
            if _is_object(line):
                self._plain(block)
                block = []
                self.inner.write(line.strip() + "\n")
            else:
                block.append(_ANSI.sub("", line).rstrip())
        self._plain(block)

    def _plain(self, block: list[str]) -> None:
        while block and not block[-1].strip():
            block.pop()
        while block and not block[0].strip():
            block.pop(0)
        if block:
            self.inner.write(record_line("INFO", "cfnops.stderr", "\n".join(block)))

    def flush(self) -> None:
        with self._lock:
            if self._pending:
                self._emit()
            self.inner.flush()

    def isatty(self) -> bool:
        return False  # JSON lines: no live views, no colours, progress as records

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.inner.fileno()

    @property
    def encoding(self) -> str:
        return str(getattr(self.inner, "encoding", "utf-8"))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def installed() -> bool:
    """Whether stderr is in JSON mode now."""
    return isinstance(sys.stderr, JsonStderr)


def install() -> None:
    """Put a :class:`JsonStderr` in front of ``sys.stderr`` (once)."""
    if not installed():
        sys.stderr = JsonStderr(sys.stderr)  # type: ignore[assignment]


def uninstall() -> None:
    """Back to the plain stream (a later command of the same process logs as text)."""
    stream = sys.stderr
    if isinstance(stream, JsonStderr):
        stream.flush()
        sys.stderr = stream.inner
