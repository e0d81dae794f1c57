"""The one place where an exception becomes a message and an exit code.

``cfnops.errors.CfnopsError`` carries its own message, hint and exit code. Errors
from the libraries underneath are translated here (and only here) into one line
that says what was wrong, where, and what to do:

- botocore (credentials, endpoint, throttling, access): :func:`cfnops.aws.translate_error`;
- database drivers (SQLAlchemy, ``sqlite3``, ``psycopg``): :func:`cfnops.database.storage_error`
  (unreachable, read-only, full, corrupted, not a database…, naming the file or URL) → exit 2;
- ``UnicodeDecodeError``: a file that is not UTF-8 text (a binary file) → exit 2;
- ``OSError`` with a file name: cannot read or write that file → exit 2.

(Settings errors are :class:`cfnops.config.ConfigError` already, naming the file,
variable or flag.)

Anything else is a defect of cfnops: one line naming the exception, exit 1, and the
traceback only with ``-vv`` (or ``CFNOPS_TRACEBACK=1``).
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence

from cfnops.errors import CfnopsError, ExitCode, UsageError

__all__ = ["as_cfnops", "internal_error", "wants_traceback"]


def as_cfnops(exc: BaseException) -> CfnopsError | None:
    """``exc`` as a :class:`CfnopsError`, or ``None`` when it is not an input/AWS error."""
    if isinstance(exc, CfnopsError):
        return exc
    if type(exc).__module__.startswith("botocore"):
        from cfnops.aws import translate_error

        return translate_error(exc) or CfnopsError(str(exc))  # type: ignore[arg-type]
    if _from_database_driver(exc):
        from cfnops.database import storage_error

        found = storage_error(exc)
        if found is not None:
            return found
    if isinstance(exc, UnicodeDecodeError):
        return UsageError(
            f"input is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
            f"{exc.start}): is it a binary file?",
            hint="pass a JSON or YAML text file",
        )
    if isinstance(exc, OSError) and exc.filename:
        return UsageError(
            f"cannot use {exc.filename}: {exc.strerror or exc}",
            hint="check the path and its permissions",
        )
    return None


_DRIVERS = ("sqlalchemy", "sqlite3", "psycopg", "dbos")


def _from_database_driver(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    for _ in range(8):  # the error, what it wraps, and what it was raised from
        if seen is None:
            return False
        if type(seen).__module__.partition(".")[0] in _DRIVERS or type(seen).__module__ == (
            "_sqlite3"
        ):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def wants_traceback(argv: Sequence[str] | None, environ: dict[str, str]) -> bool:
    """``-vv`` (or more) on the command line, or ``CFNOPS_TRACEBACK=1``."""
    if environ.get("CFNOPS_TRACEBACK", "") not in ("", "0"):
        return True
    count = 0
    for arg in argv or ():
        if arg == "--verbose":
            count += 1
        elif arg.startswith("-") and not arg.startswith("--") and set(arg[1:]) == {"v"}:
            count += len(arg) - 1
    return count >= 2


def internal_error(exc: BaseException, show_traceback: bool) -> tuple[str, int]:
    """The text for an unexpected exception and the exit code (1)."""
    where = ""
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        last = frames[-1]
        where = f" at {last.filename.rsplit('/', 1)[-1]}:{last.lineno}"
    text = f"error: internal error{where}: {type(exc).__name__}: {exc}"
    if show_traceback:
        text = "".join(traceback.format_exception(exc)) + text
    else:
        text += "\n  hint: run again with -vv for the traceback, and report it as a cfnops bug"
    return text, int(ExitCode.FAILED)
