"""``cfnops job test`` reports of mocked test runs: JUnit XML (for CI) and a JSON summary."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

from cfnops.jobs import CaseResult

__all__ = ["exit_status", "junit_xml", "summary_json"]


def exit_status(results: Sequence[CaseResult]) -> int:
    """0 all passed; 2 a case could not run as written (an unmocked Task); 1 a case failed."""
    if any(r.setup_error for r in results):
        return 2
    return 0 if all(r.passed for r in results) else 1


def summary_json(results: Sequence[CaseResult]) -> dict[str, Any]:
    return {
        "cases": [r.to_json() for r in results],
        "passed": sum(r.passed for r in results),
        "failed": sum(not r.passed for r in results),
    }


def junit_xml(results: Sequence[CaseResult], suite: str = "cfnops job test") -> str:
    """A JUnit XML report: one ``testcase`` per case (``classname`` is the state machine);
    a failed expectation is a ``failure``, a case that could not run is an ``error``."""
    root = ET.Element(
        "testsuite",
        name=suite,
        tests=str(len(results)),
        failures=str(sum(bool(r.problems) and r.setup_error is None for r in results)),
        errors=str(sum(r.setup_error is not None for r in results)),
        time=f"{sum(r.seconds for r in results):.6f}",
    )
    for r in results:
        case = ET.SubElement(
            root, "testcase", classname=r.state_machine, name=r.case, time=f"{r.seconds:.6f}"
        )
        if r.setup_error is not None:
            ET.SubElement(case, "error", message=r.setup_error).text = r.setup_error
        elif r.problems:
            ET.SubElement(case, "failure", message=r.problems[0]).text = "\n".join(r.problems)
        out = ET.SubElement(case, "system-out")
        out.text = f"status {r.status}; states: {' → '.join(r.states)}"
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
