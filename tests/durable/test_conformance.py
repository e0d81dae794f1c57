"""AWS's durable-execution conformance requirements on the local Lambda backend (SQLite).

Runs every requirement of ``../shared/conformance/durable`` with the handlers of
``tests/durable/conformance`` (the same runner as ``benchmarks/durable_conformance.py``)
and fails when fewer pass than the floor below, the figure this backend has reached:
raise it when more pass, never lower it to make a regression green.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterator

import pytest
from conformance import MODULES
from conformance.runner import IMPOSSIBLE, REQUIREMENTS, LogSink, Outcome, run_all

from cfnops.durable import Engine, LocalLambda, functions

# Requirements that pass on SQLite today (of 155).
FLOOR = 60

pytestmark = pytest.mark.skipif(
    not REQUIREMENTS.is_dir(), reason=f"conformance requirements not found at {REQUIREMENTS}"
)


@pytest.fixture(scope="module")
def outcomes(engine: Engine) -> Iterator[list[Outcome]]:
    for module in MODULES:
        try:
            importlib.import_module(f"conformance.{module}")
        except ModuleNotFoundError:
            continue
    sink = LogSink()
    root = logging.getLogger()
    old = root.level
    root.addHandler(sink)
    root.setLevel(logging.INFO)
    try:
        backend = LocalLambda.for_settings(engine.settings)
        yield run_all(backend, sink, set(functions()))
    finally:
        root.removeHandler(sink)
        root.setLevel(old)


def test_every_requirement_is_run_or_listed(outcomes: list[Outcome]) -> None:
    assert len(outcomes) == 155
    for outcome in outcomes:
        if outcome.requirement.rid in IMPOSSIBLE:
            assert outcome.difference.startswith("impossible locally:")


def test_conformance_does_not_fall_below_the_floor(outcomes: list[Outcome]) -> None:
    failing = [
        f"{o.requirement.suite}/{o.requirement.rid}: {o.difference}"
        for o in outcomes
        if not o.passed
    ]
    passed = len(outcomes) - len(failing)
    assert passed >= FLOOR, f"{passed}/155 pass (floor {FLOOR}):\n" + "\n".join(failing)
