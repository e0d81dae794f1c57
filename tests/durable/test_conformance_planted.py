"""A planted wrong handler fails its requirement in every suite (whole-history comparison).

For each suite, one requirement that ends SUCCEEDED is run through the conformance
runner (the same ``Driver`` as ``benchmarks/durable_conformance.py``) three times on
the engine: with its own handler (it passes: the control), with a handler that does
the same and then runs one extra step that fails and is caught, and with one that
runs a step twice under one name (a duplicate). The result of both wrong handlers
is the right one, so only the history tells them apart: the runner must report
each as failed, naming the extra events.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from aws_durable_execution_sdk_python import DurableContext, durable_execution
from aws_durable_execution_sdk_python.config import StepConfig
from aws_durable_execution_sdk_python.retries import RetryPresets
from conformance import MODULES
from conformance.runner import SUITES, Driver, LogSink, Requirement, load_requirements

from cfnops.durable import Engine, functions, lambda_function

# The handler module and function of each suite's first requirement that ends SUCCEEDED.
_CHOSEN = {
    "step": ("h_step", "h1_1", "1-1"),
    "wait": ("h_wait", "h2_1", "2-1"),
    "child": ("h_child", "h3_1", "3-1"),
    "callback": ("h_callback", "h4_1", "4-1"),
    "invoke": ("h_invoke", "h5_1", "5-1"),
    "wait_for_condition": ("h_wait_for_condition", "h6_1", "6-1"),
    "wait_for_callback": ("h_wait_for_callback", "h7_1", "7-1"),
    "parallel": ("h_parallel", "h8_1", "8-1"),
    "map": ("h_map", "h9_1", "9-1"),
    "plugin": ("h_plugin", "h10_1", "10-1"),
}
_NO_RETRY = StepConfig(retry_strategy=RetryPresets.none())


def _fail(_: Any) -> Any:
    raise RuntimeError("planted failure")


def _extra_failed_step(context: DurableContext) -> None:
    with contextlib.suppress(Exception):  # caught: the execution's result stays right
        context.step(_fail, name="planted", config=_NO_RETRY)


def _duplicate_step(context: DurableContext) -> None:
    for _ in range(2):
        context.step(lambda _: "same", name="planted")


_PLANTS: dict[str, Callable[[DurableContext], None]] = {
    "extra-failed-step": _extra_failed_step,
    "duplicate-step": _duplicate_step,
}


def _decorator(module: str) -> Callable[[Any], Any]:
    if module == "h_plugin":  # the suite's requirement checks the plugin's hooks too
        plugin = importlib.import_module("conformance.h_plugin")
        return durable_execution(plugins=[plugin.Factory("CONFPLUGIN", *plugin.INVOCATION)])
    return durable_execution


def _plant(suite: str, kind: str) -> str:
    """Register the wrong handler of ``suite`` (the right body, then the plant); its name."""
    module, attribute, rid = _CHOSEN[suite]
    right = getattr(importlib.import_module(f"conformance.{module}"), attribute).__wrapped__
    plant = _PLANTS[kind]
    name = f"planted-{kind}-{rid}"
    if f"conf-{name}" in functions():
        return name

    def wrong(event: Any, context: DurableContext) -> Any:
        result = right(event, context)
        plant(context)
        return result

    lambda_function(f"conf-{name}")(_decorator(module)(wrong))
    return name


@pytest.fixture(scope="module")
def driver(engine: Engine) -> Iterator[Driver]:
    for module in MODULES:
        importlib.import_module(f"conformance.{module}")
    sink = LogSink()
    root = logging.getLogger()
    old = root.level
    root.addHandler(sink)
    root.setLevel(logging.INFO)
    try:
        yield Driver(engine.local_lambda(), sink)
    finally:
        root.removeHandler(sink)
        root.setLevel(old)


def _requirement(suite: str) -> Requirement:
    rid = _CHOSEN[suite][2]
    found = next(r for r in load_requirements() if r.rid == rid)
    assert found.suite == suite and found.doc["ExpectedResult"]["ExecutionStatus"] == "SUCCEEDED"
    return found


def test_every_suite_has_a_planted_handler() -> None:
    assert sorted(_CHOSEN) == sorted(SUITES)


@pytest.mark.parametrize("suite", sorted(_CHOSEN))
def test_a_planted_wrong_handler_fails(driver: Driver, suite: str) -> None:
    req = _requirement(suite)
    control = driver.run(req, set(functions()))
    assert control.passed, f"{suite}/{req.rid} with its own handler: {control.difference}"
    for kind, event in (("extra-failed-step", "StepFailed"), ("duplicate-step", "StepSucceeded")):
        name = _plant(suite, kind)
        wrong = Requirement(name, req.suite, req.doc)
        outcome = driver.run(wrong, set(functions()))
        assert not outcome.passed, f"{suite}: the {kind} handler passed"
        # the result was right: the history failed it (count and order), naming the plant
        planted = [e for e in outcome.history if e.get("Name") == "planted"]
        assert event in {e["EventType"] for e in planted}, outcome.history
        ids = "|".join(str(e["EventId"]) for e in planted)
        assert outcome.difference.startswith("history has "), (kind, outcome.difference)
        # (an id a requirement's numbering skips is not compared: the first planted
        # event can sit there, so the difference names the first planted one compared)
        assert re.search(
            rf"first difference: event ({ids}) is Step\w+ 'planted'", (outcome.difference)
        ), (kind, outcome.difference)
