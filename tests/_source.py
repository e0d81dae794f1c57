"""Parsing cfnops's own source files in tests, safe beside running engine threads.

CPython 3.11 keeps the AST constructor's recursion counter per interpreter, not
per thread: when another thread builds an AST at the same moment (3.11's
traceback module parses a source line to draw its ``^^^`` markers, so any
background thread that formats an exception does), ``ast.parse`` can fail with
``SystemError: AST constructor recursion depth mismatch`` although the source
is fine (fixed in CPython 3.12: python/cpython#106905). The counter is reset at
the start of every parse, so parsing again is correct; the trees are cached by
file name and text, so each version of a file is parsed once per test process.
"""

from __future__ import annotations

import ast
import functools
import time
from pathlib import Path

_ATTEMPTS = 20


def parse_file(path: Path) -> ast.Module:
    """The AST of one source file; retries CPython 3.11's cross-thread counter fault."""
    return _parse(path.read_text(encoding="utf-8"), str(path))


@functools.cache  # keyed by the text too: a file rewritten in a test is parsed again
def _parse(source: str, filename: str) -> ast.Module:
    for attempt in range(_ATTEMPTS):
        try:
            return ast.parse(source, filename=filename)
        except SystemError as error:
            if "recursion depth mismatch" not in str(error) or attempt == _ATTEMPTS - 1:
                raise
            time.sleep(0.01)
    raise AssertionError("unreachable")
