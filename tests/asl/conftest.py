"""Reports the ASL conformance figures at the end of the session (visible without -s)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # asl_cases, shared by the two conformance runs
    sys.path.insert(0, str(HERE))

SUMMARY_ATTRIBUTE = "cfnops_asl_summary"


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for line in getattr(terminalreporter.config, SUMMARY_ATTRIBUTE, []):
        terminalreporter.write_line(line)
