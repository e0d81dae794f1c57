from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from cfnops.notify import fences_balanced, truncate_for_slack
from cfnops.notify._slack_text import close_fences

_pieces = st.lists(
    st.sampled_from(["```", "\n", "x", "y ", "``", "`", "é", "line\n", "```\ncode\n"]),
    max_size=400,
)


@given(text=_pieces.map("".join), limit=st.integers(min_value=40, max_value=600))
@example(text="line\n```\ncode\n```\ncode\n```\ncode\n```\ncode\n", limit=40)
@settings(max_examples=300, deadline=None)
def test_truncation_stays_under_the_limit_keeps_a_prefix_and_balances_fences(
    text: str, limit: int
) -> None:
    out = truncate_for_slack(text, limit)
    assert len(out) <= limit
    if len(close_fences(text)) <= limit:
        # text that fits comes back whole, a fence it left open closed
        assert out == close_fences(text) and out.startswith(text)
        assert fences_balanced(out)
        return
    assert "the rest is omitted" in out
    kept = out[: out.index("\n… the rest is omitted")]
    if kept.endswith("```") and not text.startswith(kept):
        kept = kept[:-3].rstrip("\n")
    assert text.startswith(kept)
    if fences_balanced(text[: len(kept)]):
        assert fences_balanced(out)
    assert fences_balanced(out.split("\n… the rest")[0])


def test_open_fence_is_closed_before_the_note() -> None:
    text = "intro\n```\n" + "\n".join(f"row {i}" for i in range(200)) + "\n```\nafter"
    out = truncate_for_slack(text, 300)
    assert out.count("```") == 2
    body, note = out.split("\n… the rest is omitted ")
    assert body.endswith("\n```")
    assert note.startswith("(") and note.endswith("more characters)")
    assert len(out) <= 300


def test_text_that_fits_is_unchanged() -> None:
    assert truncate_for_slack("```\nok\n```", 3000) == "```\nok\n```"


def test_a_cut_never_splits_a_fence() -> None:
    text = "a" * 30 + "```" + "b" * 100
    out = truncate_for_slack(text, 80)
    assert "``\n" not in out.replace("```", "")
    assert fences_balanced(out)


def test_tiny_limits_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 40"):
        truncate_for_slack("x" * 100, 10)


def test_text_that_fits_with_an_open_fence_is_closed() -> None:
    assert truncate_for_slack("result:\n```\n{}", 100) == "result:\n```\n{}\n```"
    assert truncate_for_slack("plain", 100) == "plain"
