"""Global options before or after the command, at any depth (as the AWS CLI takes them).

One test per command group runs the real command; the argv rewrite itself is
checked on the real command tree.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from cfnops.cli._globals import hoist
from cfnops.cli.main import COMMANDS, MODULES, SUMMARIES, _LazyGroup, app, run
from cfnops.sandbox import Sandbox

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def root() -> Iterator[tuple[Any, Any]]:
    group = typer.main.get_command(app)
    with group.make_context("cfnops", ["--help"], resilient_parsing=True) as ctx:
        yield group, ctx


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        pytest.param(
            ["runs", "list", "--output", "json"],
            ["--output", "json", "runs", "list"],
            id="runs-list-output",
        ),
        pytest.param(
            ["heal", "--all", "--endpoint-url", "http://x", "-vv"],
            ["--endpoint-url", "http://x", "-vv", "heal", "--all"],
            id="heal-endpoint-and-count",
        ),
        pytest.param(
            ["job", "run", "def.json", "-o", "json", "--region=eu-west-1"],
            ["-o", "json", "--region=eu-west-1", "job", "run", "def.json"],
            id="job-run-nested",
        ),
        pytest.param(
            ["-o", "text", "runs", "list", "--output", "json"],
            ["-o", "text", "--output", "json", "runs", "list"],
            id="after-beats-before",
        ),
        pytest.param(
            ["guard", "t.yaml", "-o", "sarif", "--profile", "p"],
            ["--profile", "p", "guard", "t.yaml", "-o", "sarif"],
            id="own-output-kept",
        ),
        pytest.param(
            ["heal", "--region", "us-east-1,eu-west-1", "web"],
            ["heal", "--region", "us-east-1,eu-west-1", "web"],
            id="own-region-kept",
        ),
        pytest.param(
            ["job", "run", "def.json", "--", "--output", "json"],
            ["job", "run", "def.json", "--", "--output", "json"],
            id="after-double-dash-is-data",
        ),
        pytest.param(
            ["job", "run", "def.json", "--input", "--region"],
            ["job", "run", "def.json", "--input", "--region"],
            id="an-option-value-is-not-an-option",
        ),
    ],
)
def test_hoist(root: tuple[Any, Any], argv: list[str], expected: list[str]) -> None:
    group, ctx = root
    assert hoist(group, ctx, argv) == expected


def test_the_command_list_matches_what_the_modules_define() -> None:
    every = _LazyGroup._load(_LazyGroup(), MODULES)
    assert sorted(every.list_commands(None)) == sorted(COMMANDS)
    for name, modules in COMMANDS.items():
        alone = _LazyGroup._load(_LazyGroup(), modules).get_command(None, name)
        assert alone is not None, f"{name} is not defined by {modules}"
        if hasattr(alone, "list_commands"):
            full = every.get_command(None, name)
            assert alone.list_commands(None) == full.list_commands(None), name


def test_the_root_help_shows_what_the_commands_themselves_say(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The root help lists commands from SUMMARIES (no import): it must render exactly
    what loading every command would render, so the table cannot go stale."""
    assert sorted(SUMMARIES) == sorted(COMMANDS)
    monkeypatch.setenv("COLUMNS", "100")
    group = typer.main.get_command(app)
    with group.make_context("cfnops", [], resilient_parsing=True) as ctx:
        lazy = group.get_help(ctx) + capsys.readouterr().out  # Rich prints it
        monkeypatch.setattr(_LazyGroup, "summaries_only", False)
        full = group.get_help(ctx) + capsys.readouterr().out
    assert lazy == full
    for name in COMMANDS:
        assert f"│ {name} " in lazy, name


def _db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    monkeypatch.setenv("CFNOPS_DATABASE_URL", url)
    return url


def test_runs_list_output_json_after_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _db(tmp_path, monkeypatch)
    assert run(["runs", "list", "--output", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert run(["runs", "list", "-o", "yaml"]) == 2  # validated by the one definition


def test_diff_output_json_after_the_command_and_region_anywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text("Resources:\n  B:\n    Type: AWS::SNS::Topic\n")
    new.write_text("Resources:\n  B:\n    Type: AWS::SNS::Topic\n    Properties: {TopicName: t}\n")
    assert run(["diff", str(old), str(new), "--output", "json", "--region", "eu-west-1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "B" in json.dumps(out)
    # the global value is diff's fallback; diff's own option wins when both are given
    assert run(["--output", "text", "diff", str(old), str(new), "-o", "json"]) == 0
    json.loads(capsys.readouterr().out)


def _cfnops(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cfnops", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        cwd=ROOT,
    )


def _env(tmp_path: Path, sandbox: Sandbox | None = None) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "CFNOPS_DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite'}",
        "AWS_CONFIG_FILE": str(tmp_path / "none"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"),
    }
    if sandbox is not None:
        # credentials and region only: the endpoint must come from --endpoint-url
        env.update({k: v for k, v in sandbox.environment().items() if "ENDPOINT" not in k})
    return env


@pytest.mark.slow
def test_heal_all_endpoint_url_after_the_command(tmp_path: Path, cfnops_sandbox: Sandbox) -> None:
    cfn = cfnops_sandbox.clients.client("cloudformation")
    cfn.create_stack(
        StackName="globals-in-sync",
        TemplateBody=json.dumps({"Resources": {"T": {"Type": "AWS::SNS::Topic"}}}),
    )
    cfn.get_waiter("stack_create_complete").wait(
        StackName="globals-in-sync", WaiterConfig={"Delay": 1}
    )
    done = _cfnops(
        _env(tmp_path, cfnops_sandbox),
        "heal",
        "--all",
        "--name",
        "globals-*",
        "--endpoint-url",
        cfnops_sandbox.endpoint_url,
        "--output",
        "json",
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [r["stack"] for r in report["runs"]] == ["globals-in-sync"]


@pytest.mark.slow
def test_job_run_output_json_after_the_command(tmp_path: Path) -> None:
    definition = tmp_path / "hello.asl.json"
    definition.write_text(
        json.dumps(
            {"StartAt": "Hi", "States": {"Hi": {"Type": "Pass", "Result": "hi", "End": True}}}
        )
    )
    done = _cfnops(_env(tmp_path), "job", "run", str(definition), "--output", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "SUCCEEDED"
    assert result["output"] == "hi"


def test_docs_cli_lists_every_global_option() -> None:
    """docs/cli.md's global options table and synopsis name every option of the root."""
    from cfnops.cli.main import app

    docs = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text()
    table = [line for line in docs.splitlines() if line.startswith("| `-")]
    synopsis = docs.split("```", 2)[1]
    for param in typer.main.get_command(app).params:
        long = next(o for o in param.opts if o.startswith("--"))
        shown = "-v" if long == "--verbose" else long
        assert any(f"`{shown}`" in row.split("|")[1] for row in table), long
        assert long == "--version" or shown in synopsis, long
