"""``cfnops job …`` in-process (the session's engine and database)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests._runtime import runtime_for

from cfnops.asl import LambdaError, TaskContext
from cfnops.cli.main import run
from cfnops.durable import AuditLog, Engine
from cfnops.jobs import JobService, register_function
from conftest import EXAMPLES

OK = {
    "StartAt": "Hello",
    "States": {
        "Hello": {
            "Type": "Pass",
            "Parameters": {"greeting.$": "States.Format('hello {}', $.who)"},
            "End": True,
        }
    },
}
BOOM = {"StartAt": "Boom", "States": {"Boom": {"Type": "Fail", "Error": "Boom", "Cause": "bad"}}}


@dataclass
class Result:
    exit_code: int
    stdout: str


class Cli:
    """``cfnops`` through its real entry point (exit codes included), output captured."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys

    def invoke(self, args: list[str]) -> Result:
        self.capsys.readouterr()
        code = run(args)
        return Result(code, self.capsys.readouterr().out)


@pytest.fixture
def cli(
    job_engine: Engine, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[Cli]:
    monkeypatch.setenv("CFNOPS_DATABASE_URL", job_engine.settings.database_url)
    yield Cli(capsys)


def _write(tmp_path: Path, name: str, value: Any) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(value))
    return str(path)


def _json(cli: Cli, *args: str, code: int = 0) -> Any:
    result = cli.invoke(["-o", "json", *args])
    assert result.exit_code == code, result.stdout
    return json.loads(result.stdout)


def test_run_json_success_and_failure_exit_codes(cli: Cli, tmp_path: Path) -> None:
    ok = _write(tmp_path, "hello.asl.json", OK)
    out = _json(cli, "job", "run", ok, "--input", '{"who": "ops"}', "--name", "cli-hello-1")
    assert out == {
        "runId": "cli-hello-1",
        "status": "SUCCEEDED",
        "output": {"greeting": "hello ops"},
        "error": None,
        "cause": None,
    }
    failed = _json(cli, "job", "run", _write(tmp_path, "boom.json", BOOM), code=1)
    assert (failed["status"], failed["error"], failed["cause"]) == ("FAILED", "Boom", "bad")
    shown = _json(cli, "job", "show", "cli-hello-1")
    assert shown["status"] == "SUCCEEDED" and shown["currentStates"] == []
    assert shown["states"][0]["input"] == {"who": "ops"}
    assert shown["states"][0]["output"] == {"greeting": "hello ops"}
    history = _json(cli, "job", "history", "cli-hello-1")
    assert [e["type"] for e in history] == [
        "ExecutionStarted",
        "PassStateEntered",
        "PassStateExited",
        "ExecutionSucceeded",
    ]
    assert history[2]["stateExitedEventDetails"]["output"] == '{"greeting":"hello ops"}'
    assert history[0]["executionStartedEventDetails"]["input"] == '{"who":"ops"}'
    listed = _json(cli, "job", "list", "--limit", "100")
    assert "cli-hello-1" in {r["runId"] for r in listed}


def test_run_input_from_file_and_bad_input(cli: Cli, tmp_path: Path) -> None:
    ok = _write(tmp_path, "hello.asl.json", OK)
    infile = _write(tmp_path, "in.json", {"who": "file"})
    out = _json(cli, "job", "run", ok, "--input", f"@{infile}")
    assert out["output"] == {"greeting": "hello file"}
    bad = cli.invoke(["-o", "json", "job", "run", ok, "--input", "{not json"])
    assert bad.exit_code == 2
    invalid = _write(
        tmp_path, "bad.json", {"StartAt": "A", "States": {"A": {"Type": "Pass", "Next": "Nowhere"}}}
    )
    assert cli.invoke(["job", "run", invalid]).exit_code == 2


