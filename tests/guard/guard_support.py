"""Helpers for the guard tests: fixture discovery and ``expect:`` markers."""

from __future__ import annotations

import re
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"
_MARK = re.compile(r"expect: (CR\d{3}) (error|warning)")

Expected = set[tuple[str, int, str, str]]


def cases() -> list[Path]:
    return sorted(p for p in FIXTURES.iterdir() if p.is_dir())


def template_of(case: Path) -> Path:
    return next(p for p in sorted(case.iterdir()) if p.name.startswith("template."))


def code_dir_of(case: Path) -> Path | None:
    code = case / "code"
    return code if code.is_dir() else None


def expected_markers(case: Path) -> Expected:
    """(file relative to the case, line, rule, severity) of every ``expect:`` comment."""
    out: Expected = set()
    for path in sorted(case.rglob("*")):
        if not path.is_file():
            continue
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for rule, severity in _MARK.findall(text):
                out.add((path.relative_to(case).as_posix(), number, rule, severity))
    return out


def relative(case: Path, file: str) -> str:
    return Path(file).resolve().relative_to(case.resolve()).as_posix()
