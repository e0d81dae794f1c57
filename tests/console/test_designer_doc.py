"""The designer's document model: open and save without edits is lossless (JSON and YAML).

Every definition in ``examples/`` and every ASL conformance case definition in
``../shared/conformance/asl`` goes through the model; YAML copies are made here (the
shared data stays where it is).
"""

from __future__ import annotations

import copy
import difflib
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from cfnops.console._designer_doc import DesignSyntaxError, open_text, save_text

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / ".." / "shared" / "conformance" / "asl" / "cases"


def _examples() -> list[Path]:
    return sorted(ROOT.glob("examples/**/*.asl.json")) + sorted(ROOT.glob("examples/**/*.asl.yaml"))


def _cases() -> list[Any]:
    if not CASES.is_dir():
        return [pytest.param(None, id="no-conformance-data")]
    return [pytest.param(p, id=p.stem.split(".")[0][-60:]) for p in sorted(CASES.glob("*/*.json"))]


def _edited(data: dict[str, Any]) -> dict[str, Any]:
    """The designer's smallest edit: a Comment set on the first state."""
    out = copy.deepcopy(data)
    states = out.get("States")
    if isinstance(states, dict) and states:
        first = next(iter(states))
        states[first] = {**states[first], "Comment": "cfnops:pool=batch"}
    else:
        out["Comment"] = "edited"
    return out


def _round_trips(text: str, fmt: str) -> None:
    doc = open_text(text, fmt)
    browser_copy = json.loads(json.dumps(doc.data))  # what the page sends back unedited
    assert save_text(doc, browser_copy) == text
    # Through the serialiser proper: a new document, and the edited one in place.
    fresh = save_text(None, browser_copy, fmt)
    assert open_text(fresh, fmt).data == json.loads(json.dumps(doc.data))
    edited = _edited(browser_copy)
    written = save_text(doc, edited)
    again = open_text(written, fmt)
    assert again.data == edited
    assert again.format == fmt
    if fmt == "yaml":
        assert yaml.safe_load(written) == edited
        with pytest.raises(ValueError):
            json.loads(written)
    else:
        assert json.loads(written) == edited


