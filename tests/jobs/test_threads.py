"""Reused helper threads for Task calls: a call never waits for another, none is lost."""

from __future__ import annotations

import contextvars
import os
import threading

from cfnops.jobs._threads import on_helper

_MARK: contextvars.ContextVar[str] = contextvars.ContextVar("mark", default="none")


def test_a_hanging_call_does_not_hold_the_next_ones() -> None:
    release = threading.Event()

    def hang() -> None:
        release.wait(30)

    on_helper(hang)
    done = [threading.Event() for _ in range(20)]
    for event in done:
        on_helper(event.set)
    try:
        assert all(event.wait(10) for event in done)
    finally:
        release.set()


def test_a_reused_helper_starts_each_call_with_no_context_variables() -> None:
    seen: list[str] = []
    first, second = threading.Event(), threading.Event()

    def set_mark() -> None:
        _MARK.set("left by the last call")
        first.set()

    def read_mark() -> None:
        seen.append(_MARK.get())
        second.set()

    on_helper(set_mark)
    assert first.wait(10)
    on_helper(read_mark)
    assert second.wait(10)
    assert seen == ["none"]


def test_a_forked_child_gets_helpers_of_its_own() -> None:
    warm = threading.Event()
    on_helper(warm.set)  # a helper now idle in this process, absent from the child
    assert warm.wait(10)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        ran = threading.Event()
        on_helper(ran.set)
        os._exit(0 if ran.wait(10) else 3)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
