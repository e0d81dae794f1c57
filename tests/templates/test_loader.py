"""The shared template loader: short-form tags, positions, errors, and parity with cfn-lint."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import cfnops.templates
from cfnops.errors import UsageError
from cfnops.templates import TemplateError, decode, line_of, load_template, parse_template

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "cfn-templates"


def test_exports() -> None:
    assert sorted(cfnops.templates.__all__) == [
        "LocatedDict",
        "LocatedList",
        "LocatedStr",
        "NotFastJson",
        "TemplateError",
        "decode",
        "decode_json",
        "line_of",
        "load_template",
        "parse_template",
        "read_text",
    ]
    for name in cfnops.templates.__all__:
        assert getattr(cfnops.templates, name) is not None


@pytest.mark.parametrize(
    ("yaml_text", "expected"),
    [
        ("!Ref X", {"Ref": "X"}),
        ("!Condition IsProd", {"Condition": "IsProd"}),
        ("!GetAtt A.B.C", {"Fn::GetAtt": ["A", "B.C"]}),
        ("!GetAtt [A, Arn]", {"Fn::GetAtt": ["A", "Arn"]}),
        ("!Sub '${AWS::StackName}-q'", {"Fn::Sub": "${AWS::StackName}-q"}),
        ("!Sub ['${A}', {A: !Ref B}]", {"Fn::Sub": ["${A}", {"A": {"Ref": "B"}}]}),
        ("!If [C, 1, !Ref AWS::NoValue]", {"Fn::If": ["C", 1, {"Ref": "AWS::NoValue"}]}),
        ("!Select [0, !GetAZs '']", {"Fn::Select": [0, {"Fn::GetAZs": ""}]}),
        ("!Base64 {'Fn::Join': ['', [a]]}", {"Fn::Base64": {"Fn::Join": ["", ["a"]]}}),
        ("!Ref 5", {"Ref": "5"}),  # a tagged scalar stays the text written
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_short_form_tags_become_the_long_form(yaml_text: str, expected: Any) -> None:
    assert decode(f"Value: {yaml_text}\n")["Value"] == expected


def test_yaml_1_1_values_as_cloudformation_reads_them() -> None:
    body = decode("A: 2010-09-09\nB: yes\nC: '010'\nD: 1.50\nE: ~\n")
    assert str(body["A"]) == "2010-09-09" and body["B"] is True
    assert body["C"] == "010" and body["D"] == 1.5 and body["E"] is None


def test_positions_on_mappings_lists_and_strings() -> None:
    body = parse_template("Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Tags:\n      - a\n")
    queue = body["Resources"]["Q"]
    assert line_of(queue) == 3
    assert line_of(queue["Type"]) == 3 and queue["Type"].start_mark.column == 10
    assert line_of(queue["Tags"]) == 5 and line_of(queue["Tags"][0]) == 5
    assert line_of(42) is None


def test_duplicate_keys_name_both_lines() -> None:
    with pytest.raises(TemplateError) as info:
        decode("Resources:\n  A: 1\n  B: 2\n  A: 3\n", "dup.yaml")
    err = info.value
    assert (err.line, err.column) == (4, 3)
    assert "Duplicate key 'A' (line 2 and line 4)" in err.message
    assert err.message.startswith("dup.yaml:4:3: ")
    assert isinstance(err, UsageError) and err.exit_code == 2


def test_a_merge_key_may_override() -> None:
    body = decode("base: &b {x: 1, y: 2}\nchild:\n  <<: *b\n  y: 3\n")
    assert body["child"] == {"x": 1, "y": 3}


def test_syntax_error_has_line_and_column() -> None:
    with pytest.raises(TemplateError) as info:
        decode("Resources:\n  A:\n    Type: [x\n  B: 1\n", "bad.yaml")
    assert info.value.line == 4 and info.value.column is not None
    assert "invalid YAML/JSON" in info.value.reason


@pytest.mark.parametrize("pure", [False, True], ids=["libyaml", "pure-python"])
def test_json_indented_with_tabs_keeps_its_lines(pure: bool, monkeypatch: Any) -> None:
    # The pure-Python scanner refuses tabs that JSON allows: the JSON path takes over.
    if pure:
        import yaml

        from cfnops.templates import _yaml

        class PureLoader(yaml.SafeLoader):
            yaml_constructors = _yaml.CfnLoader.yaml_constructors
            yaml_multi_constructors = _yaml.CfnLoader.yaml_multi_constructors

        monkeypatch.setattr(_yaml, "CfnLoader", PureLoader)
    text = '{\n\t"Resources": {\n\t\t"A": {\n\t\t\t"Type": "X"\n\t\t}\n\t}\n}\n'
    body = decode(text, "tabs.json")
    assert body == {"Resources": {"A": {"Type": "X"}}}
    assert line_of(body["Resources"]["A"]) == 3


def test_an_escape_json_refuses_is_reported_where_it_is() -> None:
    with pytest.raises(TemplateError) as info:
        decode('{\n  "A": "\\q"\n}\n', "bad.json")
    assert (info.value.line, info.value.column) == (2, 9)
    assert "Invalid \\escape" in info.value.message


def test_alias_amplification_is_refused() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 7)]
    with pytest.raises(TemplateError, match="aliases expand"):
        decode("\n".join(lines) + "\n", "bomb.yaml")


def test_unsafe_tags_are_not_constructed() -> None:
    with pytest.raises(TemplateError, match="invalid YAML/JSON"):
        decode("a: !!python/object/apply:os.system ['true']\n")


def test_empty_text_is_an_empty_mapping_and_a_list_is_not_a_template() -> None:
    assert decode("") == {}
    with pytest.raises(TemplateError, match="not a mapping"):
        parse_template("- a\n", "x.yaml")


def test_file_errors(tmp_path: Path) -> None:
    with pytest.raises(TemplateError, match="file not found"):
        load_template(tmp_path / "nope.yaml")
    with pytest.raises(TemplateError, match="directory"):
        load_template(tmp_path)
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(TemplateError, match="not UTF-8"):
        load_template(binary)


def test_importing_the_loader_stays_light() -> None:
    code = (
        "import sys, cfnops.templates, cfnops.diff, cfnops.guard\n"
        "heavy = [m for m in ('cfnlint', 'sympy', 'networkx', 'boto3', 'dbos', 'esprima')"
        " if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def _same(a: Any, b: Any, where: str) -> None:
    ma, mb = getattr(a, "start_mark", None), getattr(b, "start_mark", None)
    assert (ma is None) == (mb is None), where
    if ma is not None and mb is not None:
        assert (ma.line, ma.column) == (mb.line, mb.column), where
    if isinstance(a, dict):
        assert list(a) == list(b), where
        for key in a:
            _same(a[key], b[key], f"{where}/{key}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}/{i}")
    else:
        assert a == b and type(a).__mro__[-2] is type(b).__mro__[-2], where


def test_same_values_and_positions_as_cfn_lint_on_the_corpus() -> None:
    from cfnlint.decode import decode_str

    files = sorted(p for p in CORPUS.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    assert files
    for file in files:
        text = file.read_text(encoding="utf-8")
        expected, matches = decode_str(text)
        assert not matches, file
        _same(decode(text, str(file)), expected, str(file))
