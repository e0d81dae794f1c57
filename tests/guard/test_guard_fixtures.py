"""Every fixture: the findings are exactly the ``expect:`` markers written in its code."""

from __future__ import annotations

from pathlib import Path

import pytest
from guard_support import cases, code_dir_of, expected_markers, relative, template_of

from cfnops.guard import Severity, check_template, diff_annotations, findings_by_resource

# JSON cannot carry comments: cr001_python_join has its own test below.
CASES = [c for c in cases() if template_of(c).suffix == ".yaml"]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_findings_match_the_markers(case: Path) -> None:
    report = check_template(template_of(case), code_dir_of(case))
    got = {(relative(case, f.file), f.line, f.rule, f.severity.value) for f in report.findings}
    assert got == expected_markers(case)
    if case.name != "external":
        assert report.notes == (), report.notes


def test_there_are_true_and_false_positive_fixtures_for_every_rule() -> None:
    by_rule: dict[str, set[str]] = {}
    for case in CASES:
        for _, _, rule, _ in expected_markers(case):
            by_rule.setdefault(rule, set()).add(case.name)
    assert set(by_rule) == {"CR001", "CR002", "CR003", "CR004"}
    silent = {c.name for c in CASES if not expected_markers(c)}
    for rule in by_rule:
        assert any(name.startswith(rule.lower()) for name in silent), rule


def test_inline_nodejs_cfn_response_default_id_is_an_error() -> None:
    case = Path(__file__).parent / "fixtures" / "cr001_node_inline"
    report = check_template(case / "template.yaml")
    errors = [f for f in report.findings if f.severity is Severity.ERROR]
    assert [(f.rule, f.resource) for f in errors] == [("CR001", "Setting")]
    line = (case / "template.yaml").read_text().splitlines()[errors[0].line - 1]
    assert "response.send(event, context, response.SUCCESS" in line
    assert "log stream" in errors[0].message
    assert "Delete path calls deleteParameter()" in errors[0].message
    assert "event.PhysicalResourceId" in errors[0].fix
    assert report.has_errors


def test_handler_that_returns_the_incoming_id_is_silent() -> None:
    case = Path(__file__).parent / "fixtures" / "cr001_node_inline_ok"
    report = check_template(case / "template.yaml")
    assert report.custom_resources == ("Setting",)
    assert report.findings == ()
    assert report.notes == ()
    assert not report.has_errors


def test_json_join_code_maps_to_the_template_line() -> None:
    path = Path(__file__).parent / "fixtures" / "cr001_python_join" / "template.json"
    (finding,) = check_template(path).findings
    assert finding.rule == "CR001"
    assert "cfnresponse.send" in path.read_text().splitlines()[finding.line - 1]


def test_one_handler_serving_two_resources_is_reported_for_each() -> None:
    path = Path(__file__).parent / "fixtures" / "shared_function" / "template.yaml"
    by_resource = findings_by_resource(path)
    assert set(by_resource) == {"FirstName", "SecondName"}
    assert [f.rule for f in by_resource["FirstName"]] == ["CR002"]
    assert [f.rule for f in by_resource["SecondName"]] == ["CR002"]
    assert "the current time" in by_resource["FirstName"][0].message


def test_external_handlers_are_notes_not_findings() -> None:
    path = Path(__file__).parent / "fixtures" / "external" / "template.yaml"
    report = check_template(path)
    assert report.findings == ()
    notes = {n.resource: n.message for n in report.notes}
    assert set(notes) == {"FromParameter", "FromImport", "FromArn", "FromTopic"}
    assert "handler not in template" in notes["FromImport"]
    assert "SNS topic Topic" in notes["FromTopic"]


def test_findings_by_resource_lists_clean_resources_too() -> None:
    path = Path(__file__).parent / "fixtures" / "cr004_python_inline_ok" / "template.yaml"
    assert findings_by_resource(path) == {"Cleanup": []}


def test_diff_annotations_are_one_line_per_finding() -> None:
    path = Path(__file__).parent / "fixtures" / "cr001_node_inline" / "template.yaml"
    notes = diff_annotations(path)
    assert list(notes) == ["Setting"]
    assert [n.split(" ", 3)[:3] for n in notes["Setting"]] == [
        ["guard", "CR001", "(error)"],
        ["guard", "CR001", "(warning)"],
    ]
    assert f"{path}:35: cfn-response send without an explicit physical id" in notes["Setting"][0]
    assert all(f"{path}:" in n and "\n" not in n for n in notes["Setting"])
    clean = Path(__file__).parent / "fixtures" / "cr001_node_inline_ok" / "template.yaml"
    assert diff_annotations(clean) == {}


def test_a_constant_physical_id_is_stable(tmp_path: Path) -> None:
    # The shape of the AWS documentation's cfn-response example: a literal id.
    path = tmp_path / "template.yaml"
    path.write_text(
        "Resources:\n"
        "  Fn:\n"
        "    Type: AWS::Lambda::Function\n"
        "    Properties:\n"
        "      Runtime: python3.12\n"
        "      Handler: index.handler\n"
        "      Code:\n"
        "        ZipFile: |\n"
        "          import cfnresponse\n"
        "          def handler(event, context):\n"
        "              data = {'Message': 'Hello'}\n"
        "              cfnresponse.send(event, context, 'SUCCESS', data, 'MyPhysicalId')\n"
        "  Res:\n"
        "    Type: Custom::Hello\n"
        "    Properties:\n"
        "      ServiceToken: !GetAtt Fn.Arn\n"
    )
    report = check_template(path)
    assert (report.findings, report.notes) == ((), ())
