"""Custom-resource lifecycle guard: handlers whose PhysicalResourceId is unstable.

``check_template(path, code_dir=None)`` finds the custom resources of a
template, reads their Lambda handlers (inline ``ZipFile``/``InlineCode``, SAM
``CodeUri`` or a ``--code`` folder; Python and Node.js) and reports
:class:`Finding` values; see ``docs/guard.md``.
"""

from __future__ import annotations

from cfnops.guard._engine import (
    check_template,
    diff_annotations,
    findings_by_resource,
    replacement_reasons,
)
from cfnops.guard._exercise import exercise
from cfnops.guard._exercise_rules import EXERCISE_RULES
from cfnops.guard._model import (
    Exercised,
    ExerciseStep,
    Finding,
    GuardReport,
    NotChecked,
    Note,
    RuleInfo,
    Severity,
)
from cfnops.guard._render import render_text, to_json, to_sarif
from cfnops.guard.errors import GuardInputError
from cfnops.guard.rules import RULES

__all__ = [
    "EXERCISE_RULES",
    "RULES",
    "ExerciseStep",
    "Exercised",
    "Finding",
    "GuardInputError",
    "GuardReport",
    "NotChecked",
    "Note",
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
