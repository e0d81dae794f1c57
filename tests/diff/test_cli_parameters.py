"""Deploy-time values are never assumed (issue 42): ``--parameters FILE`` / ``--parameter``.

The target-group case: ``Port: 80`` becomes ``Port: !Ref ContainerPort`` (default 80).
``Port`` is create-only (AWS::ElasticLoadBalancingV2::TargetGroup, "Update requires:
Replacement"); a stack deployed with ContainerPort 8080 replaces the group.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cfnops.cli.main import run

OLD = """\
Resources:
  Group:
    Type: AWS::ElasticLoadBalancingV2::TargetGroup
    Properties: {Port: 80, Protocol: HTTP, VpcId: vpc-1}
"""
NEW = """\
Parameters:
  ContainerPort: {Type: Number, Default: 80}
Resources:
  Group:
    Type: AWS::ElasticLoadBalancingV2::TargetGroup
    Properties: {Port: !Ref ContainerPort, Protocol: HTTP, VpcId: vpc-1}
"""
# the same rule for a condition and a mapping over a parameter without AllowedValues
OLD_SELECTED = """\
Parameters:
  Proto: {Type: String, Default: HTTP}
  Env: {Type: String, Default: dev}
Conditions:
  Https: !Equals [!Ref Proto, HTTPS]
Mappings:
  Ports: {dev: {Port: 80}, prod: {Port: 8080}}
Resources:
  ByCondition:
    Type: AWS::ElasticLoadBalancingV2::TargetGroup
    Properties: {Port: 80, Protocol: HTTP, VpcId: vpc-1}
  ByMapping:
    Type: AWS::ElasticLoadBalancingV2::TargetGroup
    Properties: {Port: 80, Protocol: HTTP, VpcId: vpc-1}
"""
NEW_SELECTED = OLD_SELECTED.replace(
    "{Port: 80, Protocol", "{Port: !If [Https, 443, 80], Protocol", 1
).replace("{Port: 80, Protocol", "{Port: !FindInMap [Ports, !Ref Env, Port], Protocol", 1)


def _write(tmp_path: Path, old: str, new: str) -> list[str]:
    (tmp_path / "old.yaml").write_text(old, encoding="utf-8")
    (tmp_path / "new.yaml").write_text(new, encoding="utf-8")
    return [str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")]


def _json(argv: list[str], capsys: pytest.CaptureFixture[str], code: int = 0) -> Any:
    assert run([*argv, "-o", "json"]) == code
    return json.loads(capsys.readouterr().out)


def test_a_default_is_not_assumed_deployed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _json(["diff", *_write(tmp_path, OLD, NEW)], capsys)
    group = doc["resources"]["Group"]
    assert group["impact"] == "MAY_REPLACE"
    reason = group["properties"]["Port"]["reason"]
    assert "unchanged only when ContainerPort is '80'" in reason
    assert run(["diff", *_write(tmp_path, OLD, NEW), "--fail-on", "replace"]) == 1
    assert "ContainerPort is '80'" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize(
    ("value", "impact"), [("80", None), ("8080", "WILL_REPLACE")], ids=["same", "other"]
)
def test_a_given_value_makes_the_verdict_exact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, impact: str | None
) -> None:
    argv = ["diff", *_write(tmp_path, OLD, NEW), "--parameter", f"ContainerPort={value}"]
    doc = _json(argv, capsys)
    assert doc["resources"].get("Group", {}).get("impact") == impact
    # ContainerPort is new: no deployed value to compare with, the literal 80 is the old one
    assert "parameterValues" not in doc


@pytest.mark.parametrize(
    "content",
    [
        '[{"ParameterKey": "ContainerPort", "ParameterValue": "8080"}]',
        '["ContainerPort=8080"]',
        '{"Parameters": {"ContainerPort": "8080"}, "Tags": {"team": "web"}}',
        "ContainerPort: 8080\n",
    ],
    ids=["cloudformation-list", "deploy-overrides", "codepipeline", "plain-mapping-yaml"],
)
def test_parameter_file_shapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    values = tmp_path / "values.json"
    values.write_text(content, encoding="utf-8")
    doc = _json(["diff", *_write(tmp_path, OLD, NEW), "--parameters", str(values)], capsys)
    assert doc["resources"]["Group"]["impact"] == "WILL_REPLACE"


def test_parameter_wins_over_the_file_and_use_previous_value_gives_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    values = tmp_path / "values.json"
    values.write_text(
        '[{"ParameterKey": "ContainerPort", "ParameterValue": "8080"},'
        ' {"ParameterKey": "Other", "UsePreviousValue": true}]',
        encoding="utf-8",
    )
    pair = _write(tmp_path, OLD, NEW)
    doc = _json(
        ["diff", *pair, "--parameters", str(values), "--parameter", "ContainerPort=80"], capsys
    )
    assert "Group" not in doc["resources"]


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("[1, 2]", "entry 1"),
        ('{"Parameters": [1]}', "expected"),
        ("[{", "not readable"),
        ('[{"ParameterKey": "ContainerPort"}]', "has no value"),
    ],
    ids=["not-entries", "parameters-not-a-mapping", "bad-json", "no-value"],
)
def test_bad_parameter_files_exit_2_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, said: str
) -> None:
    values = tmp_path / "values.json"
    values.write_text(content, encoding="utf-8")
    assert run(["diff", *_write(tmp_path, OLD, NEW), "--parameters", str(values)]) == 2
    err = capsys.readouterr().err
    assert str(values) in err and said in err


def test_a_missing_parameter_file_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["diff", *_write(tmp_path, OLD, NEW), "--parameters", "nope.json"]) == 2
    assert "nope.json: no such file" in capsys.readouterr().err


def test_conditions_and_mappings_over_a_free_parameter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pair = _write(tmp_path, OLD_SELECTED, NEW_SELECTED)
    doc = _json(["diff", *pair], capsys)
    by_condition, by_mapping = doc["resources"]["ByCondition"], doc["resources"]["ByMapping"]
    assert by_condition["impact"] == by_mapping["impact"] == "MAY_REPLACE"
    assert "equal for condition Https false" in by_condition["properties"]["Port"]["reason"]
    assert "changes for Env=prod, equal for Env=dev" in by_mapping["properties"]["Port"]["reason"]
    known = ["--parameter", "Env=dev", "--parameter", "Proto=HTTP"]
    assert _json(["diff", *pair, *known], capsys)["resources"] == {}
    other = ["--parameter", "Env=prod", "--parameter", "Proto=HTTPS"]
    found = _json(["diff", *pair, *other], capsys)["resources"]
    assert {k: v["impact"] for k, v in found.items()} == {
        "ByCondition": "WILL_REPLACE",
        "ByMapping": "WILL_REPLACE",
    }


def test_offline_a_given_value_for_a_deployed_parameter_is_may_replace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pair = _write(tmp_path, NEW, NEW)
    doc = _json(["diff", *pair, "--parameter", "ContainerPort=8080"], capsys)
    assert doc["resources"]["Group"]["impact"] == "MAY_REPLACE"
    assert doc["parameterValues"] == {"ContainerPort": {"old": None, "new": "8080"}}
    assert run(["diff", *pair, "--parameter", "ContainerPort=8080"]) == 0
    assert "ContainerPort: (deployed value not known) → 8080" in capsys.readouterr().out
