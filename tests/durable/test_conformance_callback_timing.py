"""The runner answers a callback at the point the requirement means, however slow a replay.

``callback/4-18``: answers A (delay 3 s) and B (delay 4 s); the history has B received
after the replay A's answer started has completed. A replay slower than the second
between the delays (a loaded machine; it failed 154/155 on PostgreSQL) put B's answer
before that replay's ``InvocationCompleted``. Here every invocation of the handler
takes 1.5 s: the runner holds B until the execution is suspended again, and the
requirement passes; sending B at its delay regardless (the old runner) fails it.
"""

from __future__ import annotations

import importlib
import logging
import time
from collections.abc import Iterator
from typing import Any

import pytest
from aws_durable_execution_sdk_python import DurableContext, durable_execution
from conformance import runner
from conformance.runner import Driver, LogSink, Requirement, load_requirements

from cfnops.durable import Engine, functions, lambda_function

_SLOW = "slow-replay-4-18"


def _register() -> None:
    if f"conf-{_SLOW}" in functions():
        return
    right = importlib.import_module("conformance.h_callback").h4_18.__wrapped__

    @lambda_function(f"conf-{_SLOW}")
    @durable_execution
    def slow(event: Any, context: DurableContext) -> Any:
        time.sleep(1.5)  # every invocation, replays included, outside any operation
        return right(event, context)


@pytest.fixture(scope="module")
def driver(engine: Engine) -> Iterator[Driver]:
    _register()
    sink = LogSink()
    logging.getLogger().addHandler(sink)
    try:
        yield Driver(engine.local_lambda(), sink)
    finally:
        logging.getLogger().removeHandler(sink)


def _slow_requirement() -> Requirement:
    found = next(r for r in load_requirements() if r.rid == "4-18")
    return Requirement(_SLOW, found.suite, found.doc)


def test_an_answer_waits_for_the_slow_replay_before_it(driver: Driver) -> None:
    outcome = driver.run(_slow_requirement(), set(functions()))
    assert outcome.passed, outcome.difference
    kinds = [e["EventType"] for e in outcome.history]
    assert kinds[1:8] == [
        "CallbackStarted",
        "CallbackStarted",
        "InvocationCompleted",
        "CallbackSucceeded",
        "InvocationCompleted",
        "CallbackSucceeded",
        "InvocationCompleted",
    ]


def test_answering_at_the_delay_regardless_fails(
    driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control: without the wait for suspension the slow replay breaks the order."""
    monkeypatch.setattr(runner, "_suspended", lambda record: True)
    outcome = driver.run(_slow_requirement(), set(functions()))
    assert not outcome.passed
    kinds = [e["EventType"] for e in outcome.history]
    second = [i for i, k in enumerate(kinds) if k == "CallbackSucceeded"][1]
    # B's answer was recorded while replay 1 ran: no InvocationCompleted between the two
    assert "InvocationCompleted" not in kinds[kinds.index("CallbackSucceeded") + 1 : second]
