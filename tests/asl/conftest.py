"""Reports the ASL conformance figures at the end of the session (visible without -s)."""

from __future__ import annotations

from typing import Any

SUMMARY_ATTRIBUTE = "cfnops_asl_summary"


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for line in getattr(terminalreporter.config, SUMMARY_ATTRIBUTE, []):
        terminalreporter.write_line(line)
