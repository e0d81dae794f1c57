"""``cfnops heal`` / ``approve`` / ``reject`` as processes: exit codes, held runs resumed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests._runtime import database_for
from tests.heal._proc import SandboxProcess, cfnops, env_for

from cfnops.config import load_settings
from cfnops.demo.heal_sample import (
    DRIFTED_VALUE,
    INITIAL_VALUE,
    deploy_sample,
    drift_sample,
    wait_stack,
)
from cfnops.durable import RunStore

pytestmark = pytest.mark.slow


def _stack(sp: SandboxProcess, prefix: str) -> tuple[str, str]:
    name = f"{prefix}-{int(time.time() * 1000) % 1000000}"
    deploy_sample(sp.client("cloudformation"), name, f"/{name}/p")
    drift_sample(sp.client("ssm"), f"/{name}/p")
    return name, f"/{name}/p"


def _run(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    proc = cfnops(env, *args)
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, err


def _value(sp: SandboxProcess, param: str) -> str:
    return str(sp.client("ssm").get_parameter(Name=param)["Parameter"]["Value"])


def test_heal_exits_0_and_reports_json(sandbox_proc: SandboxProcess, tmp_path: Path) -> None:
    name, param = _stack(sandbox_proc, "cli-ok")
    env = env_for(sandbox_proc, tmp_path / "db.sqlite")
    code, out, err = _run(env, "-o", "json", "heal", name)
    assert code == 0, err
    data = json.loads(out)
    assert data["counts"]["healed"] == 1
    assert data["runs"][0]["status"] == "HEALED"
    assert data["runs"][0]["coverage"]["percent"] == 100.0
    assert data["coverage"]["checked"] == 1 and data["coverage"]["total"] == 1
    assert _value(sandbox_proc, param) == INITIAL_VALUE


def test_heal_fail_on_unchecked_exits_1_when_a_type_is_unsupported(
    sandbox_proc: SandboxProcess, tmp_path: Path
) -> None:
    name = f"cli-cov-{int(time.time() * 1000) % 1000000}"
    resources = {
        "Log": {"Type": "AWS::Logs::LogGroup", "Properties": {"LogGroupName": f"/{name}"}},
        "Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": name}},
    }
    cfn = sandbox_proc.client("cloudformation")
    cfn.create_stack(StackName=name, TemplateBody=json.dumps({"Resources": resources}))
    wait_stack(cfn, name)
    env = env_for(sandbox_proc, tmp_path / "db.sqlite")
    code, out, err = _run(env, "heal", name)
    assert code == 0, err
    assert "fleet coverage 50%: 1 of 2 resources checked, 0 not checked, 1 unsupported" in out
    code, out, err = _run(env, "heal", name, "--fail-on-unchecked")
    assert code == 1, err
    assert "not everything was checked: coverage 50%: 1 of 2 resources checked" in err


def test_heal_with_default_polls_on_the_sandbox_reports_phases_on_piped_stderr(
    sandbox_proc: SandboxProcess, tmp_path: Path
) -> None:
    name, param = _stack(sandbox_proc, "cli-lines")
    env = env_for(sandbox_proc, tmp_path / "db.sqlite")
    for key in ("DRIFT", "CHANGESET", "EXECUTE"):
        env.pop(f"CFNOPS_HEAL__{key}_POLL_SECONDS")  # the loopback endpoint polls every second
    code, out, err = _run(env, "heal", name)
    assert code == 0, err
    assert "HEALED" in out
    lines = [line for line in err.splitlines() if f"heal {name} " in line]
    assert any(": RUNNING" in line for line in lines), err
    assert any(": HEALED" in line for line in lines), err
    assert len(lines) == len(set(lines)), "a phase reported twice"
    assert _value(sandbox_proc, param) == INITIAL_VALUE


@pytest.mark.parametrize("verdict", ["approve", "reject"])
def test_held_run_exits_3_then_approve_or_reject_finishes_it(
    sandbox_proc: SandboxProcess, tmp_path: Path, verdict: str
) -> None:
    name, param = _stack(sandbox_proc, f"cli-{verdict}")
    env = env_for(
        sandbox_proc,
        tmp_path / "db.sqlite",
        CFNOPS_HEAL__PROTECTED_TYPES='["AWS::SSM::Parameter"]',
    )
    code, out, err = _run(env, "-o", "json", "heal", name)
    assert code == 3, err
    row = json.loads(out)["runs"][0]
    assert row["status"] == "HELD"
    run_id = row["runId"]
    code, out, err = _run(env, "-o", "json", "runs", "show", run_id)
    polls = [s for s in json.loads(out)["steps"] if s["name"].startswith("wait-change-set #")]
    gate = polls[-1]["result"]["gate"]
    assert gate["decision"] == "HOLD"
    assert gate["reasons"] == ["SampleParameter (AWS::SSM::Parameter) is a protected type"]
    # The human view states the decision and its reason above the steps.
    code, out, err = _run(env, "runs", "show", run_id)
    assert code == 0, err
    assert "gate     HOLD: SampleParameter (AWS::SSM::Parameter) is a protected type" in out
    assert _value(sandbox_proc, param) == DRIFTED_VALUE
    # The heal process is gone: approve resumes the run in its own process.
    code, out, err = _run(env, verdict, run_id, "--reason", "checked by test")
    expected = "HEALED" if verdict == "approve" else "REJECTED"
    past = "approved" if verdict == "approve" else "rejected"  # not "rejectd"
    assert code == 0, err
    assert f"{run_id}: {past} by " in out and ": checked by test" in out, out
    code, out, err = _run(env, "-o", "json", "runs", "show", run_id)
    data = json.loads(out)
    assert data["outcome"] == expected, data
    assert _value(sandbox_proc, param) == (INITIAL_VALUE if verdict == "approve" else DRIFTED_VALUE)
    code, out, err = _run(env, "-o", "json", "audit", "list", "--target", run_id)
    assert [(e["action"], e["reason"]) for e in json.loads(out)] == [(verdict, "checked by test")]
    code, _out, err = _run(env, verdict, run_id)
    assert code == 2 and "is not waiting for approval" in err


def test_held_message_at_80_columns_keeps_the_commands_whole(
    sandbox_proc: SandboxProcess, tmp_path: Path
) -> None:
    name, _param = _stack(sandbox_proc, "cli-held-wide")
    env = env_for(
        sandbox_proc,
        tmp_path / "db.sqlite",
        CFNOPS_HEAL__PROTECTED_TYPES='["AWS::SSM::Parameter"]',
    )
    env["COLUMNS"] = "80"
    code, out, err = _run(env, "heal", name)
    assert code == 3, err
    held = [line for line in out.splitlines() if line.startswith(f"held: {name} ")]
    assert len(held) == 1, out
    run_id = held[0].split("'cfnops approve ", 1)[1].split("'", 1)[0]
    assert run_id.startswith("heal-") and "…" not in out
    assert f"'cfnops reject {run_id}'" in held[0] and f"'cfnops runs show {run_id}'" in held[0]


def test_usage_errors_exit_2(sandbox_proc: SandboxProcess, tmp_path: Path) -> None:
    env = env_for(sandbox_proc, tmp_path / "db.sqlite")
    assert _run(env, "heal")[0] == 2
    assert _run(env, "heal", "x", "--tag", "a=b")[0] == 2


def test_fleet_by_tag_and_name(sandbox_proc: SandboxProcess, tmp_path: Path) -> None:
    tag = f"t{int(time.time() * 1000) % 1000000}"
    cfn, ssm = sandbox_proc.client("cloudformation"), sandbox_proc.client("ssm")
    names = [f"{tag}-web-{i}" for i in range(3)]
    for name in [*names, f"{tag}-db-0"]:
        deploy_sample(cfn, name, f"/{name}/p", tags={"fleet": tag})
        drift_sample(ssm, f"/{name}/p")
    env = env_for(sandbox_proc, tmp_path / "db.sqlite")
    code, out, err = _run(
        env, "-o", "json", "heal", "--all", "--tag", f"fleet={tag}", "--name", "*-web-*"
    )
    assert code == 0, err
    data = json.loads(out)
    assert sorted(r["stack"] for r in data["runs"]) == names
    assert data["counts"]["healed"] == 3
    assert _value(sandbox_proc, f"/{tag}-db-0/p") == DRIFTED_VALUE


def test_demo_heal_ends_in_sync(tmp_path: Path) -> None:
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path), COLUMNS="160")
    proc = subprocess.run(
        [sys.executable, "-m", "cfnops", "demo", "heal", "--delay", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    assert "/Value: expected 'initial-value', actual 'updated-value'" in proc.stdout
    assert "HEALED" in proc.stdout
    assert "stack drift-test is IN_SYNC" in proc.stdout


def test_demo_heal_fast_polls_below_a_second_and_ends_in_sync(tmp_path: Path) -> None:
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path), COLUMNS="400")
    proc = subprocess.run(
        [sys.executable, "-m", "cfnops", "demo", "heal", "--fast"],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    assert "stack drift-test is IN_SYNC" in proc.stdout
    db = re.search(
        r"runs recorded in \(kept; --clean removes it\):\n  (\S+\.sqlite)\n", proc.stdout
    )
    assert db is not None, proc.stdout
    assert f"  CFNOPS_DATABASE_URL=sqlite:///{db.group(1)} cfnops console --open" in proc.stdout
    with RunStore(database_for(load_settings(database_url=f"sqlite:///{db.group(1)}"))) as store:
        (run,) = store.list_runs()
        settings = store.get(run.run_id).input["Settings"]
    # Every heal poll 0.1 s apart (1 s in the realistic demo), with as long a budget.
    polls = {k: v for k, v in settings.items() if k.endswith("_poll_seconds")}
    assert set(polls.values()) == {0.1} and len(polls) == 4
    assert settings["drift_max_attempts"] == settings["execute_max_attempts"] == 100


def test_demo_heal_clean_and_interrupted_leave_no_folder_behind(tmp_path: Path) -> None:
    import signal
    import time

    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path), COLUMNS="80", TMPDIR=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, "-m", "cfnops", "demo", "heal", "--fast", "--clean"],
        env=env, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "demo database removed" in proc.stdout
    assert not list(tmp_path.glob("cfnops-demo-*"))
    # Ctrl-C in the middle: the folder goes with the interrupted demo
    running = subprocess.Popen(
        [sys.executable, "-m", "cfnops", "demo", "heal"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob("cfnops-demo-*/cfnops.sqlite")):
        assert time.monotonic() < deadline, "the demo never created its database"
        time.sleep(0.1)
    running.send_signal(signal.SIGINT)
    _out, err = running.communicate(timeout=30)
    assert running.returncode == 130, err
    assert not list(tmp_path.glob("cfnops-demo-*")), err


_MARKUP = re.compile(r"\[/?[a-z][a-z #]*\]|\[/\]")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def test_demo_heal_at_80_columns_through_a_pipe_prints_no_markup(tmp_path: Path) -> None:
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path), COLUMNS="80", TMPDIR=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, "-m", "cfnops", "demo", "heal", "--fast", "--clean"],
        env=env, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert _MARKUP.findall(proc.stdout + proc.stderr) == [], proc.stdout
    lines = proc.stdout.splitlines()
    assert "  STATUS  HEALED" in lines, proc.stdout
    # The HEALED notification: each ARN and the console URL whole on one line.
    (stack,) = [line for line in lines if line.startswith("  stack       arn:")]
    assert re.fullmatch(r"  stack       arn:aws:cloudformation:\S+/drift-test/[0-9a-f-]{36}", stack)
    (url,) = [line for line in lines if line.startswith("  console     https://")]
    assert url.endswith("%2F" + url.rsplit("%2F", 1)[1]) and len(url) > 200


def test_demo_heal_on_a_100_column_terminal_prints_no_markup(tmp_path: Path) -> None:
    import fcntl
    import pty
    import struct
    import termios

    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    env.update(XDG_STATE_HOME=str(tmp_path), TMPDIR=str(tmp_path), TERM="xterm-256color")
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "cfnops", "demo", "heal", "--fast", "--clean"],
        env=env, stdin=follower, stdout=follower, stderr=follower, close_fds=True,
    )  # fmt: skip
    os.close(follower)
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the process closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert proc.wait(timeout=180) == 0
    screen = _ANSI.sub("", b"".join(chunks).decode("utf-8", "replace"))
    assert "HEALED" in screen and "IN_SYNC" in screen, screen
    assert _MARKUP.findall(screen) == [], screen
