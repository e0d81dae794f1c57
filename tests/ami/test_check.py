"""``cfnops ami check``: drift-prone patterns flagged with the edit; good patterns recognised."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from cfnops.ami import check_template, load_template
from cfnops.ami.errors import TemplateLoadError
from cfnops.cli.main import run

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "ami-rotation"

GROUP = """
  Group:
    Type: AWS::AutoScaling::AutoScalingGroup
    Properties:
      MinSize: "1"
      MaxSize: "1"
      AvailabilityZones: [us-east-1a]
      LaunchTemplate:
        LaunchTemplateId: !Ref Lt
        Version: !GetAtt Lt.LatestVersionNumber
"""


def template(tmp_path: Path, image: str, extra: str = "", group: bool = True) -> Path:
    body = (
        extra
        + "\n"
        + textwrap.dedent(
            f"""\
            Resources:
              Lt:
                Type: AWS::EC2::LaunchTemplate
                Properties:
                  LaunchTemplateData:
                    ImageId: {image}
                    InstanceType: t3.micro
            """
        )
        + (GROUP.lstrip("\n") if group else "")
    )
    path = tmp_path / "t.yaml"
    path.write_text(body)
    return path


def codes(path: Path) -> list[str]:
    return [f.code for f in check_template(load_template(path), str(path)).findings]


@pytest.mark.parametrize(
    ("name", "pattern"),
    [
        ("pattern1-ssm-parameter.yaml", "ssm-parameter"),
        ("pattern2-stack-parameter.yaml", "stack-parameter"),
    ],
)
def test_examples_are_recognised_as_the_good_patterns(name: str, pattern: str) -> None:
    report = check_template(load_template(EXAMPLES / name))
    assert [(u.launch_template, u.pattern, u.groups) for u in report.launch_templates] == [
        ("LaunchTemplate", pattern, ("Group",))
    ]
    assert report.findings == () and not report.drift_prone


def test_literal_image_is_drift_prone_with_both_edits(tmp_path: Path) -> None:
    path = template(tmp_path, "ami-0123456789abcdef0")
    report = check_template(load_template(path), str(path))
    (finding,) = report.findings
    assert (finding.code, finding.severity, finding.resource) == ("AMI001", "error", "Lt")
    assert finding.line == 7  # the ImageId line (line 1 is the blank `extra`)
    assert finding.pointer == "/Resources/Lt/Properties/LaunchTemplateData/ImageId"
    p1 = [(e.before, e.after) for e in finding.fixes["pattern1"]]
    assert p1[0] == ("ImageId: ami-0123456789abcdef0", "ImageId: resolve:ssm:/cfnops/ami/Lt")
    assert "--value ami-0123456789abcdef0" in p1[1][1]
    p2 = [(e.pointer, e.after) for e in finding.fixes["pattern2"]]
    assert p2[0] == (
        "/Parameters/ImageId",
        "ImageId:\n  Type: AWS::EC2::Image::Id\n  Default: ami-0123456789abcdef0",
    )
    assert p2[1][1] == "ImageId: !Ref ImageId"
    assert report.drift_prone


def test_dynamic_reference_is_drift_prone(tmp_path: Path) -> None:
    assert codes(template(tmp_path, "'{{resolve:ssm:/app/ami}}'")) == ["AMI002"]


def test_ssm_typed_template_parameter_is_drift_prone(tmp_path: Path) -> None:
    extra = "Parameters:\n  Ami:\n    Type: AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>"
    assert codes(template(tmp_path, "!Ref Ami", extra)) == ["AMI003"]


def test_parameter_defined_in_the_stack_is_flagged(tmp_path: Path) -> None:
    path = template(tmp_path, "resolve:ssm:/app/ami")
    path.write_text(
        path.read_text() + "  Param:\n    Type: AWS::SSM::Parameter\n    Properties:\n"
        "      Type: String\n      Name: /app/ami\n      Value: ami-0123456789abcdef0\n"
    )
    assert codes(path) == ["AMI004"]


def test_good_patterns_in_a_literal_template(tmp_path: Path) -> None:
    assert codes(template(tmp_path, "resolve:ssm:/app/ami")) == []
    extra = "Parameters:\n  ImageId:\n    Type: AWS::EC2::Image::Id"
    assert codes(template(tmp_path, "!Ref ImageId", extra)) == []


def test_literal_without_a_pinned_group_is_only_a_warning(tmp_path: Path) -> None:
    path = template(tmp_path, "ami-0123456789abcdef0", group=False)
    report = check_template(load_template(path))
    assert [f.severity for f in report.findings] == ["warning"] and not report.drift_prone


def test_unreadable_template(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("Resources: [\n")
    with pytest.raises(TemplateLoadError):
        load_template(bad)


def test_cli_exit_codes_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["ami", "check", str(EXAMPLES / "pattern2-stack-parameter.yaml")]) == 0
    capsys.readouterr()
    assert run(["ami", "check", str(EXAMPLES / "drift-prone-literal.yaml"), "-o", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["driftProne"] is True
    assert data["findings"][0]["code"] == "AMI001"
    assert data["findings"][0]["line"] == 16
    assert set(data["findings"][0]["fixes"]) == {"pattern1", "pattern2"}
    bad = tmp_path / "bad.yaml"
    bad.write_text("Resources: [\n")
    assert run(["ami", "check", str(bad)]) == 2


@pytest.mark.parametrize(
    "path",
    [*sorted(EXAMPLES.glob("*.yaml")), REPO / "deploy" / "ami-rotation.yaml"],
    ids=lambda p: p.name,
)
def test_templates_pass_cfn_lint(path: Path) -> None:
    from cfnlint.api import lint_all

    # Errors and warnings, as the cfn-lint command reports by default.
    matches = [m for m in lint_all(path.read_text()) if m.rule.id[0] in "EW"]
    assert [str(m) for m in matches] == []
