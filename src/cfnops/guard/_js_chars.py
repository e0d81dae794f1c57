"""A lazy stand-in for ``esprima.character``: the same answers without its start-up tables.

esprima 4 builds, on import, sets of every Unicode code point per category (1.1 M calls
of ``unicodedata.category``: most of its 0.4 s import and ~120 MiB). The scanner asks
only eight questions of ``Character`` (and reads ``HEX_CONV``/``OCTAL_CONV``); this
module answers them per character, ASCII first, from the ECMAScript definitions
(ECMA-262, "White Space", "Line Terminators", "Names and Keywords": identifiers start
with ``ID_Start``, ``$``, ``_`` or a ``\\`` escape and continue with ``ID_Continue``,
ZWNJ and ZWJ). ``ID_Start`` is the general categories Lu, Ll, Lt, Lm, Lo and Nl plus
``Other_ID_Start``; ``ID_Continue`` adds Mn, Mc, Nd, Pc and ``Other_ID_Continue``
(Unicode, UAX #31 and PropList.txt).

:func:`install` puts it in place of ``esprima.character`` before ``esprima`` is imported.
"""

from __future__ import annotations

import sys
import types
import unicodedata
from functools import lru_cache

_WHITE_SPACE = frozenset(
    "\t\v\f \xa0\u1680\u180e\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u202f\u205f\u3000\ufeff"
)
_LINE_TERMINATOR = frozenset("\n\r\u2028\u2029")
_ASCII_START = frozenset("$_\\abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_ASCII_PART = _ASCII_START | frozenset("0123456789")
_DECIMAL = frozenset("0123456789")
_OCTAL = frozenset("01234567")
_HEX = frozenset("0123456789abcdefABCDEF")
HEX_CONV = {c: int(c, 16) for c in _HEX}
OCTAL_CONV = {c: int(c, 8) for c in _OCTAL}


_START_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nl"})
_PART_CATEGORIES = _START_CATEGORIES | {"Mn", "Mc", "Nd", "Pc"}
_OTHER_ID_START = frozenset("\u1885\u1886\u2118\u212e\u309b\u309c")
_OTHER_ID_CONTINUE = frozenset(
    "\xb7\u0387\u1369\u136a\u136b\u136c\u136d\u136e\u136f\u1370\u1371\u19da"
)


@lru_cache(maxsize=4096)
def _start(ch: str) -> bool:
    return ch in _OTHER_ID_START or unicodedata.category(ch) in _START_CATEGORIES


@lru_cache(maxsize=4096)
def _part(ch: str) -> bool:
    if ch in "\u200c\u200d" or ch in _OTHER_ID_START or ch in _OTHER_ID_CONTINUE:
        return True
    return unicodedata.category(ch) in _PART_CATEGORIES


class Character:
    """The questions ``esprima.scanner`` asks about one character (a ``str`` of length 1)."""

    @staticmethod
    def fromCodePoint(code: int) -> str:
        return chr(code)

    @staticmethod
    def isWhiteSpace(ch: str) -> bool:
        return ch in _WHITE_SPACE

    @staticmethod
    def isLineTerminator(ch: str) -> bool:
        return ch in _LINE_TERMINATOR

    @staticmethod
    def isIdentifierStart(ch: str) -> bool:
        if ch in _ASCII_START:
            return True
        return bool(ch) and ord(ch[0]) > 0x7F and _start(ch)

    @staticmethod
    def isIdentifierPart(ch: str) -> bool:
        if ch in _ASCII_PART:
            return True
        return bool(ch) and ord(ch[0]) > 0x7F and _part(ch)

    @staticmethod
    def isDecimalDigit(ch: str) -> bool:
        return ch in _DECIMAL

    @staticmethod
    def isHexDigit(ch: str) -> bool:
        return ch in _HEX

    @staticmethod
    def isOctalDigit(ch: str) -> bool:
        return ch in _OCTAL


def install() -> None:
    """Make ``import esprima`` use this module for ``esprima.character`` (idempotent)."""
    if "esprima.character" in sys.modules:
        return
    module = types.ModuleType("esprima.character", __doc__)
    module.Character = Character  # type: ignore[attr-defined]
    module.HEX_CONV = HEX_CONV  # type: ignore[attr-defined]
    module.OCTAL_CONV = OCTAL_CONV  # type: ignore[attr-defined]
    sys.modules["esprima.character"] = module
