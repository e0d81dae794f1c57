"""The lazy esprima character questions give esprima's own answers, without its tables."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cfnops.guard._js_chars import Character
from cfnops.guard._js_syntax import parse_javascript

QUESTIONS = (
    "isIdentifierStart",
    "isIdentifierPart",
    "isWhiteSpace",
    "isLineTerminator",
    "isDecimalDigit",
    "isHexDigit",
    "isOctalDigit",
)


def _esprima_tables() -> Any:
    spec = importlib.util.find_spec("esprima")
    assert spec is not None and spec.submodule_search_locations
    path = Path(spec.submodule_search_locations[0]) / "character.py"
    source = path.read_text(encoding="utf-8").replace(
        "from .compat import uchr, xrange", "uchr = chr\nxrange = range"
    )
    namespace: dict[str, Any] = {"__name__": "esprima_character_original"}
    exec(compile(source, str(path), "exec"), namespace)
    return namespace["Character"]


def test_same_answers_as_esprima() -> None:
    # every code point up to U+3100 (Latin ... CJK symbols, the special cases), then a
    # sample; a run over all 1.1 M code points agreed too (it takes ~15 s)
    original = _esprima_tables()
    for code in (*range(0x3100), *range(0x3100, 0x110000, 97)):
        ch = chr(code)
        for question in QUESTIONS:
            assert getattr(Character, question)(ch) == getattr(original, question)(ch), (
                question,
                hex(code),
            )


def test_unicode_identifiers_still_parse() -> None:
    tree = parse_javascript("const größe = 1; const 名前 = größe + 1; let x\u200d = 名前;")
    assert tree.body[1].declarations[0].id.name == "名前"


def test_esprima_is_imported_without_its_tables() -> None:
    code = (
        "import sys; from cfnops.guard._js_syntax import parse_javascript; "
        "parse_javascript('x = 1'); import esprima.character as c; "
        "print(hasattr(c, 'U_CATEGORIES'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("ch", ["", None])
def test_nothing_is_not_an_identifier(ch: Any) -> None:
    assert not Character.isIdentifierStart(ch) and not Character.isIdentifierPart(ch)
