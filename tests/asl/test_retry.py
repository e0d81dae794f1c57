"""Retry and Catch decisions (pure)."""

from __future__ import annotations

import random

import pytest

from cfnops.asl._retry import decide_retry, error_matches, find_catcher


@pytest.mark.parametrize(
    ("names", "error", "expected"),
    [
        (["States.ALL"], "Custom", True),
        (["States.ALL"], "States.Runtime", False),
        (["States.ALL"], "States.DataLimitExceeded", False),
        (["States.TaskFailed"], "Lambda.Unknown", True),
        (["States.TaskFailed"], "States.Timeout", False),
        (["States.Timeout"], "States.Timeout", True),
        (["A", "B"], "B", True),
        (["A"], "B", False),
    ],
)
def test_error_matching(names: list[str], error: str, expected: bool) -> None:
    assert error_matches(names, error) is expected


def test_backoff_and_exhaustion() -> None:
    retriers = [{"ErrorEquals": ["E"], "IntervalSeconds": 2, "BackoffRate": 3, "MaxAttempts": 3}]
    delays = [decide_retry(retriers, "E", [n]).delay for n in range(4)]
    assert delays == [2.0, 6.0, 18.0, None]


def test_max_delay_caps_the_interval() -> None:
    retriers = [{"ErrorEquals": ["E"], "IntervalSeconds": 3, "MaxDelaySeconds": 5}]
    assert decide_retry(retriers, "E", [2]).delay == 5.0


def test_full_jitter_stays_below_the_delay() -> None:
    retriers = [{"ErrorEquals": ["E"], "IntervalSeconds": 4, "JitterStrategy": "FULL"}]
    rng = random.Random(1)
    for _ in range(20):
        delay = decide_retry(retriers, "E", [0], rng).delay
        assert delay is not None and 0 <= delay <= 4


def test_max_attempts_zero_never_retries_and_first_match_wins() -> None:
    retriers = [{"ErrorEquals": ["E"], "MaxAttempts": 0}, {"ErrorEquals": ["States.ALL"]}]
    decision = decide_retry(retriers, "E", [0, 0])
    assert decision.retrier == 0 and decision.delay is None
    assert decide_retry(retriers, "Other", [0, 0]).retrier == 1
    assert decide_retry([], "E", []).retrier is None


def test_catcher_order() -> None:
    catchers = [{"ErrorEquals": ["A"], "Next": "x"}, {"ErrorEquals": ["States.ALL"], "Next": "y"}]
    assert find_catcher(catchers, "A") == 0
    assert find_catcher(catchers, "B") == 1
    assert find_catcher(catchers, "States.Runtime") is None
