"""Ctrl-C (a real SIGINT) and SIGTERM in the middle of a durable wait: every command
exits within 2 s, with 130 (143 for SIGTERM), no traceback, and says what became of
its run; the run is left RUNNING (the default) or cancelled (``on_interrupt``); the
next heal of the stack is refused with a message that says how to free it."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
from tests._runtime import database_for
from tests._subprocess import cfnops, wait_for, worker_env
from tests.heal._proc import SandboxProcess, env_for

from cfnops.config import load_settings
from cfnops.demo.heal_sample import deploy_sample, drift_sample
from cfnops.durable import RunStore

pytestmark = pytest.mark.slow


def interrupt(proc: subprocess.Popen[str], sig: int = signal.SIGINT) -> tuple[float, str, str]:
    """Send ``sig``; the seconds until the process ended, and its output."""
    sent = time.monotonic()
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=15)
    return time.monotonic() - sent, out, err


def run_status(db: Path, run_id: str) -> str:
    with RunStore(database_for(load_settings(database_url=f"sqlite:///{db}"))) as store:
        return str(store.get(run_id).status)


def has_step(db: Path, run_id: str, name: str) -> bool:
    try:
        with RunStore(database_for(load_settings(database_url=f"sqlite:///{db}"))) as store:
            return name in [s.name for s in store.steps(run_id)]
    except Exception:  # not created yet
        return False


def sample_run(db: Path, run_id: str, *extra: str) -> subprocess.Popen[str]:
    env = worker_env(db, modules=["cfnops.demo.workflows"], **dict(e.split("=", 1) for e in extra))
    args = ["runs", "start", "cfnops.sample", "--input", '{"wait_seconds": 60}', "--run-id", run_id]
    return cfnops(env, *args)


def test_runs_start_ctrl_c_leaves_the_run_running(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    proc = sample_run(db, "sample-int")
    wait_for(lambda: has_step(db, "sample-int", "count-words"), what="the run's first steps")
    took, out, err = interrupt(proc)
    assert took < 2.0, err
    assert proc.returncode == 130
    assert "Traceback" not in out + err
    assert "interrupted (Ctrl-C)" in err
    assert "left RUNNING" in err
    assert "run sample-int left RUNNING" in err
    assert "cfnops runs cancel sample-int" in err
    assert run_status(db, "sample-int") == "RUNNING"


def test_on_interrupt_cancel_cancels_the_run(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    proc = sample_run(db, "sample-cancel", "CFNOPS_ON_INTERRUPT=cancel")
    wait_for(lambda: has_step(db, "sample-cancel", "count-words"), what="the run's first steps")
    took, out, err = interrupt(proc)
    assert took < 2.0 and proc.returncode == 130, err
    assert "run sample-cancel cancelled" in err
    assert "Traceback" not in out + err
    assert run_status(db, "sample-cancel") == "CANCELLED"


def test_second_ctrl_c_exits_at_once(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    proc = sample_run(db, "sample-twice")
    wait_for(lambda: has_step(db, "sample-twice", "count-words"), what="the run's first steps")
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=15)
    assert time.monotonic() - sent < 2.0
    assert proc.returncode == 130


@pytest.mark.parametrize("mode", ["leave", "cancel"])
def test_job_run_ctrl_c_does_not_let_the_job_finish(tmp_path: Path, mode: str) -> None:
    db = tmp_path / "runs.sqlite"
    definition = tmp_path / "wait.asl.json"
    definition.write_text(
        json.dumps(
            {
                "StartAt": "Hold",
                "States": {
                    "Hold": {"Type": "Wait", "Seconds": 8, "Next": "Done"},
                    "Done": {"Type": "Succeed"},
                },
            }
        )
    )
    env = worker_env(db, CFNOPS_ON_INTERRUPT=mode)
    proc = cfnops(env, "job", "run", str(definition), "--name", "int-1")

    def running() -> bool:
        try:
            return run_status(db, "int-1") == "RUNNING"
        except Exception:  # not created yet
            return False

    wait_for(running, what="the job run")
    time.sleep(0.5)  # the job is in its Wait state
    took, out, err = interrupt(proc)
    assert took < 2.0 and proc.returncode == 130, err
    assert "Traceback" not in out + err
    if mode == "leave":
        assert "left RUNNING" in err and "cfnops job stop int-1" in err
    else:
        assert "job run int-1 stopped: ABORTED (on_interrupt = cancel)" in err
    time.sleep(6.0)  # past the Wait: the job must not have finished by itself
    shown = subprocess.run(
        [*cfnops_args(), "-o", "json", "job", "show", "int-1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["status"] == ("RUNNING" if mode == "leave" else "ABORTED")


def cfnops_args() -> list[str]:
    import sys

    return [sys.executable, "-m", "cfnops"]


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 0), (signal.SIGINT, 130)])
def test_worker_stops_within_two_seconds(tmp_path: Path, sig: int, code: int) -> None:
    proc = cfnops(worker_env(tmp_path / "runs.sqlite"), "worker")
    assert proc.stdout is not None
    line = proc.stdout.readline()  # the banner: the worker is up
    assert "cfnops worker" in line
    took, out, err = interrupt(proc, sig)
    assert took < 2.5, err
    assert proc.returncode == code
    assert "Traceback" not in out + err
    assert "left RUNNING and resumed by another worker" in out


def test_heal_ctrl_c_then_next_heal_says_how_to_free_the_stack(tmp_path: Path) -> None:
    sandbox = SandboxProcess()
    try:
        cfn, ssm = sandbox.client("cloudformation"), sandbox.client("ssm")
        deploy_sample(cfn, "int-stack", "/int/sample")
        drift_sample(ssm, "/int/sample")
        # Slow drift detection so the heal is waiting when it is interrupted.
        sandbox.control("config", {"delays": {"drift_detection": 30}})
        db = tmp_path / "runs.sqlite"
        env = env_for(sandbox, db)
        proc = cfnops(env, "heal", "int-stack")

        def started() -> bool:
            with RunStore(database_for(load_settings(database_url=f"sqlite:///{db}"))) as store:
                return bool(store.list_runs(workflow="cfnops.heal")) if db.exists() else False

        wait_for(started, what="the heal run")
        time.sleep(1.0)
        took, out, err = interrupt(proc)
        assert took < 2.0 and proc.returncode == 130, err
        assert "Traceback" not in out + err
        assert "left RUNNING" in err
        again = subprocess.run(
            [*cfnops_args(), "heal", "int-stack"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert again.returncode == 2, again.stderr
        assert "already being healed by run" in again.stderr
        assert "cfnops runs cancel" in again.stderr and "cfnops worker" in again.stderr
        assert "Traceback" not in again.stderr
    finally:
        sandbox.stop()


def test_demo_heal_ctrl_c_mid_wait(tmp_path: Path) -> None:
    """The README's main job, interrupted while its heal waits: exit 130 within 2 s."""
    env = worker_env(tmp_path / "runs.sqlite", TMPDIR=str(tmp_path))
    proc = cfnops(env, "demo", "heal")
    assert proc.stderr is not None and proc.stdout is not None
    deadline = time.monotonic() + 120
    seen = ""
    while ": RUNNING" not in seen:  # the heal run waits (progress lines on piped stderr)
        assert time.monotonic() < deadline, seen
        assert proc.poll() is None, seen
        seen += proc.stderr.readline()
    took, out, err = interrupt(proc)
    assert took < 2.0, err
    assert proc.returncode == 130
    assert "Traceback" not in seen + out + err
    assert "interrupted (Ctrl-C)" in err
    assert "left RUNNING" in err


