"""Reading definitions from JSON or YAML."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfnops.asl import DefinitionLoadError, load_definition, validate

YAML = """
StartAt: Hello
States:
  Hello:
    Type: Pass
    End: true
"""


def test_json_and_yaml_text_and_files(tmp_path: Path) -> None:
    as_json = load_definition(
        '{"StartAt": "Hello", "States": {"Hello": {"Type": "Pass", "End": true}}}'
    )
    assert load_definition(YAML) == as_json
    path = tmp_path / "hello.asl.yaml"
    path.write_text(YAML)
    assert load_definition(path) == as_json
    assert load_definition(str(path)) == as_json
    assert validate(as_json) == []


def test_syntax_errors_name_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.asl.json"
    path.write_text('{\n  "StartAt": "A",\n  "States": {\n    "A": [ }\n}\n')
    with pytest.raises(DefinitionLoadError) as info:
        load_definition(path)
    assert info.value.where == str(path)
    assert info.value.line == 4
    assert info.value.exit_code == 2


def test_non_object_is_rejected() -> None:
    with pytest.raises(DefinitionLoadError):
        load_definition("[1, 2]")
