"""Retry and Catch decisions, as pure functions.

See https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["RetryDecision", "decide_retry", "error_matches", "find_catcher"]

_TERMINAL = frozenset({"States.Runtime", "States.DataLimitExceeded"})


def error_matches(error_equals: Sequence[str], error: str | None) -> bool:
    """Whether a Retrier/Catcher's ErrorEquals matches ``error``.

    ``States.ALL`` matches every error except the terminal ``States.Runtime`` and
    ``States.DataLimitExceeded``; ``States.TaskFailed`` also excludes ``States.Timeout``.
    """
    for name in error_equals:
        if name == error:
            return True
        if name == "States.ALL" and error not in _TERMINAL:
            return True
        if name == "States.TaskFailed" and error not in _TERMINAL and error != "States.Timeout":
            return True
    return False


@dataclass(frozen=True, slots=True)
class RetryDecision:
    """``retrier`` is the index of the matching Retrier (None: no Retrier matched).

    ``delay`` is the seconds to wait before the next attempt, or None when the matching
    Retrier has no attempts left (then the error goes on to Catch).
    """

    retrier: int | None
    delay: float | None


def decide_retry(
    retriers: Sequence[Mapping[str, Any]],
    error: str | None,
    attempts: Sequence[int],
    rng: random.Random | None = None,
) -> RetryDecision:
    """Pick the first Retrier matching ``error``; ``attempts[i]`` counts retries it made."""
    for i, retrier in enumerate(retriers):
        if not error_matches(retrier.get("ErrorEquals", []), error):
            continue
        max_attempts = int(retrier.get("MaxAttempts", 3))
        done = attempts[i] if i < len(attempts) else 0
        if done >= max_attempts:
            return RetryDecision(i, None)
        interval = float(retrier.get("IntervalSeconds", 1))
        backoff = float(retrier.get("BackoffRate", 2.0))
        delay = interval * backoff**done
        if "MaxDelaySeconds" in retrier:
            delay = min(delay, float(retrier["MaxDelaySeconds"]))
        if retrier.get("JitterStrategy") == "FULL":
            delay = (rng or random.Random()).uniform(0, delay)
        return RetryDecision(i, delay)
    return RetryDecision(None, None)


def find_catcher(catchers: Sequence[Mapping[str, Any]], error: str | None) -> int | None:
    """Index of the first Catcher whose ErrorEquals matches ``error``."""
    for i, catcher in enumerate(catchers):
        if error_matches(catcher.get("ErrorEquals", []), error):
            return i
    return None
