"""``cfnops runs history RUN [-o json]``: GetDurableExecutionHistory's shape for every run."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from aws_durable_execution_sdk_python import DurableContext, durable_execution
from aws_durable_execution_sdk_python.config import Duration

from cfnops.cli.main import run
from cfnops.durable import Engine, lambda_function


@lambda_function("history-demo")
@durable_execution
def demo(event: Any, context: DurableContext) -> Any:
    doubled = context.step(lambda _: event["n"] * 2, name="double")
    context.wait(Duration.from_seconds(1), name="settle")
    return doubled


@pytest.fixture
def cli(engine: Engine, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Any:
    monkeypatch.setenv("CFNOPS_DATABASE_URL", engine.settings.database_url)

    def call(*args: str) -> tuple[int, str]:
        capsys.readouterr()
        code = run(list(args))
        return code, capsys.readouterr().out

    return call


def test_history_of_a_lambda_durable_execution(engine: Engine, cli: Any) -> None:
    backend = engine.local_lambda()
    arn = backend.start_execution("history-demo", {"n": 21}, name="history-1")
    assert backend.wait(arn, 30)["status"] == "SUCCEEDED"
    run_id = arn.rsplit("/", 1)[-1]
    code, out = cli("-o", "json", "runs", "history", run_id)
    assert code == 0
    events = json.loads(out)["events"]
    assert [e["EventType"] for e in events] == [
        "ExecutionStarted",
        "StepStarted",
        "StepSucceeded",
        "WaitStarted",
        "InvocationCompleted",
        "WaitSucceeded",
        "InvocationCompleted",
        "ExecutionSucceeded",
    ]
    assert events[2]["Name"] == "double"
    assert events[2]["StepSucceededDetails"]["Result"]["Payload"] == "42"
    assert events[3]["WaitStartedDetails"]["Duration"] == 1
    assert events[0]["EventTimestamp"].endswith("+00:00")  # ISO 8601, UTC
    code, text = cli("runs", "history", arn)  # the ARN names it as well
    assert code == 0
    assert "StepSucceeded" in text and "ExecutionSucceeded" in text and "double" in text


def test_history_of_a_dbos_native_run(engine: Engine, cli: Any, tmp_path: Path) -> None:
    log = str(tmp_path / "log")
    engine.start("test.three-steps", {"log": log, "wait_seconds": 1}, run_id="history-native")
    engine.result("history-native", timeout=60)
    code, out = cli("-o", "json", "runs", "history", "history-native")
    assert code == 0
    events = json.loads(out)["events"]
    kinds = [e["EventType"] for e in events]
    assert kinds[0] == "ExecutionStarted" and kinds[-1] == "ExecutionSucceeded"
    assert ("StepSucceeded", "step1") in [(e["EventType"], e.get("Name")) for e in events]
    assert "WaitSucceeded" in kinds
    assert [e["EventId"] for e in events] == list(range(1, len(events) + 1))


def test_history_of_an_unknown_run_is_a_usage_error(cli: Any) -> None:
    code, _ = cli("runs", "history", "no-such-run")
    assert code == 2


def test_the_engines_backend_leaves_the_engine_its_runtime(engine: Engine) -> None:
    """A runtime handed to the engine after its backend was built stays the engine's:
    starting an execution does not hand the backend's older runtime back to it."""
    backend = engine.local_lambda()
    assert engine.local_lambda() is backend  # one per engine
    original = engine.runtime
    seen: list[Any] = []
    engine.use(replace(original, notify_hook=seen.append))
    try:
        arn = backend.start_execution("history-demo", {"n": 1}, name="keeps-runtime")
        assert backend.wait(arn, 30)["status"] == "SUCCEEDED"
        assert engine.runtime.notify_hook == seen.append
    finally:
        engine.use(original)