def test_worker_sigterm_during_a_durable_wait_exits_0_and_leaves_the_run(tmp_path: Path) -> None:
    """docs/durable.md: a worker exits 0 on SIGTERM, also while a run it executes waits
    (it exited 143 when the shutdown outlived the grace)."""
    db = tmp_path / "runs.sqlite"
    env = worker_env(db, modules=["cfnops.demo.workflows"])
    queued = cfnops(env, "runs", "start", "cfnops.sample", "--input", '{"wait_seconds": 60}',
                    "--run-id", "waiting-1", "--no-wait")  # fmt: skip
    queued.communicate(timeout=60)
    assert queued.returncode == 0
    proc = cfnops(env, "worker", "--grace", "1")
    wait_for(lambda: has_step(db, "waiting-1", "count-words"), what="the run's first steps")
    time.sleep(0.5)  # in its durable wait now
    _took, out, err = interrupt(proc, signal.SIGTERM)
    assert proc.returncode == 0, (out, err)
    assert "Traceback" not in out + err
    assert run_status(db, "waiting-1") in ("PENDING", "RUNNING", "ENQUEUED")


def test_console_ctrl_c_with_a_live_page_exits_at_once(tmp_path: Path) -> None:
    """cli.md: Ctrl-C stops the console within a second, also with a page streaming live
    updates (it took 2.2 s)."""
    import http.client
    import re
    import socket
    import threading
    import urllib.parse

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = cfnops(worker_env(tmp_path / "runs.sqlite"), "console", "--port", str(port))
    assert proc.stdout is not None
    link = re.search(r"open (\S+)", proc.stdout.readline())
    assert link is not None
    url = urllib.parse.urlsplit(link.group(1))

    conns: list[http.client.HTTPConnection] = []

    def get(path: str, headers: dict[str, str]) -> http.client.HTTPResponse:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conns.append(conn)
        conn.request("GET", path, headers=headers)
        return conn.getresponse()

    wait_for(lambda: _answers(port), what="the console to listen")
    login = get(f"{url.path}?{url.query}", {})
    cookie = str(login.getheader("Set-Cookie")).split(";")[0]
    login.read()
    streaming = threading.Event()

    def stream() -> None:
        response = get("/runs/stream", {"Cookie": cookie})
        streaming.set()
        try:
            while response.read1(100):
                pass
        except (OSError, http.client.HTTPException):  # cut when the console stops
            pass
        finally:
            response.close()

    reader = threading.Thread(target=stream, daemon=True)
    reader.start()
    assert streaming.wait(10)
    took, out, err = interrupt(proc)
    reader.join(10)
    for conn in conns:
        conn.close()
    assert took < 2.0, err
    assert proc.returncode == 130, err
    assert "Traceback" not in out + err
    # the live page's stream cut by the stop is no error (uvicorn logged one)
    assert "ASGI callable returned without completing response" not in err, err


def _answers(port: int) -> bool:
    import socket

    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False
