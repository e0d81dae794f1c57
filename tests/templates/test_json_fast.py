"""decode_json: the C decoder's values, with marks on the paths asked for; YAML otherwise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfnops.templates import NotFastJson, decode, decode_json, line_of

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "cfn-templates"


def _everything(_: tuple[str, ...]) -> bool:
    return True


def test_marks_match_the_yaml_loader_on_kept_paths() -> None:
    text = json.dumps(
        {
            "Resources": {
                "Fn": {
                    "Type": "AWS::Lambda::Function",
                    "Properties": {"Code": {"ZipFile": {"Fn::Join": ["\n", ["a", "b"]]}}},
                }
            },
            "Outputs": {"X": {"Value": "y"}},
        },
        indent=2,
    )
    slow = decode(text, "t.json")
    fast = decode_json(text, "t.json", lambda p: p[0] == "Resources")
    assert fast == slow
    code = fast["Resources"]["Fn"]["Properties"]["Code"]["ZipFile"]
    slow_code = slow["Resources"]["Fn"]["Properties"]["Code"]["ZipFile"]
    assert line_of(code) == line_of(slow_code) == 7
    assert code.start_mark.column == slow_code.start_mark.column
    items = code["Fn::Join"][1]
    assert [line_of(i) for i in items] == [line_of(i) for i in slow_code["Fn::Join"][1]]
    # not kept: plain values from the C scanner, no position
    assert line_of(fast["Outputs"]["X"]) is None
    assert type(fast["Outputs"]["X"]) is dict


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('{"A": 1, "A": 2}', id="duplicate-key-top"),
        pytest.param('{"R": {"B": {"x": 1, "x": 2}}}', id="duplicate-key-deep"),
        pytest.param("{A: 1}", id="yaml-flow"),
        pytest.param('{"A": 1} trailing', id="trailing-text"),
        pytest.param('{"A": [1, }', id="broken"),
        pytest.param("[1]", id="not-an-object"),
    ],
)
def test_anything_but_plain_json_is_left_to_the_yaml_loader(text: str) -> None:
    with pytest.raises(NotFastJson):
        decode_json(text, "t.json", _everything)


def test_corpus_json_templates_decode_to_the_same_values_and_lines() -> None:
    files = sorted(CORPUS.rglob("*.json"))[:60]
    assert files
    checked = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        try:
            fast = decode_json(text, str(path), _everything)
        except NotFastJson:
            continue
        slow = decode(text, str(path))
        assert json.dumps(fast, sort_keys=True, default=str) == json.dumps(
            slow, sort_keys=True, default=str
        ), path
        resources = fast.get("Resources", {})
        for rid, res in resources.items():
            assert line_of(res) == line_of(slow["Resources"][rid]), (path, rid)
        checked += 1
    assert checked >= 20
