"""``--exercise`` on the project's own handler corpus (``tests/guard/fixtures``).

For every fixture the run either agrees with the static verdict, or the test states
why it differs: the handler could not run here (a module the Lambda runtime provides,
a resource the sandbox does not have), or it ran and the request that would show the
problem ended before it (the reason is in that request's detail). Agreement is judged
per custom resource on three questions:

- a new id on Update: a CR001-CR003 error  <->  an EX001 error;
- a new id in a FAILED answer: a CR001/CR002 "reports FAILED" warning  <->  EX002;
- a Delete that ignores the id: CR004  <->  EX003.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from guard_support import cases, code_dir_of, template_of

from cfnops.guard import Finding, GuardReport, Severity, check_template, exercise

pytestmark = pytest.mark.slow

AGREES = ("agrees", "")
NODE = shutil.which("node") is not None
# fixture -> (outcome, the words that explain a difference)
EXPECTED: dict[str, tuple[str, str]] = {
    "cr001_node_inline": ("not exercised", "imports 'aws-sdk'"),
    "cr001_node_inline_ok": ("not exercised", "imports 'aws-sdk'"),
    "cr001_node_plain": AGREES,
    "cr001_python_failed": AGREES,
    "cr001_python_inline": ("not exercised", "CreateTags (InvalidVpcID.NotFound)"),
    "cr001_python_inline_ok": ("not exercised", "InvalidVpcID.NotFound"),
    "cr001_python_join": AGREES,
    "cr002_node_provider": AGREES,
    "cr002_node_sam": ("not exercised", "imports '@aws-sdk/client-sqs'"),
    "cr002_node_sam_ok": ("not exercised", "imports '@aws-sdk/client-sqs'"),
    "cr002_python2": AGREES,
    "cr002_python2_ok": AGREES,
    # the fixture's custom resource lacks the Prefix property its handler reads
    "cr002_python_code": ("not exercised", "KeyError: 'Prefix'"),
    "cr002_python_code_ok": ("not exercised", "KeyError: 'Prefix'"),
    "cr003_crhelper": ("not exercised", "imports 'crhelper'"),
    "cr003_crhelper_ok": ("not exercised", "imports 'crhelper'"),
    "cr004_node_inline": ("not exercised", "imports '@aws-sdk/client-eventbridge'"),
    "cr004_node_inline_ok": ("not exercised", "imports '@aws-sdk/client-eventbridge'"),
    # CR004 stands, unobserved: the bucket the handler empties does not exist in the
    # sandbox, so its Delete fails listing it before any changing call
    "cr004_python_inline": ("differs", "NoSuchBucket"),
    "cr004_python_inline_ok": AGREES,
    "cr004_python_ssm": AGREES,
    "cr004_python_ssm_ok": AGREES,
    "external": ("not exercised", "handler not in template"),
    "shared_function": AGREES,
}
_NODE_CASES = {"cr001_node_plain", "cr002_node_provider"}


def _expected(case: str) -> tuple[str, str]:
    if case in _NODE_CASES and not NODE:
        return "not exercised", "no `node` on PATH"
    return EXPECTED[case]


def _verdicts(findings: list[Finding]) -> dict[str, tuple[bool, bool, bool]]:
    """Static and exercised answers to the three questions, from one resource's findings."""
    static = (
        any(
            f.rule in ("CR001", "CR002", "CR003") and f.severity is Severity.ERROR for f in findings
        ),
        any(f.rule in ("CR001", "CR002") and "reports FAILED" in f.message for f in findings),
        any(f.rule == "CR004" for f in findings),
    )
    ran = (
        any(f.rule == "EX001" and f.severity is Severity.ERROR for f in findings),
        any(f.rule == "EX002" for f in findings),
        any(f.rule == "EX003" for f in findings),
    )
    return {"static": static, "exercised": ran}


def _outcome(report: GuardReport) -> tuple[str, str]:
    """("agrees" | "not exercised" | "differs", every reason and step detail)."""
    why = " | ".join(
        [r.reason for r in report.exercised] + [s.detail for r in report.exercised for s in r.steps]
    )
    if any(not r.exercised for r in report.exercised):
        return "not exercised", why
    by_resource = report.by_resource()
    for run in report.exercised:
        verdicts = _verdicts(by_resource.get(run.resource, []))
        if verdicts["static"] != verdicts["exercised"]:
            return "differs", why
    return "agrees", why


# the problem each way, for the fixtures written to be run
SAME_PROBLEM = {
    "cr001_python_failed": {"CR001", "EX002"},
    "cr002_python2": {"CR002", "EX001"},
    "cr004_python_ssm": {"CR004", "EX003"},
}
# a loaded machine runs a handler slowly: the budget here is generous (the CLI's is 60 s)
INVOKE_BUDGET = 300.0


def test_every_fixture_is_listed() -> None:
    assert {c.name for c in cases()} == set(EXPECTED)
    agreeing = [name for name, (outcome, _) in EXPECTED.items() if outcome == "agrees"]
    assert len(agreeing) == 10


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("case", cases(), ids=[c.name for c in cases()])
def test_exercise_agrees_with_the_static_verdict_or_says_why(
    cfnops_sandbox: Any, case: Path
) -> None:
    report = check_template(template_of(case), code_dir_of(case))
    report = exercise(report, cfnops_sandbox.endpoint_url, code_dir_of(case), timeout=INVOKE_BUDGET)
    outcome, why = _outcome(report)
    expected, words = _expected(case.name)
    assert (outcome, words in why) == (expected, True), why
    if case.name in SAME_PROBLEM:
        assert {f.rule for f in report.findings} == SAME_PROBLEM[case.name]
