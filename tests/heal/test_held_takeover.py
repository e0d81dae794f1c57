"""A held heal is continued by a worker, never by an unrelated process on the same database.

The heal process exits holding its run for approval. An unrelated ``cfnops job run``
(a Wait job-net, no AWS settings at all) runs on the same database while the run is
approved or rejected the way the console does it (an answer recorded, no engine). A
worker with no AWS settings then continues the run with the region and endpoint the
run recorded: approved → HEALED with its change set executed once; rejected →
REJECTED. The job run's process never touches the heal run.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests._runtime import database_for
from tests.heal._proc import SandboxProcess, cfnops, env_for

from cfnops.config import load_settings
from cfnops.demo.heal_sample import DRIFTED_VALUE, INITIAL_VALUE, deploy_sample, drift_sample
from cfnops.durable import RunStore
from cfnops.heal import answer_approval

pytestmark = pytest.mark.slow

_AWS_KEYS = ("CFNOPS_AWS__ENDPOINT_URL", "CFNOPS_AWS__REGION", "AWS_REGION", "AWS_DEFAULT_REGION")


def _no_aws(env: dict[str, str]) -> dict[str, str]:
    """``env`` without any region or endpoint (credentials stay: the worker's own)."""
    return {k: v for k, v in env.items() if k not in _AWS_KEYS}


@pytest.mark.parametrize("verdict", ["approve", "reject"])
def test_held_heal_answered_beside_an_unrelated_job_run_ends_as_answered(
    sandbox_proc: SandboxProcess, tmp_path: Path, verdict: str
) -> None:
    name = f"held-{verdict}-{int(time.time() * 1000) % 1000000}"
    param = f"/{name}/p"
    deploy_sample(sandbox_proc.client("cloudformation"), name, param)
    drift_sample(sandbox_proc.client("ssm"), param)
    db = tmp_path / "db.sqlite"
    env = env_for(sandbox_proc, db, CFNOPS_HEAL__PROTECTED_TYPES='["AWS::SSM::Parameter"]')
    held = cfnops(env, "-o", "json", "heal", name)
    out, err = held.communicate(timeout=180)
    assert held.returncode == 3, err
    run_id = json.loads(out)["runs"][0]["runId"]

    wait_net = tmp_path / "wait.asl.json"
    wait_net.write_text(
        json.dumps({"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 6, "End": True}}})
    )
    unrelated = subprocess.Popen(
        [sys.executable, "-m", "cfnops", "job", "run", str(wait_net), "--name", "unrelated"],
        env=_no_aws(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(1.5)  # the job run's engine is up while the answer lands
    settings = load_settings(database_url=f"sqlite:///{db}")
    answer_approval(
        database_for(settings), run_id, verdict, reason="checked by test", by="console:test"
    )
    out, err = unrelated.communicate(timeout=120)
    assert unrelated.returncode == 0, err
    assert "unrelated: SUCCEEDED" in out
    with RunStore(database_for(settings)) as store:
        record = store.get(run_id)
    assert record.status == "RUNNING", record  # the job run's process did not take it

    worker = cfnops(_no_aws(env), "worker")
    try:
        deadline = time.monotonic() + 180
        while True:
            with RunStore(database_for(settings)) as store:
                record = store.get(run_id)
            if record.status not in ("RUNNING", "QUEUED"):
                break
            assert time.monotonic() < deadline, "the worker did not finish the held run"
            time.sleep(0.5)
    finally:
        worker.terminate()
        worker.communicate(timeout=60)
    code = subprocess.run(
        [sys.executable, "-m", "cfnops", "-o", "json", "runs", "show", run_id],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    shown = json.loads(code.stdout)
    expected = "HEALED" if verdict == "approve" else "REJECTED"
    assert shown["outcome"] == expected, (shown, record.error)
    names = [s["name"] for s in shown["steps"]]
    assert names.count("execute-change-set") == (1 if verdict == "approve" else 0), names
    value = sandbox_proc.client("ssm").get_parameter(Name=param)["Parameter"]["Value"]
    assert value == (INITIAL_VALUE if verdict == "approve" else DRIFTED_VALUE)
