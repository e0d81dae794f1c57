"""Pure text helpers for Slack: truncation that keeps code fences balanced.

Slack's Block Kit limits (https://api.slack.com/reference/block-kit/blocks):
a ``section`` text holds at most 3,000 characters, a ``header`` 150, a field
2,000, a section at most 10 fields, a message at most 50 blocks.
"""

from __future__ import annotations

FENCE = "```"
SECTION_LIMIT = 3000
HEADER_LIMIT = 150
FIELD_LIMIT = 2000
MAX_FIELDS = 10
MAX_BLOCKS = 50
_MIN_LIMIT = 40


def omitted_note(count: int | None) -> str:
    """The note after a cut; without ``count`` (short limits) it omits the figure."""
    if count is None:
        return "\n… the rest is omitted"
    return f"\n… the rest is omitted ({count} more characters)"


def fences_balanced(text: str) -> bool:
    """True when ``text`` opens and closes every ``` fence."""
    return text.count(FENCE) % 2 == 0


def close_fences(text: str) -> str:
    """``text`` with an open code fence closed (unchanged when balanced)."""
    if fences_balanced(text):
        return text
    return text + ("" if text.endswith("\n") else "\n") + FENCE


def truncate_for_slack(text: str, limit: int = SECTION_LIMIT) -> str:
    """``text`` cut to at most ``limit`` characters, fences closed, with a note.

    The kept part is a prefix of ``text`` (cut at a line break when one is near);
    an open code fence is closed before the note "… the rest is omitted". Text
    that fits is returned unchanged, but for a fence it left open, which is closed.

    >>> truncate_for_slack("```\\n" + "x" * 100 + "\\n```", 60).count("```")
    2
    """
    if limit < _MIN_LIMIT:
        raise ValueError(f"limit must be at least {_MIN_LIMIT} characters, got {limit}")
    if len(close_fences(text)) <= limit:
        return close_fences(text)
    # Reserve room for the closing fence and the note (its count has at most
    # as many digits as len(text)); near the minimum limit the note drops its figure.
    with_count = len(omitted_note(len(text))) + len(FENCE) + 1 <= limit // 2
    reserve = len(omitted_note(len(text) if with_count else None)) + len(FENCE) + 1
    cut = max(0, limit - reserve)
    # Prefer a line boundary in the last quarter of the kept text.
    newline = text.rfind("\n", 0, cut + 1)
    if newline >= cut * 3 // 4:
        cut = newline
    # Never split a fence: back off over trailing backticks.
    while cut > 0 and text[cut - 1] == "`":
        cut -= 1
    kept = text[:cut]
    if not fences_balanced(kept):
        kept = kept + ("" if kept.endswith("\n") else "\n") + FENCE
    return kept + omitted_note(len(text) - cut if with_count else None)


def truncate_plain(text: str, limit: int) -> str:
    """A single-line cut with an ellipsis (headers, fields)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
