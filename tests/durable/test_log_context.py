"""``--log-format json`` lines name the run, workflow, step, state and stack they are about
(cfnops.logcontext bound by the engine, its context and the ASL interpreter)."""

from __future__ import annotations

import io
import json
import logging
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from cfnops import logcontext
from cfnops.asl import FakeInvoker, Interpreter
from cfnops.durable import Engine
from cfnops.logcontext import JsonFormatter


@pytest.fixture
def json_lines() -> Iterator[io.StringIO]:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("cfnops.test.logs")
    logger.addHandler(handler)
    try:
        yield out
    finally:
        logger.removeHandler(handler)


def _lines(out: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_a_step_log_names_run_workflow_step_and_stack(
    engine: Engine, json_lines: io.StringIO
) -> None:
    run_id = f"logs-{uuid.uuid4().hex[:8]}"
    engine.start("test.logs", {"stack": "web-prod"}, run_id=run_id)
    assert engine.result(run_id, timeout=30) == "ok"
    [line] = [d for d in _lines(json_lines) if d["message"] == "inside the step"]
    assert line["run_id"] == run_id
    assert line["workflow"] == "test.logs"
    assert line["step"] == "say"
    assert line["stack"] == "web-prod"
    assert line["level"] == "WARNING" and line["logger"] == "cfnops.test.logs"
    assert line["time"].endswith("+00:00")


def test_an_asl_task_log_names_its_state(json_lines: io.StringIO) -> None:
    def task(payload: Any, context: Any) -> Any:
        logging.getLogger("cfnops.test.logs").warning("in the task")
        return payload

    definition = {
        "StartAt": "First",
        "States": {
            "First": {"Type": "Pass", "Next": "Work"},
            "Work": {
                "Type": "Task",
                "Resource": "arn:aws:lambda:us-east-1:1:function:work",
                "End": True,
            },
        },
    }
    Interpreter(definition, invoker=FakeInvoker({"work": task})).run({"a": 1})
    [line] = _lines(json_lines)
    assert line["state"] == "Work" and line["message"] == "in the task"
    logging.getLogger("cfnops.test.logs").warning("after the run")
    assert "state" not in _lines(json_lines)[-1]  # unbound when the state ended


def test_tasks_with_a_timeout_and_parallel_branches_keep_the_callers_fields(
    json_lines: io.StringIO,
) -> None:
    """A Task with TimeoutSeconds runs on its own thread, Parallel branches on a pool:
    the run's fields bound around the interpreter reach their log lines."""

    def task(payload: Any, context: Any) -> Any:
        logging.getLogger("cfnops.test.logs").warning("in %s", context.state_name)
        return payload

    resource = "arn:aws:lambda:us-east-1:1:function:work"
    definition = {
        "StartAt": "Timed",
        "States": {
            "Timed": {"Type": "Task", "Resource": resource, "TimeoutSeconds": 30, "Next": "Both"},
            "Both": {
                "Type": "Parallel",
                "End": True,
                "Branches": [
                    {
                        "StartAt": b,
                        "States": {b: {"Type": "Task", "Resource": resource, "End": True}},
                    }
                    for b in ("Left", "Right")
                ],
            },
        },
    }
    with logcontext.bound(run_id="r-threads", workflow="cfnops.jobs.execution"):
        Interpreter(definition, invoker=FakeInvoker({"work": task})).run({"a": 1})
    lines = _lines(json_lines)
    assert sorted(line["state"] for line in lines) == ["Left", "Right", "Timed"]
    assert {(line["run_id"], line["workflow"]) for line in lines} == {
        ("r-threads", "cfnops.jobs.execution")
    }


def test_exceptions_become_one_field_and_extras_are_kept() -> None:
    formatter = JsonFormatter()
    try:
        raise ValueError("bad\nvalue")
    except ValueError:
        import sys

        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed", None, sys.exc_info())
    record.stack = "db"
    line = json.loads(formatter.format(record))
    assert line["error"] == "ValueError: bad value"
    assert line["stack"] == "db" and "traceback" not in line
    assert "traceback" in json.loads(JsonFormatter(tracebacks=True).format(record))
