"""Template loading: JSON fast path, YAML short forms, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from diff_fixtures import CORPUS

from cfnops.diff import TemplateLoadError, load_template, parse_template
from cfnops.errors import UsageError


def test_yaml_short_form_tags_become_long_form() -> None:
    text = """
Resources:
  Q:
    Type: AWS::SQS::Queue
    Properties:
      QueueName: !Sub '${AWS::StackName}-q'
      Tags:
        - {Key: a, Value: !GetAtt B.C.D}
        - {Key: b, Value: !Ref X}
        - {Key: c, Value: !Join ['', [!Select [0, !GetAZs '']]]}
"""
    props = parse_template(text)["Resources"]["Q"]["Properties"]
    assert props["QueueName"] == {"Fn::Sub": "${AWS::StackName}-q"}
    assert props["Tags"][0]["Value"] == {"Fn::GetAtt": ["B", "C.D"]}
    assert props["Tags"][1]["Value"] == {"Ref": "X"}
    assert props["Tags"][2]["Value"] == {
        "Fn::Join": ["", [{"Fn::Select": [0, {"Fn::GetAZs": ""}]}]]
    }
    assert type(props) is dict  # decoder node classes are converted to plain values


def test_unquoted_date_version_is_a_string() -> None:
    tpl = parse_template("AWSTemplateFormatVersion: 2010-09-09\nResources: {}\n")
    assert tpl["AWSTemplateFormatVersion"] == "2010-09-09"


def test_invalid_yaml_reports_line_and_column(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("Resources:\n  A:\n    Type: [x\n  B: 1\n", encoding="utf-8")
    with pytest.raises(TemplateLoadError) as info:
        load_template(bad)
    err = info.value
    assert err.line is not None and err.column is not None
    assert err.message.startswith(f"{bad}:{err.line}:{err.column}: invalid YAML/JSON")
    assert isinstance(err, UsageError) and err.exit_code == 2


def test_invalid_json_reports_line_and_column(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "Resources": {\n    "A": ,\n  }\n}\n', encoding="utf-8")
    with pytest.raises(TemplateLoadError) as info:
        load_template(bad)
    assert info.value.line == 3


def test_duplicate_json_keys_are_rejected() -> None:
    with pytest.raises(TemplateLoadError, match="Duplicate"):
        parse_template('{"Resources": {"A": {"Type": "X"}, "A": {"Type": "Y"}}}', "dup.json")


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("- a\n- b\n", "not a mapping"),
        ("just text\n", "not a mapping"),
        ("", "empty"),
        ("name: x\nversion: 2\n", "no known section"),
        ("Resources: [a, b]\n", "Resources is not a mapping"),
    ],
    ids=["list", "scalar", "empty", "unknown-keys", "resources-list"],
)
def test_not_a_template(text: str, needle: str) -> None:
    with pytest.raises(TemplateLoadError, match=needle):
        parse_template(text, "x.yaml")


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(TemplateLoadError, match="file not found"):
        load_template(tmp_path / "nope.yaml")
    with pytest.raises(TemplateLoadError, match="directory"):
        load_template(tmp_path)


def test_empty_mapping_is_an_empty_template() -> None:
    assert parse_template("{}") == {}


def test_json_fast_path_equals_the_cfn_lint_decoder() -> None:
    from cfnlint.decode import decode_str

    from cfnops.diff._normalise import plain

    files = sorted(CORPUS.rglob("*.json"))[:25]
    assert files
    for file in files:
        text = file.read_text(encoding="utf-8")
        decoded, matches = decode_str(text)
        if matches:
            continue
        assert parse_template(text, str(file)) == json.loads(json.dumps(plain(decoded)))