def test_validate_and_strict(cli: Cli, tmp_path: Path) -> None:
    assert _json(cli, "job", "validate", str(EXAMPLES / "webapp-stop.asl.json")) == {
        "valid": True,
        "problems": [],
    }
    broken = _write(
        tmp_path,
        "broken.json",
        {"StartAt": "A", "States": {"A": {"Type": "Pass", "Next": "Nowhere"}}},
    )
    found = _json(cli, "job", "validate", broken, code=2)
    assert any("/States/A/Next" in p for p in found["problems"])
    local = _write(
        tmp_path,
        "local.json",
        {
            "StartAt": "N",
            "States": {
                "N": {
                    "Type": "Task",
                    "Resource": "arn:aws:states:::http:invoke",
                    "End": True,
                    "Parameters": {"ApiEndpoint": "cfnops:slack", "Method": "POST"},
                }
            },
        },
    )
    assert _json(cli, "job", "validate", local)["valid"] is True
    strict = _json(cli, "job", "validate", "--strict", local, code=2)
    assert any("cfnops alias" in p for p in strict["problems"])


def test_graph_of_a_definition_and_of_a_run(cli: Cli, tmp_path: Path) -> None:
    dot = cli.invoke(["job", "graph", str(EXAMPLES / "webapp-start.asl.json"), "--output", "dot"])
    assert dot.exit_code == 0 and dot.stdout.startswith("digraph jobnet {")
    assert "s_StartInstances -> s_Start [style=dotted];" in dot.stdout
    ok = _write(tmp_path, "hello.asl.json", OK)
    _json(cli, "job", "run", ok, "--input", '{"who": "g"}', "--name", "cli-graph-1")
    mermaid = cli.invoke(["job", "graph", "cli-graph-1", "--output", "mermaid"])
    assert mermaid.exit_code == 0
    assert "class s_Hello succeeded" in mermaid.stdout and "classDef succeeded" in mermaid.stdout


def test_schedule_commands(cli: Cli, tmp_path: Path) -> None:
    ok = _write(tmp_path, "hello.asl.json", OK)
    added = _json(
        cli,
        "job",
        "schedule",
        "add",
        "cli-sched",
        ok,
        "--cron",
        "rate(5 minutes)",
        "--input",
        '{"who": "cron"}',
    )
    assert added[0]["name"] == "cli-sched" and added[0]["nextFire"]
    assert "cli-sched" in {s["name"] for s in _json(cli, "job", "schedule", "list")}
    bad = cli.invoke(["job", "schedule", "add", "x", ok, "--cron", "cron(0 9 * * * *)"])
    assert bad.exit_code == 2  # both day fields set
    assert _json(cli, "job", "schedule", "remove", "cli-sched")["removed"] is True


def test_unknown_task_token_and_run(cli: Cli) -> None:
    assert cli.invoke(["job", "send-task-success", "nope"]).exit_code == 2
    assert cli.invoke(["job", "show", "no-such-run"]).exit_code == 2


def test_deploy_creates_then_updates(cli: Cli, sandbox_env: dict[str, str]) -> None:
    args = [
        "job",
        "deploy",
        str(EXAMPLES / "webapp-stop.asl.json"),
        "--name",
        "cli-webapp-stop",
        "--role-arn",
        "arn:aws:iam::123456789012:role/sfn",
    ]
    first = _json(cli, *args)
    assert first["action"] == "created"
    second = _json(cli, *args)
    assert second == {"action": "updated", "stateMachineArn": first["stateMachineArn"]}


