"""The guard never crashes on the shared template corpus, and its locations are real."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from cfnops.guard import GuardInputError, check_template

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "cfn-templates"
SUFFIXES = {".yaml", ".yml", ".json", ".template"}


@pytest.mark.slow
def test_corpus_runs_and_every_finding_points_at_a_real_line() -> None:
    checked = rejected = customs = 0
    rules: Counter[str] = Counter()
    for path in sorted(CORPUS.rglob("*")):
        if path.suffix not in SUFFIXES or path.name == "MANIFEST.json":
            continue
        try:
            report = check_template(path)
        except GuardInputError:
            rejected += 1
            continue
        checked += 1
        customs += len(report.custom_resources)
        for finding in report.findings:
            rules[finding.rule] += 1
            assert finding.resource in report.custom_resources
            lines = Path(finding.file).read_text(encoding="utf-8").splitlines()
            assert 1 <= finding.line <= len(lines), finding
    print(
        f"guard corpus: {checked} templates checked ({rejected} rejected as input), "
        f"{customs} custom resources, findings by rule: {dict(sorted(rules.items()))}"
    )
    assert checked > 0
