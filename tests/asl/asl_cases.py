"""ASL conformance cases (../shared/conformance/asl): where they are, and the match rule.

Shared by the pure interpreter's run (``test_conformance.py``) and the durable job path's
(``test_conformance_durable.py``). The rule is the one in that folder's README: terminal
status, then the output (for SUCCEEDED) or error and cause, compared as JSON (key order
ignored, 1 == 1.0, booleans never equal numbers); strings at ``expected.placeholders``
paths are patterns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["CASES_DIR", "Outcome", "case_files", "case_id", "json_match", "matches"]

CASES_DIR = Path(__file__).resolve().parents[2] / ".." / "shared" / "conformance" / "asl" / "cases"


def case_files() -> list[Path]:
    if not CASES_DIR.is_dir():
        return []
    return sorted(CASES_DIR.glob("*/*.json"))


def case_id(path: Path) -> str:
    stem = re.sub(r"\.[0-9a-f]{8}$", "", path.stem)
    return f"{path.parent.name}/{stem}"


@dataclass(frozen=True)
class Outcome:
    status: str
    output: Any = None
    error: Any = None
    cause: Any = None
    event_types: tuple[str, ...] = ()


_PLACEHOLDER = re.compile(
    r"<[^<>]+>|snf_role_arn|entered-time|start-time|timestamp|date|111111111111"
)


def _pattern(text: str) -> re.Pattern[str]:
    out: list[str] = []
    pos = 0
    for m in _PLACEHOLDER.finditer(text):
        out.append(re.escape(text[pos : m.start()]))
        out.append(".*")
        pos = m.end()
    out.append(re.escape(text[pos:]))
    return re.compile("".join(out), re.DOTALL)


def _path_steps(path: str) -> list[str | int]:
    steps: list[str | int] = []
    for part in re.findall(r"\.([^.\[\]]+)|\[(\d+)\]", path[1:]):
        steps.append(part[0] if part[0] else int(part[1]))
    return steps


def json_match(expected: Any, actual: Any, placeholders: set[tuple[str | int, ...]],
               here: tuple[str | int, ...] = ()) -> bool:  # fmt: skip
    if here in placeholders and isinstance(expected, str):
        if _PLACEHOLDER.fullmatch(expected):
            return True
        return isinstance(actual, str) and _pattern(expected).fullmatch(actual) is not None
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return float(expected) == float(actual)
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and expected.keys() == actual.keys()
            and all(json_match(expected[k], actual[k], placeholders, (*here, k)) for k in expected)
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(expected) == len(actual)
            and all(json_match(e, a, placeholders, (*here, i))
                    for i, (e, a) in enumerate(zip(expected, actual, strict=True)))
        )  # fmt: skip
    return type(expected) is type(actual) and expected == actual


def matches(expected: dict[str, Any], outcome: Outcome) -> bool:
    if outcome.status != expected["status"]:
        return False
    placeholders = {tuple(_path_steps(p)) for p in expected.get("placeholders") or []}
    if expected["status"] == "SUCCEEDED":
        return json_match({"output": expected.get("output")}, {"output": outcome.output},
                          placeholders)  # fmt: skip
    want = {"error": expected.get("error"), "cause": expected.get("cause")}
    got = {"error": outcome.error, "cause": outcome.cause}
    return json_match(want, got, placeholders)
