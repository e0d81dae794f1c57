"""Pin the public surface of ``cfnops.guard``."""

from __future__ import annotations

import cfnops.guard


def test_exported_members() -> None:
    assert sorted(cfnops.guard.__all__) == [
        "EXERCISE_RULES",
        "ExerciseStep",
        "Exercised",
        "Finding",
        "GuardInputError",
        "GuardReport",
        "NotChecked",
        "Note",
        "RULES",
        "RuleInfo",
        "Severity",
        "check_template",
        "diff_annotations",
        "exercise",
        "findings_by_resource",
        "render_text",
        "replacement_reasons",
        "to_json",
        "to_sarif",
    ]
    for name in cfnops.guard.__all__:
        assert getattr(cfnops.guard, name) is not None


def test_rule_ids_are_unique_and_documented() -> None:
    from pathlib import Path

    every = cfnops.guard.RULES + cfnops.guard.EXERCISE_RULES
    ids = [rule.id for rule in every]
    assert len(ids) == len(set(ids))
    doc = (Path(__file__).resolve().parents[2] / "docs" / "guard.md").read_text()
    for rule in every:
        assert rule.id in doc
        assert rule.name in doc