def test_redrive_and_stop_commands(cli: Cli, tmp_path: Path, job_engine: Engine) -> None:
    attempts: list[int] = []

    def flaky(payload: Any, ctx: TaskContext) -> Any:
        attempts.append(1)
        if len(attempts) == 1:
            raise LambdaError("Flaky", '{"errorMessage": "first time"}')
        return {"ok": True}

    register_function("jobs-test-flaky", flaky)
    machine = {
        "StartAt": "Prep",
        "States": {
            "Prep": {"Type": "Pass", "Result": {"n": 1}, "Next": "Call"},
            "Call": {
                "Type": "Task",
                "Resource": "arn:aws:lambda:us-east-1:1:function:jobs-test-flaky",
                "End": True,
            },
        },
    }
    path = _write(tmp_path, "flaky.json", machine)
    failed = _json(cli, "job", "run", path, "--name", "cli-flaky-1", code=1)
    assert (failed["status"], failed["error"]) == ("FAILED", "Flaky")
    redriven = _json(cli, "job", "redrive", "cli-flaky-1")
    assert (redriven["status"], redriven["output"]) == ("SUCCEEDED", {"ok": True})
    assert len(attempts) == 2
    assert _json(cli, "job", "show", "cli-flaky-1")["redriveCount"] == 1
    history = _json(cli, "job", "history", "cli-flaky-1")
    types = [e["type"] for e in history]
    after = types[types.index("ExecutionRedriven") + 1 :]
    # As Step Functions records a redrive: from the failed state on, nothing before it.
    assert after[0] == "TaskStateEntered" and after[-1] == "ExecutionSucceeded"
    assert "PassStateEntered" not in after
    assert [e["id"] for e in history] == list(range(1, len(history) + 1))
    not_again = cli.invoke(["job", "redrive", "cli-flaky-1"])
    assert not_again.exit_code == 1  # a SUCCEEDED run cannot be redriven

    # A run that waits, started without the CLI so its output cannot mix with ours.
    jobs = JobService(runtime_for(job_engine.settings))
    wait_machine = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 120, "End": True}}}
    jobs.start(wait_machine, {}, machine_name="wait", name="cli-wait-1")
    deadline = time.monotonic() + 30
    while not any(e["type"] == "WaitStateEntered" for e in jobs.store.history("cli-wait-1")):
        assert time.monotonic() < deadline, "the run never reached its Wait state"
        time.sleep(0.05)
    assert _json(cli, "job", "stop", "cli-wait-1")["runId"] == "cli-wait-1"
    assert jobs.wait("cli-wait-1", timeout=30).status == "ABORTED"
    assert _json(cli, "job", "show", "cli-wait-1")["status"] == "ABORTED"
    # Stopping a run that has ended: said so, nothing requested, nothing audited.
    again = cli.invoke(["job", "stop", "cli-flaky-1"])
    assert again.exit_code == 0
    assert again.stdout == "cli-flaky-1: already ended SUCCEEDED; nothing to stop\n"
    assert _json(cli, "job", "stop", "cli-wait-1")["stopped"] is False
    graph = _json(cli, "job", "graph", "cli-wait-1")
    assert graph["statuses"] == {"W": "ABORTED"}
    # Both operator actions are in the audit log, by the OS user.
    audited = _json(cli, "audit", "list", "--target", "cli-flaky-1")
    assert [(e["action"], e["actor"]) for e in audited] == [("redrive", AuditLog.default_actor())]
    assert [e["action"] for e in _json(cli, "audit", "list", "--target", "cli-wait-1")] == ["stop"]


def test_yaml_definition_and_imported_functions(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "logged.asl.yaml"
    path.write_text(
        "StartAt: Call\n"
        "States:\n"
        "  Call:\n"
        "    Type: Task\n"
        "    Resource: arn:aws:states:::lambda:invoke\n"
        "    Parameters: {FunctionName: jobs-test-logged, Payload: {log.$: $.log, mark: y}}\n"
        "    OutputPath: $.Payload\n"
        "    End: true\n"
    )
    log = tmp_path / "log"
    out = _json(
        cli,
        "job",
        "run",
        str(path),
        "--import",
        "jobs_test_functions",
        "--input",
        json.dumps({"log": str(log)}),
    )
    assert out["output"] == {"mark": "y"}
    assert "y-end" in log.read_text()
