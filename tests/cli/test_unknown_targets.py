"""docs/cli.md's exit codes: every command given a stack or run that does not exist exits 2
with one ``error:`` line and a hint, as a real process against the sandbox."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cfnops.sandbox import Sandbox

pytestmark = pytest.mark.slow

TEMPLATE = '{"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}'

# (command, the words of the error)
CASES: list[tuple[list[str], str]] = [
    (["drift", "no-such-stack"], "no-such-stack"),
    (["drift", "report", "no-such-stack"], "no-such-stack"),
    (["drift", "adopt", "no-such-stack"], "no-such-stack"),
    (["drift", "accept", "no-such-stack", "Q", "--until", "2099-01-01", "--reason", "x"],
     "no-such-stack"),
    (["heal", "no-such-stack"], "no-such-stack"),
    (["diff", "--stack", "no-such-stack", "{template}"], "no-such-stack"),
    (["ami", "rotate", "--image-id", "ami-12345678", "--stack", "no-such-stack"],
     "no-such-stack"),
    (["ami", "rotate", "--image-id", "notanami", "--parameter", "/x"], "not an AMI id"),
    (["ami", "rotate", "--image-id", "ami-0123456789abcdef0", "--parameter", "/x"],
     "no such AMI in us-east-1"),
    (["runs", "show", "no-such-run"], "no-such-run"),
    (["runs", "cancel", "no-such-run"], "no-such-run"),
    (["runs", "resume", "no-such-run"], "no-such-run"),
    (["approve", "no-such-run"], "no-such-run"),
    (["reject", "no-such-run"], "no-such-run"),
    (["job", "show", "no-such-run"], "no-such-run"),
    (["job", "history", "no-such-run"], "no-such-run"),
    (["job", "stop", "no-such-run"], "no-such-run"),
    (["job", "redrive", "no-such-run"], "no-such-run"),
    (["job", "rerun", "no-such-run", "--from-start"], "no-such-run"),
    (["job", "hold", "no-such-run"], "no-such-run"),
    (["job", "release", "no-such-run"], "no-such-run"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "needle"), [pytest.param(a, n, id=" ".join(a[:4])) for a, n in CASES]
)
def test_an_unknown_target_exits_2_with_one_line(
    cfnops_sandbox: Sandbox, tmp_path: Path, args: list[str], needle: str
) -> None:
    template = tmp_path / "t.json"
    template.write_text(TEMPLATE)
    env = {
        **os.environ,
        **cfnops_sandbox.environment(),
        "CFNOPS_DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite'}",
        "COLUMNS": "250",
    }
    argv = [a.format(template=template) for a in args]
    done = subprocess.run(
        [sys.executable, "-m", "cfnops", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, (done.returncode, lines)
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1 and needle in errors[0], lines
    assert any(line.startswith("hint:") for line in lines), lines
    assert "Traceback" not in done.stderr
