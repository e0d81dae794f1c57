"""Parse handler code into :mod:`ast`, Python 2 included.

Lambda's ``python2.7`` runtime is retired, but templates that still name it are
deployed and updated (AWS docs, "Lambda runtimes", deprecated runtimes:
https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtimes.html). Code that
Python 3's parser rejects is translated with ``fissix`` (a maintained fork of
``lib2to3`` and its 2to3 fixers, which read the Python 2.7 grammar) and the
translation is analysed: ``print x``, ``except E, e``, ``dict.iteritems()``,
``urllib2`` become their Python 3 spellings on the same lines, so findings keep
pointing at the handler's own lines.
"""

from __future__ import annotations

import ast
from functools import cache
from typing import TYPE_CHECKING

from cfnops.guard._flow import HandlerSyntaxError

if TYPE_CHECKING:
    from fissix.refactor import RefactoringTool


def parse_python(source: str) -> ast.Module:
    """The module's syntax tree; Python 2 code is parsed through its 2to3 translation.

    Raises :class:`HandlerSyntaxError` with Python 3's message and line when
    neither parses.
    """
    try:
        return ast.parse(source)
    except SyntaxError as exc:
        translated = python2_to_3(source)
        if translated is None:
            raise HandlerSyntaxError(exc.lineno or 0, exc.msg) from exc
        try:
            return ast.parse(translated)
        except SyntaxError:
            raise HandlerSyntaxError(exc.lineno or 0, exc.msg) from exc


def python2_to_3(source: str) -> str | None:
    """``source`` read as Python 2.7 and rewritten by the 2to3 fixers (None: not Python 2)."""
    from fissix.pgen2.parse import ParseError
    from fissix.pgen2.tokenize import TokenError

    text = source if source.endswith("\n") else source + "\n"
    try:
        return str(_tool().refactor_string(text, "<handler>"))
    except (ParseError, TokenError, IndentationError, SyntaxError):
        return None


@cache
def _tool() -> RefactoringTool:
    from fissix.refactor import RefactoringTool, get_fixers_from_package

    return RefactoringTool(get_fixers_from_package("fissix.fixes"))
