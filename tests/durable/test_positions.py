"""Effect positions: typed, stored as canonical JSON, read back without splitting strings;
the engine's checkpoint store keyed by them."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests._runtime import database_for

from cfnops.config import load_settings
from cfnops.durable import (
    Attempt,
    BadPosition,
    Branch,
    CheckpointStore,
    Mark,
    Position,
    Segment,
    Sleep,
    Visit,
)

# State names may hold any character (ASL allows up to 80); the old string keys broke on
# '/', '#', '@' and '~' in them.
NAMES = st.text(min_size=1, max_size=80)
NUMBERS = st.integers(min_value=0, max_value=10**6)
SEGMENTS: st.SearchStrategy[Segment] = st.one_of(
    st.builds(Visit, NAMES, NUMBERS),
    st.builds(Branch, NUMBERS, NUMBERS),
    st.builds(Attempt, NUMBERS),
    st.builds(Sleep, NUMBERS),
    st.builds(Mark, NAMES),
)


@given(st.lists(SEGMENTS, max_size=8))
def test_a_position_reads_back_as_itself(segments: list[Segment]) -> None:
    position = Position(tuple(segments))
    text = position.to_json()
    assert Position.from_json(text) == position
    assert Position.from_json(text).to_json() == text  # one spelling per position


def test_the_stored_text_is_a_json_array_of_tagged_segments() -> None:
    position = Position.of(Visit("Stop/#@~b1", 1), Branch(1, 0), Visit("Ü", 2), Attempt(1))
    assert position.to_json() == (
        '[["state","Stop/#@~b1",1],["branch",1,0],["state","Ü",2],["attempt",1]]'
    )
    assert position.last_visit() == Visit("Ü", 2)
    assert position.entry() == Position.of(Visit("Stop/#@~b1", 1), Branch(1, 0), Visit("Ü", 2))
    assert position.startswith(Position.of(Visit("Stop/#@~b1", 1), Branch(1, 0)))
    assert not position.startswith(Position.of(Visit("Stop/#@~b1", 1), Branch(1, 1)))
    assert Position.of(Mark("notify")).last_visit() is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("/A#1@1", "not JSON"),
        ('{"state": "A"}', "not a JSON array"),
        ('[["state","A"]]', "unknown segment"),
        ('[["state","A",true]]', "unknown segment"),
        ('[["attempt",-1]]', "unknown segment"),
        ('[["elsewhere",1]]', "unknown segment"),
    ],
)
def test_text_that_is_not_a_position_is_refused_by_name(text: str, reason: str) -> None:
    with pytest.raises(BadPosition) as info:
        Position.from_json(text)
    assert reason in str(info.value) and text[:10] in str(info.value)


def test_checkpoints_by_position(tmp_path: Path) -> None:
    store = CheckpointStore(
        database_for(load_settings(database_url=f"sqlite:///{tmp_path / 'c.sqlite'}"))
    )
    branch = Position.of(Visit("M", 1), Branch(1, 0))
    task = branch.then(Visit("T", 1), Attempt(1))
    other = Position.of(Visit("M", 1), Branch(1, 1), Visit("T", 1), Attempt(1))
    assert store.get("r", task) is None
    store.put("r", task, "task", ok=True, result={"n": 1})
    store.put("r", other, "task", ok=False, error="E", cause="c")
    store.put("r", branch, "branch", ok=False)
    assert store.get("r", task) is not None and store.get("r", task).result == {"n": 1}  # type: ignore[union-attr]
    assert store.get("other-run", task) is None
    assert set(store.failed("r")) == {other, branch}
    first = store.deadline("r", Position.of(Visit("W", 1), Sleep(1)), 100.0)
    again = store.deadline("r", Position.of(Visit("W", 1), Sleep(1)), 999.0)
    assert first == again == 100.0  # a resumed wait ends when it first would have
    store.put("r", task, "forced", ok=False, error="F")  # replaces the earlier answer
    found = store.get("r", task)
    assert found is not None and (found.kind, found.ok, found.error) == ("forced", False, "F")
    store.delete("r", [task, other])
    assert [c.position for c in store.of_run("r")] == [branch, Position.of(Visit("W", 1), Sleep(1))]
