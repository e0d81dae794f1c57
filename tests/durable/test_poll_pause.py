"""A poll's pause below one second is kept; whole seconds and zero behave as the SDK's."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from cfnops.durable import Engine, RunStore
from cfnops.durable._context import _poll_pause


@pytest.mark.parametrize(
    ("delay", "pause"), [(0.25, 0.25), (0.1, 0.1), (0, 1.0), (1, 1.0), (30, 30.0), (-1, 1.0)]
)
def test_poll_pause_keeps_a_fraction_below_one_second(delay: float, pause: float) -> None:
    assert _poll_pause(delay) == pause


def test_a_sub_second_poll_is_recorded_due_after_its_own_pause(
    engine: Engine, tmp_path: Path
) -> None:
    run_id = f"poll-pause-{uuid.uuid4().hex[:8]}"
    engine.start("test.poll-pause", {"polls": 3, "pause": 0.2}, run_id=run_id)
    assert engine.result(run_id, timeout=30)["n"] == 3
    with RunStore(engine.runtime.database) as store:
        steps = [s for s in store.steps(run_id) if s.name.startswith("poll #")]
    assert [s.name for s in steps] == ["poll #1", "poll #2", "poll #3"]
    # Each unfinished poll's checkpoint says when the next is due: 0.2 s after
    # the poll (it was 1 s, the SDK's minimum, before sub-second pauses).
    # The step's result is the poll's state (never the checkpoint's {"v": …} envelope).
    for step in steps[:2]:
        assert step.next_poll is not None and set(step.result) == {"t", "n"}, step.result
        due = step.next_poll.timestamp() - step.result["t"]
        assert 0.2 <= due < 0.5
    assert steps[2].next_poll is None and "v" not in steps[2].result
