"""The same workflow modules run unchanged under the SDK's own test runner.

That runner executes the Lambda durable-functions protocol in-process, so a
pass here shows the module deploys to AWS Lambda durable functions as is.
"""

from __future__ import annotations

import json
from pathlib import Path

import durable_test_workflows as wf
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner

from cfnops.demo.workflows import SAMPLE_WORKFLOW, sample
from cfnops.durable import Engine


def test_sample_gives_the_same_answer_on_lambda_runner_and_dbos(engine: Engine) -> None:
    event = {"text": "drift found and healed", "wait_seconds": 2, "polls": 3}
    with DurableFunctionTestRunner(handler=sample) as runner:
        result = runner.run(input=json.dumps(event), execution_timeout=60)
    assert result.status.name == "SUCCEEDED"
    on_lambda = json.loads(result.result)
    assert [op.name for op in result.operations] == [
        "fingerprint",
        "count-words",
        "pause",
        "poll",
        "summarise",
    ]
    run = engine.start(SAMPLE_WORKFLOW, event)
    assert (
        engine.result(run.run_id, timeout=30)
        == on_lambda
        == {"digest": on_lambda["digest"], "words": 4, "polls": 3}
    )


def test_three_steps_runs_each_step_once_under_the_sdk_runner(tmp_path: Path) -> None:
    log = str(tmp_path / "log")
    with DurableFunctionTestRunner(handler=wf.three_steps) as runner:
        result = runner.run(input=json.dumps({"log": log, "wait_seconds": 3}), execution_timeout=60)
    assert result.status.name == "SUCCEEDED"
    assert json.loads(result.result) == {"results": ["one", "two", "three"]}
    # The SDK replays the function after the wait; checkpointed steps do not run again.
    assert [wf.count(log, s) for s in ("step1", "step2-end", "step3")] == [1, 1, 1]


def test_retries_behave_alike_under_the_sdk_runner(tmp_path: Path) -> None:
    log = str(tmp_path / "log")
    with DurableFunctionTestRunner(handler=wf.flaky) as runner:
        result = runner.run(
            input=json.dumps({"log": log, "fail_times": 2, "max_attempts": 3}), execution_timeout=60
        )
    assert result.status.name == "SUCCEEDED"
    assert json.loads(result.result) == 3
    assert wf.count(log, "attempt") == 3
