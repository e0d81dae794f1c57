"""OpenTelemetry: a span per run, step (retries as events) and ASL state, one trace per run
id across a kill -9 and the recovery; nothing imported when tracing is off."""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from durable_test_workflows import count
from tests._subprocess import cfnops, wait_for, worker_env

HERE = Path(__file__).resolve().parent


def _spans(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.slow
def test_one_trace_per_run_across_a_kill_and_the_recovery(tmp_path: Path) -> None:
    db, log, spans = tmp_path / "db.sqlite", str(tmp_path / "log"), tmp_path / "spans.jsonl"
    env = worker_env(
        db, modules=["durable_test_workflows", "trace_to_file"], path=[HERE],
        CFNOPS_TEST_SPANS=str(spans),
    )  # fmt: skip
    event = {"log": log, "wait_seconds": 1, "step2_seconds": 30}
    first = cfnops(
        env, "runs", "start", "test.three-steps", "--run-id", "traced-1", "--input",
        json.dumps(event),
    )  # fmt: skip
    wait_for(lambda: count(log, "step2-start") == 1, what="step2 to start")
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=10)
    killed = _spans(spans)
    assert any(s["name"] == "step step1" for s in killed)  # exported before the kill
    # the recovery: the same run started again (step2 fast this time)
    again = cfnops(
        env, "runs", "start", "test.three-steps", "--run-id", "traced-1", "--input",
        json.dumps({**event, "step2_seconds": 0}),
    )  # fmt: skip
    _out, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    found = _spans(spans)
    expected_trace = hashlib.sha256(b"traced-1").digest()[:16].hex()
    runs = [s for s in found if s["name"] == "run test.three-steps"]
    assert len(runs) == 1  # the killed process never ended its run span: only the recovery's
    assert {s["trace_id"] for s in found} == {expected_trace}
    assert runs[0]["attributes"]["cfnops.run_id"] == "traced-1"
    pids = {s["pid"] for s in found}
    assert len(pids) == 2  # spans from the killed process and from the recovering one
    steps = [s["name"] for s in found if s["name"].startswith("step ")]
    assert steps.count("step step1") == 1  # replayed from its checkpoint, not re-run
    assert steps.count("step step2") == 1 and steps.count("step step3") == 1
    run_span = runs[0]["span_id"]
    assert all(
        s["parent"] == run_span
        for s in found
        if s["pid"] == runs[0]["pid"] and s["name"].startswith("step ")
    )


@pytest.mark.slow
def test_retries_are_events_and_asl_states_are_spans(tmp_path: Path) -> None:
    db, log, spans = tmp_path / "db.sqlite", str(tmp_path / "log"), tmp_path / "spans.jsonl"
    env = worker_env(
        db, modules=["durable_test_workflows", "trace_to_file"], path=[HERE],
        CFNOPS_TEST_SPANS=str(spans),
    )  # fmt: skip
    flaky = cfnops(
        env, "runs", "start", "test.flaky", "--run-id", "flaky-1", "--input",
        json.dumps({"log": log, "fail_times": 1, "max_attempts": 3}),
    )  # fmt: skip
    _out, err = flaky.communicate(timeout=120)
    assert flaky.returncode == 0, err
    attempts = [s for s in _spans(spans) if s["name"].startswith("step ")]
    assert [s["attributes"]["cfnops.attempt"] for s in attempts] == [1, 2]
    assert attempts[0]["events"] == ["retry"] and attempts[1]["events"] == []
    assert [s["status"] for s in attempts] == ["ERROR", "UNSET"]  # the failed attempt

    definition = tmp_path / "two.asl.json"
    definition.write_text(
        json.dumps(
            {
                "StartAt": "A",
                "States": {"A": {"Type": "Pass", "Next": "B"}, "B": {"Type": "Pass", "End": True}},
            }
        )
    )
    job = cfnops(env, "-o", "json", "job", "run", str(definition), "--name", "traced-job")
    _out, err = job.communicate(timeout=120)
    assert job.returncode == 0, err
    states = [s for s in _spans(spans) if s["name"].startswith("state ")]
    assert [s["name"] for s in states] == ["state A", "state B"]
    trace_of_job = {s["trace_id"] for s in states}
    assert len(trace_of_job) == 1


@pytest.mark.slow
def test_a_run_that_ends_exports_its_root_span_failed_or_not(tmp_path: Path) -> None:
    """Each execution's ``run`` span has a parent; when the run ends, that parent is
    exported too (captured with the SDK's in-memory exporter): the trace has a root."""
    db, log, spans = tmp_path / "db.sqlite", str(tmp_path / "log"), tmp_path / "spans.jsonl"
    env = worker_env(
        db, modules=["durable_test_workflows", "trace_to_file"], path=[HERE],
        CFNOPS_TEST_SPANS=str(spans),
    )  # fmt: skip
    for run_id, fail_times, code in (("rooted-ok", 0, 0), ("rooted-failed", 5, 1)):
        proc = cfnops(
            env, "runs", "start", "test.flaky", "--run-id", run_id, "--input",
            json.dumps({"log": log, "fail_times": fail_times, "max_attempts": 2}),
        )  # fmt: skip
        _out, err = proc.communicate(timeout=120)
        assert proc.returncode == code, err
    found = _spans(spans)
    for run_id, status in (("rooted-ok", "UNSET"), ("rooted-failed", "ERROR")):
        digest = hashlib.sha256(run_id.encode()).digest()
        mine = [s for s in found if s["attributes"].get("cfnops.run_id") == run_id]
        (root,) = [s for s in mine if s["name"] == "run test.flaky root"]
        (execution,) = [s for s in mine if s["name"] == "run test.flaky"]
        assert root["parent"] is None and root["trace_id"] == digest[:16].hex()
        assert root["span_id"] == digest[16:24].hex()
        assert execution["parent"] == root["span_id"]
        assert execution["trace_id"] == root["trace_id"]
        assert root["status"] == status


def test_tracing_off_imports_nothing() -> None:
    code = (
        "import sys; from cfnops import tracing; from cfnops.asl import Interpreter;"
        "Interpreter({'StartAt': 'A', 'States': {'A': {'Type': 'Pass', 'End': True}}}).run({});"
        "print(tracing.enabled(), 'opentelemetry' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]


def test_otel_environment_variables_win_over_cfnops_defaults() -> None:
    from cfnops.tracing import resource_attributes

    assert resource_attributes({})["service.name"] == "cfnops"
    given = {"OTEL_RESOURCE_ATTRIBUTES": "service.name=ops-a, deployment.environment=prod%20eu"}
    found = resource_attributes(given)
    assert found["service.name"] == "ops-a"
    assert found["deployment.environment"] == "prod eu"
    found = resource_attributes({**given, "OTEL_SERVICE_NAME": "ops-b"})
    assert found["service.name"] == "ops-b" and found["deployment.environment"] == "prod eu"
