"""``cfnops ami check`` rules on groups: floating versions (AMI006), launch templates
versioned outside the stack (AMI007), mutually exclusive update policies (AMI008), and
groups that roll anyway on a pattern 2 rotation (AMI009) — each with a true and a
false case."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from cfnops.ami import check_template, load_template
from cfnops.cli.main import run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "ami-rotation"


def write(
    tmp_path: Path,
    *,
    image: str = "!Ref ImageId",
    version: str = "!GetAtt Lt.LatestVersionNumber",
    policy: str = "",
    extra: str = "",
) -> Path:
    body = textwrap.dedent(
        f"""\
        Parameters:
          ImageId:
            Type: AWS::EC2::Image::Id
        Resources:
          Lt:
            Type: AWS::EC2::LaunchTemplate
            Properties:
              LaunchTemplateData:
                ImageId: {image}
          Group:
            Type: AWS::AutoScaling::AutoScalingGroup
        """
    )
    if policy:
        body += textwrap.indent(textwrap.dedent(policy), "    ")
    body += textwrap.indent(
        textwrap.dedent(
            f"""\
            Properties:
              MinSize: "1"
              MaxSize: "1"
              AvailabilityZones: [us-east-1a]
              LaunchTemplate:
                LaunchTemplateId: !Ref Lt
                Version: {version}
            """
        ),
        "    ",
    )
    path = tmp_path / "t.yaml"
    path.write_text(body + extra)
    return path


def findings(path: Path) -> dict[str, object]:
    report = check_template(load_template(path), str(path))
    return {f.code: f for f in report.findings}


REFRESH = """\
UpdatePolicy:
  AutoScalingInstanceRefresh:
    Strategy: Rolling
"""
ROLLING = """\
UpdatePolicy:
  AutoScalingRollingUpdate:
    MinInstancesInService: 0
"""
BOTH = """\
UpdatePolicy:
  AutoScalingRollingUpdate:
    MinInstancesInService: 0
  AutoScalingInstanceRefresh:
    Strategy: Rolling
"""
DISTRIBUTION = """\
  Distribution:
    Type: AWS::ImageBuilder::DistributionConfiguration
    Properties:
      Name: web
      Distributions:
        - Region: us-east-1
          LaunchTemplateConfigurations:
            - LaunchTemplateId: !Ref Lt
              SetDefaultVersion: true
"""


@pytest.mark.parametrize("version", ["$Latest", "$Default"])
def test_floating_version_is_an_error_with_the_pin(tmp_path: Path, version: str) -> None:
    found = findings(write(tmp_path, version=f'"{version}"'))
    finding = found["AMI006"]
    assert finding.severity == "error"  # type: ignore[attr-defined]
    assert finding.pointer == "/Resources/Group/Properties/LaunchTemplate/Version"  # type: ignore[attr-defined]
    (edit,) = finding.fixes["pin"]  # type: ignore[attr-defined]
    assert edit.after == "Version: !GetAtt Lt.LatestVersionNumber"


def test_pinned_version_is_not_floating(tmp_path: Path) -> None:
    assert "AMI006" not in findings(write(tmp_path))


def test_launch_template_versioned_by_image_builder_is_an_error(tmp_path: Path) -> None:
    found = findings(write(tmp_path, extra=DISTRIBUTION))
    finding = found["AMI007"]
    assert finding.severity == "error"  # type: ignore[attr-defined]
    assert "Distribution" in finding.message  # type: ignore[attr-defined]
    assert any("SsmParameterConfigurations" in e.after for e in finding.fixes["pattern1"])  # type: ignore[attr-defined]


def test_distribution_without_launch_template_configurations_is_fine(tmp_path: Path) -> None:
    extra = DISTRIBUTION.split("          LaunchTemplateConfigurations:")[0] + (
        "          AmiDistributionConfiguration:\n"
        "            Name: web-{{ imagebuilder:buildDate }}\n"
    )
    assert "AMI007" not in findings(write(tmp_path, extra=extra))


def test_both_update_policies_are_mutually_exclusive(tmp_path: Path) -> None:
    found = findings(write(tmp_path, policy=BOTH))
    assert found["AMI008"].severity == "error"  # type: ignore[attr-defined]
    assert "AMI009" not in found


@pytest.mark.parametrize("policy", [REFRESH, ROLLING, ""])
def test_one_policy_is_not_the_exclusive_pair(tmp_path: Path, policy: str) -> None:
    assert "AMI008" not in findings(write(tmp_path, policy=policy))


def test_pattern2_with_instance_refresh_says_it_rolls_anyway(tmp_path: Path) -> None:
    found = findings(write(tmp_path, policy=REFRESH))
    finding = found["AMI009"]
    assert finding.severity == "info"  # type: ignore[attr-defined]
    assert "even without --roll" in finding.message  # type: ignore[attr-defined]
    assert "--roll" in finding.message  # type: ignore[attr-defined]
    report = check_template(load_template(write(tmp_path, policy=REFRESH)))
    assert not report.drift_prone  # information, not a drift-prone pattern


def test_pattern2_with_rolling_update_says_so_and_why_roll_refuses(tmp_path: Path) -> None:
    finding = findings(write(tmp_path, policy=ROLLING))["AMI009"]
    assert "rolling update" in finding.message  # type: ignore[attr-defined]


def test_no_policy_or_pattern1_says_nothing_about_rolling(tmp_path: Path) -> None:
    assert "AMI009" not in findings(write(tmp_path))
    assert "AMI009" not in findings(write(tmp_path, image="resolve:ssm:/web/ami", policy=REFRESH))


def test_pattern3_example_is_clean_but_informs(capsys: pytest.CaptureFixture[str]) -> None:
    path = EXAMPLES / "pattern3-instance-refresh.yaml"
    report = check_template(load_template(path), str(path))
    assert [f.code for f in report.findings] == ["AMI009"]
    assert run(["ami", "check", str(path), "--output", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["driftProne"] is False
    assert [f["code"] for f in data["findings"]] == ["AMI009"]
