"""Puts this folder's helpers on ``sys.path`` and prints ``diff conformance: N/M``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from diff_fixtures import CONFORMANCE  # noqa: E402


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if CONFORMANCE:
        passed = sum(CONFORMANCE.values())
        terminalreporter.write_line(
            f"diff conformance: {passed}/{len(CONFORMANCE)} fixtures pass "
            "(including the iam/security_groups views)"
        )
