"""No command prints a Python traceback at the default verbosity; ``-vv`` keeps them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests._runtime import database_for
from tests._subprocess import cfnops, wait_for, worker_env

from cfnops.config import load_settings
from cfnops.jobs import JobStore

pytestmark = pytest.mark.slow
UNREACHABLE = "http://127.0.0.1:9"


def _env(tmp_path: Path) -> dict[str, str]:
    return worker_env(
        tmp_path / "db.sqlite",
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION="us-east-1",
    )


def _done(proc: subprocess.Popen[str], timeout: float = 120) -> tuple[int, str]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out + err


def test_heal_against_an_unreachable_endpoint(tmp_path: Path) -> None:
    env = _env(tmp_path)
    code, text = _done(cfnops(env, "--endpoint-url", UNREACHABLE, "heal", "web"))
    # heal checks the stack before starting a run, as drift does: one line, exit 2
    assert code == 2
    assert f"cannot reach {UNREACHABLE}" in text
    assert "Traceback" not in text
    assert [line for line in text.splitlines() if line.startswith("error:")] == [
        f"error: cannot reach {UNREACHABLE}/"
    ]


def test_job_run_with_a_failing_task(tmp_path: Path) -> None:
    definition = tmp_path / "fail.asl.json"
    definition.write_text(
        json.dumps(
            {
                "StartAt": "T",
                "States": {
                    "T": {
                        "Type": "Task",
                        "Resource": "arn:aws:lambda:us-east-1:123456789012:function:nope",
                        "End": True,
                    }
                },
            }
        )
    )
    proc = cfnops(_env(tmp_path), "--endpoint-url", UNREACHABLE, "job", "run", str(definition))
    code, text = _done(proc)
    assert code == 1
    assert "FAILED" in text and "Traceback" not in text


@pytest.mark.parametrize("verbosity", [(), ("-vv",)], ids=["default", "debug"])
def test_runs_cancel_of_a_running_run(tmp_path: Path, verbosity: tuple[str, ...]) -> None:
    env = _env(tmp_path)
    definition = tmp_path / "wait.asl.json"
    definition.write_text(
        json.dumps(
            {
                "StartAt": "W",
                "States": {
                    "W": {"Type": "Wait", "Seconds": 4, "Next": "P"},
                    "P": {"Type": "Pass", "End": True},
                },
            }
        )
    )
    # output to a file: -vv writes more than a pipe holds while nobody reads it
    log = (tmp_path / "runner.log").open("w+")
    runner = subprocess.Popen(
        [sys.executable, "-m", "cfnops", *verbosity, "job", "run", str(definition),
         "--name", "waiting-1"],
        env=env, stdout=log, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    store = JobStore(database_for(load_settings(database_url=env["CFNOPS_DATABASE_URL"])))

    def waiting() -> bool:
        try:
            return any(e["type"] == "WaitStateEntered" for e in store.history("waiting-1"))
        except Exception:  # the run is not stored yet
            return False

    wait_for(waiting, what="the run to reach its Wait state")
    code, cancelled = _done(cfnops(env, "runs", "cancel", "waiting-1"))
    assert code == 0, cancelled
    assert "CANCELLED" in cancelled
    runner.wait(timeout=120)
    log.seek(0)
    ran = log.read()
    log.close()
    assert "Traceback" not in cancelled
    if verbosity:  # -vv keeps DBOS's traceback of the cancelled workflow
        assert "Traceback" in ran
    else:
        assert "Traceback" not in ran, ran
        assert "Exception encountered in background workflow (" in ran
