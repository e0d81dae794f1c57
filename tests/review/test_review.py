"""``cfnops.review`` from Python, no command line: the result carries what ``cfnops diff``
shows (replacements, the guard's findings, what could not be checked)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfnops.cli.main import run
from cfnops.diff import Impact, to_json
from cfnops.errors import UsageError
from cfnops.review import ReviewRequest, review

GUARDED = Path(__file__).resolve().parents[1] / "guard" / "fixtures" / "cr001_node_inline"
EXTRA = """  Store:
    Type: AWS::S3::Bucket
    Properties:
      BucketName: store-a
  Widget:
    Type: AWS::Made::Up
    Properties:
      Size: 1
"""


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    """OLD and NEW: a guarded custom resource, a renamed bucket, a type of unknown schema."""
    source = (GUARDED / "template.yaml").read_text(encoding="utf-8")
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(source.replace('Value: "42"', 'Value: "41"') + EXTRA, encoding="utf-8")
    changed = EXTRA.replace("store-a", "store-b").replace("Size: 1", "Size: 2")
    new.write_text(source + changed, encoding="utf-8")
    return old, new


def test_the_result_carries_what_the_diff_shows(pair: tuple[Path, Path]) -> None:
    found = review(ReviewRequest(pair, fail_on="replace"))
    (diff,) = found.diffs
    assert found.title == "Template diff"
    impacts = {r.logical_id: r.impact for r in diff.resources}
    assert impacts == {
        "Setting": Impact.WILL_REPLACE,  # the guard's escalation: a new physical id
        "Store": Impact.WILL_REPLACE,
        "Widget": Impact.WILL_UPDATE,
    }
    setting = diff.resource("Setting")
    assert setting is not None
    assert "guard CR001" in setting.reason
    assert [a.split(")")[0] for a in setting.annotations] == [
        "guard CR001 (error",
        "guard CR001 (warning",
    ]
    widget = diff.resource("Widget")  # not checked: no schema says how Size updates
    assert widget is not None
    assert widget.reason == "Widget is updated in place (AWS::Made::Up: unknown schema)"
    assert [p.reason for p in widget.properties] == ["unknown schema"]
    assert found.tripped is not None
    assert [r.logical_id for r in found.tripped] == ["Setting", "Store"]
    assert found.failed


def test_the_command_shows_the_same_diff(
    pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    found = review(ReviewRequest(pair))
    assert run(["diff", str(pair[0]), str(pair[1]), "--output", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == to_json(found.files[0].diff)
    assert found.tripped is None and not found.failed


def test_a_stack_needs_a_runtime(pair: tuple[Path, Path]) -> None:
    with pytest.raises(UsageError, match="--stack needs AWS"):
        review(ReviewRequest(pair[1:], stack="web"))


def test_options_that_mean_nothing_together_are_refused(pair: tuple[Path, Path]) -> None:
    with pytest.raises(UsageError, match="--change-set and --drift need --stack"):
        review(ReviewRequest(pair, drift=True))
    with pytest.raises(UsageError, match="expected replace, destroy or any"):
        review(ReviewRequest(pair, fail_on="everything"))
