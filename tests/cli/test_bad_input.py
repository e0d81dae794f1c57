"""Bad input, as a new user meets it: every case exits with the documented code and one
clear ``error:`` line (plus an optional hint), never a Python traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cfnops.cli._errors import internal_error, wants_traceback

REPO = Path(__file__).resolve().parents[2]
STOP = REPO / "examples" / "jobnets" / "webapp-stop.asl.json"
PAYROLL = str(REPO / "tests" / "jobimport" / "data" / "controlm_payroll.xml")
IMPORT = ["job", "import", PAYROLL, "--from", "controlm"]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("bad")
    binary = root / "binary.bin"
    binary.write_bytes(bytes(range(128, 256)) * 3)
    hello = root / "hello.yaml"
    hello.write_text('Resources: "hello"\n')
    empty = root / "empty.yaml"
    empty.write_text("")
    tagged = root / "tagged.asl.yaml"
    tagged.write_text(
        "StartAt: A\nStates:\n  A:\n    Type: Pass\n    Result: !Ref X\n    End: true\n"
    )
    broken = root / "broken.asl.yaml"
    broken.write_text("StartAt: A\nStates:\n  A: [\n")
    badhosts = root / "hosts.yaml"
    badhosts.write_text("web01: [\n  i-1: x\n")
    template = root / "template.json"
    template.write_text('{"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}')
    return {
        "binary": binary,
        "hello": hello,
        "root": root,
        "empty": empty,
        "tagged": tagged,
        "broken": broken,
        "template": template,
        "badhosts": badhosts,
    }


CASES: list[tuple[str, list[str], dict[str, str], int, str]] = [
    ("ami check binary", ["ami", "check", "{binary}"], {}, 2, "not UTF-8 text"),
    ("ami check Resources string", ["ami", "check", "{hello}"], {}, 2, "Resources is a string"),
    ("job validate binary", ["job", "validate", "{binary}"], {}, 2, "not UTF-8 text"),
    ("job run binary", ["job", "run", "{binary}"], {}, 2, "not UTF-8 text"),
    ("job graph binary", ["job", "graph", "{binary}"], {}, 2, "not UTF-8 text"),
    ("ami rotate --event binary", ["ami", "rotate", "--event", "{binary}"], {}, 2, "not UTF-8"),
    (
        "--import of a missing module",
        ["job", "run", str(STOP), "--import", "no_such_module_xyz"],
        {},
        2,
        "cannot import module 'no_such_module_xyz'",
    ),
    (
        "bad database URL",
        ["runs", "list"],
        {"CFNOPS_DATABASE_URL": "mysql://x/y"},
        2,
        "database_url",
    ),
    (
        "SQLite folder missing",
        ["runs", "list"],
        {"CFNOPS_DATABASE_URL": "sqlite:////nonexistent/cfnops/x.sqlite"},
        2,
        "/nonexistent/cfnops does not exist",
    ),
    (
        "worker --global-concurrency below concurrency",
        ["worker", "--global-concurrency", "3", "--concurrency", "8"],
        {},
        2,
        "--global-concurrency 3 is below",
    ),
    (
        "workflow modules not JSON",
        ["runs", "list"],
        {"CFNOPS_WORKER__WORKFLOW_MODULES": "notjson"},
        2,
        "CFNOPS_WORKER__WORKFLOW_MODULES",
    ),
    ("sandbox up --port 70000", ["sandbox", "up", "--port", "70000"], {}, 2, "65535"),
    ("sandbox up --host invalid", ["sandbox", "up", "--host", "nohost!"], {}, 2, "not an IP"),
    ("sandbox up --host 0.0.0.0", ["sandbox", "up", "--host", "0.0.0.0"], {}, 2, "--allow-remote"),
    ("job history of an unknown run", ["job", "history", "nope"], {}, 2, "no job run 'nope'"),
    ("job show of an unknown run", ["job", "show", "nope"], {}, 2, "no job run 'nope'"),
    ("runs show of an unknown run", ["runs", "show", "nope"], {}, 2, "no run with id 'nope'"),
    (
        "webhook over http",
        ["runs", "list"],
        {"CFNOPS_NOTIFY__SLACK_WEBHOOK_URL": "http://hooks.slack.com/services/T/B/x"},
        2,
        "https://",
    ),
    ("AWS_REGION unknown", ["drift", "web"], {"AWS_REGION": "mars-1"}, 2, "mars-1"),
    ("command typo", ["hael", "web"], {}, 2, "No such command 'hael'. (Possible commands: heal)"),
    ("subcommand typo", ["job", "rnu"], {}, 2, "No such command 'rnu'. (Possible commands: run)"),
]


# Each error's hint must fit the error: (name, args, env, exit code, error needle, hint needle).
HINTS: list[tuple[str, list[str], dict[str, str], int, str, str]] = [
    ("job validate binary", ["job", "validate", "{binary}"], {}, 2, "not UTF-8 text",
     "JSON or YAML file holding an Amazon States Language definition"),
    ("job validate bad YAML", ["job", "validate", "{broken}"], {}, 2,
     "not valid YAML at line 4", "JSON or YAML file holding"),
    ("job validate !Ref", ["job", "validate", "{tagged}"], {}, 2,
     "not valid YAML at line 5 column 13", "no CloudFormation tags"),
    ("ami check missing file", ["ami", "check", "{root}/missing.yaml"], {}, 2,
     "No such file or directory", "check the path"),
    ("ami check empty file", ["ami", "check", "{empty}"], {}, 2, "empty file",
     "with a Resources section"),
    ("guard --code missing", ["guard", "{template}", "--code", "/nonexistent"], {}, 2,
     "--code must be a folder (it does not exist)", "the folder holding the handlers' code"),
    ("guard -o yaml", ["guard", "{template}", "-o", "yaml"], {}, 2,
     "expected text, json or sarif", "-o sarif"),
    ("diff --fail-on bogus", ["diff", "{template}", "{template}", "--fail-on", "bogus"], {}, 2,
     "expected replace, destroy or any", "replace: exit 1 on a replacement"),
    ("job list --status BOGUS", ["job", "list", "--status", "BOGUS"], {}, 2,
     "'BOGUS' is not a job run status", "RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED"),
    ("CFNOPS_OUTPUT=yaml", ["runs", "list"], {"CFNOPS_OUTPUT": "yaml"}, 2,
     "in the environment (CFNOPS_OUTPUT)", "fix the value"),
    ("job run --input missing.json", ["job", "run", str(STOP), "--input", "sample.json"], {}, 2,
     "cannot read the input from sample.json: no such file", "check the file's path"),
    ("runs start --input missing.json", ["runs", "start", "cfnops.sample", "--input",
     "sample.json"], {}, 2, "--input 'sample.json': no such file", "check the file's path"),
    ("--config binary", ["--config", "{binary}", "runs", "list"], {}, 2,
     "invalid configuration in {binary}: (encoding): not UTF-8 text", "give a TOML text file"),
    ("--config missing", ["--config", "{root}/nope.toml", "runs", "list"], {}, 2,
     "{root}/nope.toml: --config: no such file", "check the path, or drop --config"),
    ("job import --hosts bad YAML", [*IMPORT, "--hosts", "{badhosts}"], {}, 2,
     "not valid YAML at line 3 column 1: expected ',' or ']'", "fix the YAML at that line"),
    ("job import --today bad", [*IMPORT, "--today", "2026-13-45"], {}, 2,
     "--today '2026-13-45' is not a date", "YYYY-MM-DD"),
    ("job import --timezone bad", [*IMPORT, "--timezone", "Mars/Base"], {}, 2,
     "--timezone 'Mars/Base' is not an IANA time zone", "Asia/Tokyo"),
    ("job run --name 'a/b c'", ["job", "run", str(STOP), "--name", "a/b c"], {}, 2,
     "the execution name", "choose another --name"),
    ("runs start of an unregistered workflow", ["runs", "start", "cfnops.sample", "--input",
     "[1]"], {}, 2, "workflow 'cfnops.sample' is not registered", "no run was created"),
    ("runs list --outcome BOGUS", ["runs", "list", "--outcome", "BOGUS"], {}, 2,
     "unknown outcome 'BOGUS'", "HEALED, IN_SYNC"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "env", "code", "needle", "hint"),
    [pytest.param(a, e, c, n, h, id=name) for name, a, e, c, n, h in HINTS],
)
def test_every_error_has_a_hint_that_fits_it(
    files: dict[str, Path], args: list[str], env: dict[str, str], code: int, needle: str, hint: str
) -> None:
    environ = {
        **os.environ,
        "CFNOPS_DATABASE_URL": f"sqlite:///{files['root'] / 'db.sqlite'}",
        "COLUMNS": "250",
        **env,
    }
    argv = [a.format(**{k: str(v) for k, v in files.items()}) for a in args]
    done = subprocess.run(
        [sys.executable, "-m", "cfnops", *argv],
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=files["root"],
    )
    assert done.returncode == code, done.stdout + done.stderr
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    hints = [line for line in lines if line.startswith("hint:")]
    needle = needle.format(**{k: str(v) for k, v in files.items()})
    assert len(errors) == 1 and needle in errors[0], lines
    assert len(hints) == 1 and hint in hints[0], lines
    assert "Traceback" not in done.stderr


def test_an_input_file_named_without_at_is_read(files: dict[str, Path]) -> None:
    """docs/jobs.md writes `job check DEF --input SAMPLE.json`: a path works as @path."""
    definition = files["root"] / "pass.asl.json"
    definition.write_text('{"StartAt": "A", "States": {"A": {"Type": "Pass", "End": true}}}')
    (files["root"] / "SAMPLE.json").write_text('{"instances": ["i-1"]}')
    done = subprocess.run(
        [sys.executable, "-m", "cfnops", "-o", "json", "job", "check", str(definition),
         "--input", "SAMPLE.json"],
        capture_output=True, text=True, timeout=120, cwd=files["root"],
        env={**os.environ, "CFNOPS_DATABASE_URL": f"sqlite:///{files['root'] / 'db.sqlite'}"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "instances" in done.stdout


@pytest.mark.parametrize(
    ("args", "env", "code", "needle"),
    [pytest.param(a, e, c, n, id=name) for name, a, e, c, n in CASES],
)
def test_bad_input_is_one_clear_line(
    files: dict[str, Path], args: list[str], env: dict[str, str], code: int, needle: str
) -> None:
    environ = {
        **os.environ,
        "CFNOPS_DATABASE_URL": f"sqlite:///{files['root'] / 'db.sqlite'}",
        "COLUMNS": "200",
        **env,
    }
    argv = [a.format(**{k: str(v) for k, v in files.items()}) for a in args]
    done = subprocess.run(
        [sys.executable, "-m", "cfnops", *argv],
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = done.stdout + done.stderr
    assert done.returncode == code, out
    assert "Traceback" not in out
    assert needle in out, out
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("error:", "Error:"))]
    assert len(errors) == 1, lines


def test_verbosity_decides_the_traceback() -> None:
    assert wants_traceback(["-vv", "diff"], {})
    assert wants_traceback(["-v", "-v", "diff"], {})
    assert wants_traceback(["--verbose", "--verbose"], {})
    assert not wants_traceback(["-v", "diff"], {})
    assert wants_traceback([], {"CFNOPS_TRACEBACK": "1"})


def test_an_internal_error_is_one_line_unless_asked() -> None:
    try:
        {}["missing"]
    except KeyError as exc:
        short, code = internal_error(exc, False)
        full, _ = internal_error(exc, True)
    assert code == 1
    assert short.startswith("error: internal error at test_bad_input.py:")
    assert "Traceback" not in short and "-vv" in short
    assert "Traceback" in full


def test_heal_fails_fast_on_an_unreachable_endpoint(files: dict[str, Path]) -> None:
    """As 'cfnops drift' does: one line, exit 2, no durable run started."""
    environ = {
        **os.environ,
        "CFNOPS_DATABASE_URL": f"sqlite:///{files['root'] / 'heal.sqlite'}",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "CFNOPS_AWS__MAX_ATTEMPTS": "2",
    }
    done = subprocess.run(
        [
            *(sys.executable, "-m", "cfnops", "--endpoint-url", "http://127.0.0.1:9"),
            *("--region", "us-east-1", "heal", "web"),
        ],
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "cannot reach http://127.0.0.1:9" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_heal_of_an_unknown_stack_is_a_usage_error(cfnops_sandbox: object, tmp_path: Path) -> None:
    from cfnops.sandbox import Sandbox

    assert isinstance(cfnops_sandbox, Sandbox)
    environ = {
        **os.environ,
        **cfnops_sandbox.environment(),
        "CFNOPS_DATABASE_URL": f"sqlite:///{tmp_path / 'heal.sqlite'}",
    }
    done = subprocess.run(
        [sys.executable, "-m", "cfnops", "heal", "no-such-stack"],
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "stack no-such-stack does not exist in us-east-1" in done.stderr
    assert "Traceback" not in done.stderr


def test_sandbox_up_on_a_port_in_use_is_a_setup_error(files: dict[str, Path]) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "cfnops", "sandbox", "up", "--port", str(port)],
            capture_output=True, text=True, timeout=120, cwd=files["root"],
            env={**os.environ, "COLUMNS": "200"},
        )  # fmt: skip
    assert done.returncode == 2, done.stderr  # docs/cli.md: setup errors exit 2
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    assert lines[0] == f"error: cannot listen on 127.0.0.1:{port}: Address already in use"
    assert lines[1:] == ["hint: choose another --port (or 0 for a free one)"]
