"""Job runs name the caller's account in every ARN (STS GetCallerIdentity), not a fixed one.

moto answers GetCallerIdentity with ``MOTO_ACCOUNT_ID`` when it is set in the server's
process (moto/core/responses.py ``get_current_account``): the sandbox runs in this test
process, so setting it here gives the sandbox another account than moto's default.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests._runtime import database_for
from tests._subprocess import cfnops, worker_env

from cfnops.config import load_settings
from cfnops.jobs import JobStore

ACCOUNT = "222233334444"
CHILD = {"StartAt": "C", "States": {"C": {"Type": "Pass", "Result": {"child": True}, "End": True}}}


@pytest.mark.slow
def test_a_run_against_another_sandbox_account_names_it_in_every_arn(
    cfnops_sandbox_server: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MOTO_ACCOUNT_ID", ACCOUNT)
    sfn = cfnops_sandbox_server.client("stepfunctions")
    child = sfn.create_state_machine(
        name="account-child",
        definition=json.dumps(CHILD),
        roleArn=f"arn:aws:iam::{ACCOUNT}:role/child",
    )["stateMachineArn"]
    assert f":{ACCOUNT}:" in child  # the sandbox runs as the other account
    definition = {
        "StartAt": "Ids",
        "States": {
            "Ids": {
                "Type": "Pass",
                "Parameters": {
                    "execution.$": "$$.Execution.Id",
                    "machine.$": "$$.StateMachine.Id",
                    "role.$": "$$.Execution.RoleArn",
                },
                "Next": "Child",
            },
            "Child": {
                "Type": "Task",
                "Resource": "arn:aws:states:::states:startExecution.sync:2",
                "Parameters": {"StateMachineArn": child, "Input": {}},
                "ResultSelector": {"child.$": "$.ExecutionArn"},
                "ResultPath": "$.child",
                "End": True,
            },
        },
    }
    path = tmp_path / "ids.asl.json"
    path.write_text(json.dumps(definition))
    db = tmp_path / "db.sqlite"
    env = worker_env(db, **cfnops_sandbox_server.environment())
    proc = cfnops(env, "-o", "json", "job", "run", str(path), "--name", "ids-1")
    out, err = proc.communicate(timeout=120)
    result = json.loads(out)
    assert (proc.returncode, result["status"]) == (0, "SUCCEEDED"), (result["cause"], err)
    arns = {**result["output"], "child": result["output"]["child"]["child"]}
    region = cfnops_sandbox_server.region
    assert arns == {
        "execution": f"arn:aws:states:{region}:{ACCOUNT}:execution:ids:ids-1",
        "machine": f"arn:aws:states:{region}:{ACCOUNT}:stateMachine:ids",
        "role": f"arn:aws:iam::{ACCOUNT}:role/cfnops-jobs",
        "child": arns["child"],
    }
    assert arns["child"].startswith(f"arn:aws:states:{region}:{ACCOUNT}:execution:account-child:")
    store = JobStore(database_for(load_settings(database_url=f"sqlite:///{db}")))
    for run in ("ids-1", arns["child"].rsplit(":", 1)[-1]):
        started = store.history(run)[0]
        assert started["type"] == "ExecutionStarted"
        assert started["details"]["roleArn"] == f"arn:aws:iam::{ACCOUNT}:role/cfnops-jobs"
    text = json.dumps([store.history(r) for r in ("ids-1",)])
    assert "111111111111" not in text and "123456789012" not in text
