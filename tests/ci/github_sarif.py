"""GitHub code scanning's rules for an uploaded SARIF file, as a checker for tests.

From GitHub's "SARIF support for code scanning" (required properties, upload limits,
https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning)
and the rules Microsoft's SARIF Multitool applies for GitHub (``--rule-kind Gh``, named
here as it names them). Since July 2025 GitHub rejects an upload holding several runs of
one tool under one category ("Multiple runs with the same category": each run of a tool
needs its own ``automationDetails.id``), hence ``UniqueToolAndCategory``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# GitHub's upload limits (docs page above, "Upload limits")
MAX_RUNS, MAX_RESULTS, MAX_RULES, MAX_LOCATIONS, MAX_TAGS = 20, 25_000, 25_000, 1_000, 20

RULES = {
    "GH1001": "ProvideRequiredLocationProperties: each result has a physical location "
    "with an artifact URI",
    "GH1003": "ProvideRequiredRegionProperties: each region has a startLine",
    "GH1004": "ReviewArraysThatExceedConfigurableDefaults: runs, results, rules, "
    "locations and tags within GitHub's limits",
    "GH1005": "LocationsMustBeRelativeUrisOrFilePaths: URIs are repository-relative "
    "(no scheme) and normalised (no '.' or '..' segment)",
    "GH1007": "ProvideFullyFormattedMessageStrings: each result's message has text",
    "SARIF2012": "ProvideRuleProperties: each rule has a name, a fullDescription and help "
    "text (code scanning shows them beside the alert)",
    "Fingerprints": "each result has partialFingerprints (an alert keeps its identity "
    "across pushes)",
    "UniqueToolAndCategory": "no two runs of one upload share a tool and automationDetails.id",
}


def problems(logs: Iterable[dict[str, Any]]) -> list[str]:
    """Every rule of :data:`RULES` the SARIF logs of one upload break, as ``ID: where``."""
    found: list[str] = []
    seen: set[tuple[str, str]] = set()
    for log in logs:
        runs = log.get("runs", [])
        if len(runs) > MAX_RUNS:
            found.append(f"GH1004: {len(runs)} runs")
        for run in runs:
            driver = run["tool"]["driver"]
            key = (driver.get("name", ""), run.get("automationDetails", {}).get("id", ""))
            if key in seen:
                found.append(f"UniqueToolAndCategory: {key}")
            seen.add(key)
            found += _rule_problems(driver.get("rules", []))
            results = run.get("results", [])
            if len(results) > MAX_RESULTS:
                found.append(f"GH1004: {len(results)} results")
            for i, result in enumerate(results):
                found += [f"{p} (result {i})" for p in _result_problems(result)]
    return found


def _rule_problems(rules: list[dict[str, Any]]) -> list[str]:
    found = [f"GH1004: {len(rules)} rules"] if len(rules) > MAX_RULES else []
    for rule in rules:
        if not (
            rule.get("name")
            and rule.get("fullDescription", {}).get("text")
            and rule.get("help", {}).get("text")
        ):
            found.append(f"SARIF2012: rule {rule.get('id')}")
        if len(rule.get("properties", {}).get("tags", [])) > MAX_TAGS:
            found.append(f"GH1004: rule {rule.get('id')} tags")
    return found


def _result_problems(result: dict[str, Any]) -> list[str]:
    found = []
    if not result.get("message", {}).get("text"):
        found.append("GH1007")
    if not result.get("partialFingerprints"):
        found.append("Fingerprints")
    locations = result.get("locations") or []
    if not locations or len(locations) > MAX_LOCATIONS:
        found.append("GH1001" if not locations else "GH1004: locations")
    for location in locations:
        physical = location.get("physicalLocation", {})
        uri = physical.get("artifactLocation", {}).get("uri")
        if not uri:
            found.append("GH1001")
            continue
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", uri) or uri.startswith("/"):
            found.append(f"GH1005: {uri} is not repository-relative")
        elif any(part in (".", "..", "") for part in uri.split("/")):
            found.append(f"GH1005: {uri} is not normalised")
        if not physical.get("region", {}).get("startLine"):
            found.append("GH1003")
    return found
