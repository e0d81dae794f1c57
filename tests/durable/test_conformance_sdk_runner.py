"""The conformance handlers under the SDK's own ``DurableFunctionTestRunner``.

The same modules that pass AWS's requirements on cfnops's local backend
(``test_conformance.py``) run here under the SDK's reference runner, and must reach the
result the requirement expects: a difference between cfnops and the reference shows as
a failure naming the requirement. Not run here, and why:

- requirements with ``CallbackActions``: an external caller answers their callbacks,
  which the runner's in-process run does not offer while ``run`` blocks;
- the invoke suite: its targets are Lambda functions of cfnops's registry;
- 1-17, 1-18, 3-12: the handler ends the Lambda runtime (``sys.exit``), which would
  end the test process under an in-process runner;
- requirements with no ``ExpectedResult``: they run on (a one-hour wait) until stopped.
"""

from __future__ import annotations

import importlib
import json
import random
from concurrent.futures import ThreadPoolExecutor

from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner
from conformance import MODULES
from conformance.runner import (
    REQUIREMENTS,
    Requirement,
    generate,
    load_requirements,
    match,
    substitute,
)

from cfnops.durable import get_function


def test_the_requirements_are_there() -> None:
    # Missing test data fails the suite (a skip would let CI go green on nothing).
    assert REQUIREMENTS.is_dir(), (
        f"conformance requirements not found at {REQUIREMENTS}: the tests read "
        "../shared/conformance/durable next to the repository; put the shared data there"
    )


CRASHING = {"1-17", "1-18", "3-12"}


def _runnable() -> list[Requirement]:
    return [
        r
        for r in load_requirements()
        if not r.doc.get("CallbackActions")
        and r.suite != "invoke"
        and r.rid not in CRASHING
        and r.doc.get("ExpectedResult")
    ]


def _difference(req: Requirement) -> str | None:
    doc = substitute(
        {k: v for k, v in req.doc.items() if k != "Variables"},
        generate(req.doc.get("Variables"), random.Random()),
    )
    fn = get_function(req.function).handler
    with DurableFunctionTestRunner(handler=fn) as runner:
        result = runner.run(input=json.dumps(doc.get("Input")), execution_timeout=60)
    expected = doc["ExpectedResult"]
    if result.status.name != expected["ExecutionStatus"]:
        return f"{req.rid}: status {result.status.name} != {expected['ExecutionStatus']}"
    if "Result" in expected:
        actual = json.loads(result.result) if result.result else None
        diff = match(expected["Result"], actual, {}, "Result")
        if diff:
            return f"{req.rid}: {diff}"
    return None


def test_handlers_reach_the_expected_result_under_the_sdk_runner() -> None:
    for module in MODULES:
        importlib.import_module(f"conformance.{module}")
    runnable = _runnable()
    assert len(runnable) >= 100
    with ThreadPoolExecutor(max_workers=8) as pool:
        differences = [d for d in pool.map(_difference, runnable) if d]
    assert differences == []