@pytest.mark.parametrize("path", _examples(), ids=lambda p: p.name)
def test_examples_open_and_save_losslessly(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    _round_trips(text, "json" if path.suffix == ".json" else "yaml")
    as_yaml = save_text(None, json.loads(text), "yaml")
    _round_trips(as_yaml, "yaml")


@pytest.mark.parametrize("path", _cases())
def test_conformance_definitions_open_and_save_losslessly(path: Path | None) -> None:
    assert path is not None, f"conformance data not found at {CASES} (check out ../shared)"
    definition = json.loads(path.read_text(encoding="utf-8"))["definition"]
    text = json.dumps(definition, indent=2)
    _round_trips(text, "json")
    _round_trips(save_text(None, definition, "yaml"), "yaml")


def test_yaml_edits_keep_comments_quoting_and_key_order() -> None:
    text = (
        "# nightly batch\n"
        "Comment: 'cfnops:pool=batch'\n"
        "StartAt: Extract\n"
        "States:\n"
        "  Extract:   # the first step\n"
        "    Type: Task\n"
        "    Resource: arn:aws:states:::lambda:invoke\n"
        '    Parameters: {FunctionName: "extract", Payload.$: $}\n'
        "    Next: Done\n"
        "  Done:\n"
        "    Type: Succeed\n"
    )
    doc = open_text(text, "yaml")
    data = json.loads(json.dumps(doc.data))
    data["States"]["Extract"]["TimeoutSeconds"] = 60
    data["States"]["Load"] = {"Type": "Pass", "End": True}
    out = save_text(doc, data)
    assert out.startswith("# nightly batch\nComment: 'cfnops:pool=batch'\n")
    assert "  Extract:   # the first step\n" in out
    assert list(yaml.safe_load(out)["States"]) == ["Extract", "Done", "Load"]
    # A new key goes where Workflow Studio writes it: TimeoutSeconds before the transition.
    assert list(yaml.safe_load(out)["States"]["Extract"])[-2:] == ["TimeoutSeconds", "Next"]
    assert yaml.safe_load(out) == data


def test_json_keeps_indentation_and_final_newline() -> None:
    text = '{\n    "StartAt": "A",\n    "States": {"A": {"Type": "Succeed"}}\n}'
    doc = open_text(text, "json")
    data = {**doc.data, "Comment": "x"}
    out = save_text(doc, data)
    assert out.startswith('{\n    "Comment": "x",\n    "StartAt": "A",') and not out.endswith("\n")
    assert out.endswith('"States": {"A": {"Type": "Succeed"}}\n}')  # the one-line object kept
    assert list(json.loads(out)) == ["Comment", "StartAt", "States"]


@pytest.mark.parametrize(
    ("text", "fmt", "line", "column"),
    [
        ('{\n  "StartAt": "A",\n  "States": {\n    "A": {"Type": "Pass",}\n  }\n}', "json", 4, 26),
        ("StartAt: A\nStates:\n  A: {Type: Pass\n  B: 1\n", "yaml", 4, 4),
        ("[1, 2]", "json", 1, None),
    ],
    ids=["json-trailing-comma", "yaml-unclosed-flow", "not-an-object"],
)
def test_syntax_errors_name_the_line(text: str, fmt: str, line: int, column: int | None) -> None:
    with pytest.raises(DesignSyntaxError) as caught:
        open_text(text, fmt)
    assert caught.value.line == line
    if column is not None:
        assert caught.value.column == column
    assert f"line {line}" in caught.value.message
    assert caught.value.to_json()["line"] == line


def _changed_lines(before: str, after: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def _sorted(data: Any) -> Any:
    """The data as the page sends it back: every object's keys sorted (Jinja's tojson)."""
    return json.loads(json.dumps(data, sort_keys=True))


@pytest.mark.parametrize("path", _examples(), ids=lambda p: p.name)
def test_one_comment_edit_is_one_changed_line(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    doc = open_text(text, "json" if path.suffix == ".json" else "yaml")
    data = _sorted(doc.data)
    first = next(s for s in data["States"].values() if "Comment" in s or "Next" in s)
    if "Comment" in first:
        first["Comment"] = first["Comment"] + " (edited)"
        assert len(_changed_lines(text, save_text(doc, data))) == 2  # one line out, one in
    else:
        first["Comment"] = "edited"
        out = save_text(doc, data)
        assert _changed_lines(text, out)[0].lstrip("+ ").startswith(('"Comment"', "Comment:"))
        assert len(_changed_lines(text, out)) == 1  # one line added, after Type
    assert open_text(save_text(doc, data), doc.format).data == data


def test_json_edits_keep_layout_and_place_new_keys() -> None:
    text = (
        "{\n"
        '\t"StartAt": "A",\n'
        '\t"States": {\n'
        '\t\t"A": {"Type": "Pass", "Next": "B"},\n'
        '\t\t"B": {\n\t\t\t"Type": "Task",\n\t\t\t"Resource": "arn:aws:states:::lambda:invoke",\n'
        '\t\t\t"Retry": [{"ErrorEquals": ["States.ALL"]}],\n\t\t\t"End": true\n\t\t}\n'
        "\t}\n"
        "}\n"
    )
    doc = open_text(text, "json")
    data = _sorted(doc.data)
    data["States"]["B"]["ResultPath"] = "$.r"
    data["States"]["B"]["Retry"].append({"ErrorEquals": ["X"], "MaxAttempts": 1})
    data["States"]["C"] = {"Type": "Succeed"}
    del data["States"]["A"]["Next"]
    data["States"]["A"]["End"] = True
    out = save_text(doc, data)
    assert json.loads(out) == data
    assert list(json.loads(out)["States"]) == ["A", "B", "C"]
    keys = ["Type", "Resource", "ResultPath", "Retry", "End"]
    assert list(json.loads(out)["States"]["B"]) == keys
    assert '\t\t"A": {"Type": "Pass", "End": true},\n' in out
    assert '\t\t\t"ResultPath": "$.r",\n\t\t\t"Retry": [' in out
    assert '\t\t"C": {\n\t\t\t"Type": "Succeed"\n\t\t}\n\t}\n}\n' in out


def test_a_commented_yaml_comment_edit_is_one_changed_line() -> None:
    text = (
        "# stop the web system (owner: ops)\n"
        "Comment: 'cfnops:pool=web'\n"
        "StartAt: Stop\n"
        "States:\n"
        "  Stop:  # RunCommand on the web tier\n"
        "    Type: Task\n"
        '    Comment: "stop httpd"\n'
        "    Resource: arn:aws:states:::aws-sdk:ssm:sendCommand\n"
        "    Parameters:\n"
        "      DocumentName: AWS-RunShellScript\n"
        "      InstanceIds.$: $.instanceIds\n"
        "    Next: Done\n"
        "  Done: {Type: Succeed}\n"
    )
    doc = open_text(text, "yaml")
    data = _sorted(doc.data)
    data["States"]["Stop"]["Comment"] = "stop httpd and nginx"
    out = save_text(doc, data)
    assert _changed_lines(text, out) == [
        '-    Comment: "stop httpd"',
        '+    Comment: "stop httpd and nginx"',
    ]
