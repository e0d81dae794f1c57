"""OpenTelemetry: a span per AWS call (botocore's instrumentation), each a child of the
step or ASL state that made it, in the run's trace; real runs against the sandbox over
HTTP, spans captured by the SDK's in-memory exporter in the cfnops process."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from tests._subprocess import cfnops, worker_env

from cfnops.demo.heal_sample import deploy_sample, drift_sample

HERE = Path(__file__).resolve().parent
pytestmark = pytest.mark.slow


def _spans(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _trace_of(run_id: str) -> str:
    return hashlib.sha256(run_id.encode()).digest()[:16].hex()


def _env(sandbox: Any, tmp_path: Path, spans: Path) -> dict[str, str]:
    return worker_env(
        tmp_path / "db.sqlite", modules=["trace_to_file"], path=[HERE],
        CFNOPS_TEST_SPANS=str(spans), **sandbox.environment(),
    )  # fmt: skip


def _aws_calls(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [s for s in found if s["attributes"].get("rpc.system") == "aws-api"]


def _job_net(tmp_path: Path) -> Path:
    """Put a parameter, then read it in two Parallel branches: three SSM calls."""
    name = f"/traced/{time.time_ns()}"
    sdk = "arn:aws:states:::aws-sdk:ssm:"
    definition = {
        "StartAt": "Put",
        "States": {
            "Put": {
                "Type": "Task", "Resource": f"{sdk}putParameter", "ResultPath": None,
                "Parameters": {"Name": name, "Value": "v1", "Type": "String"}, "Next": "Both",
            },
            "Both": {  # branches run on the interpreter's thread pool
                "Type": "Parallel", "End": True,
                "Branches": [
                    {"StartAt": f"Get{i}", "States": {f"Get{i}": {
                        "Type": "Task", "Resource": f"{sdk}getParameter",
                        "Parameters": {"Name": name}, "End": True}}}
                    for i in (1, 2)
                ],
            },
        },
    }  # fmt: skip
    path = tmp_path / "traced.asl.json"
    path.write_text(json.dumps(definition))
    return path


def test_aws_calls_of_a_job_net_are_spans_under_their_states(
    cfnops_sandbox_server: Any, tmp_path: Path
) -> None:
    spans = tmp_path / "spans.jsonl"
    job = cfnops(
        _env(cfnops_sandbox_server, tmp_path, spans),
        "-o", "json", "job", "run", str(_job_net(tmp_path)), "--name", "traced-aws-1",
    )  # fmt: skip
    out, err = job.communicate(timeout=120)
    assert job.returncode == 0, err
    assert json.loads(out)["status"] == "SUCCEEDED", out
    found = _spans(spans)
    by_id = {s["span_id"]: s for s in found}
    calls = _aws_calls(found)
    for call in calls:
        attributes = call["attributes"]
        assert call["name"] == f"{attributes['rpc.service']}.{attributes['rpc.method']}"
        assert attributes["cloud.region"] == cfnops_sandbox_server.region
        assert call["kind"] == "CLIENT"
        assert call["trace_id"] == _trace_of("traced-aws-1")
        assert call["parent"] in by_id, call  # a child of a span of this run's trace
    # the run's own look-up of its account (for ARNs) is a child of the run span
    run = next(s for s in found if s["name"] == "run cfnops.jobs.execution")
    assert run["attributes"]["cfnops.run_id"] == "traced-aws-1"
    outside = [c["name"] for c in calls if c["parent"] == run["span_id"]]
    assert outside == ["STS.GetCallerIdentity"]
    # each state's call is a child of that state's span, Parallel branches included
    in_states = sorted(
        (by_id[c["parent"]]["name"], c["name"]) for c in calls if c["parent"] != run["span_id"]
    )
    assert in_states == [
        ("state Get1", "SSM.GetParameter"),
        ("state Get2", "SSM.GetParameter"),
        ("state Put", "SSM.PutParameter"),
    ]
    both = next(s for s in found if s["name"] == "state Both")
    assert {s["parent"] for s in found if s["name"] in ("state Get1", "state Get2")} == {
        both["span_id"]
    }


def test_aws_calls_of_a_heal_run_are_spans_under_its_steps(
    cfnops_sandbox_server: Any, tmp_path: Path
) -> None:
    spans = tmp_path / "spans.jsonl"
    stack = f"traced-{int(time.time() * 1000) % 1000000}"
    clients = cfnops_sandbox_server.clients
    deploy_sample(clients.client("cloudformation"), stack, f"/{stack}/p")
    drift_sample(clients.client("ssm"), f"/{stack}/p")
    heal = cfnops(_env(cfnops_sandbox_server, tmp_path, spans), "-o", "json", "heal", stack)
    out, err = heal.communicate(timeout=180)
    assert heal.returncode == 0, err
    run_id = json.loads(out)["runs"][0]["runId"]
    found = [s for s in _spans(spans) if s["trace_id"] == _trace_of(run_id)]
    by_id = {s["span_id"]: s for s in found}
    calls = _aws_calls(found)
    methods = {(c["attributes"]["rpc.service"], c["attributes"]["rpc.method"]) for c in calls}
    assert {("CloudFormation", "DetectStackDrift"), ("CloudFormation", "CreateChangeSet")} <= (
        methods
    ), methods
    for call in calls:  # every call under a step: the steps and the polls (one span each)
        parent = by_id[call["parent"]]
        assert parent["name"].startswith("step "), (call["name"], parent["name"])
        assert call["attributes"]["cloud.region"] == cfnops_sandbox_server.region
    under = {(by_id[c["parent"]]["name"], c["name"]) for c in calls}
    assert {
        ("step detect-drift", "CloudFormation.DetectStackDrift"),
        ("step wait-drift-detection", "CloudFormation.DescribeStackDriftDetectionStatus"),
        ("step create-change-set", "CloudFormation.CreateChangeSet"),
        ("step execute-change-set", "CloudFormation.ExecuteChangeSet"),
    } <= under, under
    polls = [s for s in found if s["name"] == "step wait-drift-detection"]
    assert [s["attributes"]["cfnops.poll"] for s in polls] == list(range(1, len(polls) + 1))
    runs = [s for s in found if s["name"] == "run cfnops.heal"]
    assert len(runs) == 1 and runs[0]["attributes"]["cfnops.run_id"] == run_id
    steps = {s["span_id"] for s in found if s["name"].startswith("step ")}
    assert all(by_id[s]["parent"] == runs[0]["span_id"] for s in steps)


def test_tracing_off_a_run_making_aws_calls_imports_no_opentelemetry(
    cfnops_sandbox_server: Any, tmp_path: Path
) -> None:
    env = worker_env(tmp_path / "db.sqlite", **cfnops_sandbox_server.environment())
    for key in [k for k in env if k.startswith("OTEL_")]:
        del env[key]
    job = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "cfnops", "-o", "json", "job", "run",
         str(_job_net(tmp_path)), "--name", "untraced-aws-1"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert job.returncode == 0, job.stderr
    assert json.loads(job.stdout)["status"] == "SUCCEEDED"
    imported = [line.rsplit("|", 1)[-1].strip() for line in job.stderr.splitlines()]
    assert "boto3" in imported  # the import log is complete: AWS calls were made
    assert not [m for m in imported if m.startswith("opentelemetry")]
