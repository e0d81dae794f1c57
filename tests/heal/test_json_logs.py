"""``--log-format json`` on a failing ``heal`` process against the sandbox: every stderr
line is a JSON object carrying the run's id — progress lines, the console notification
and DBOS's own "Exception encountered in background workflow" line."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from tests.heal._proc import SandboxProcess, cfnops, env_for

from cfnops.demo.heal_sample import deploy_sample, drift_sample

pytestmark = pytest.mark.slow


def test_failing_heal_writes_only_json_lines_with_the_run_id(
    sandbox_proc: SandboxProcess, tmp_path: Path
) -> None:
    name = f"jsonlog-{int(time.time() * 1000) % 1000000}"
    deploy_sample(sandbox_proc.client("cloudformation"), name, f"/{name}/p")
    drift_sample(sandbox_proc.client("ssm"), f"/{name}/p")
    rule = {"stack": name, "change_set": "FAILED", "reason": "Template error: boom"}
    sandbox_proc.control("cfn-outcomes", {"force": [rule]})
    try:
        env = env_for(sandbox_proc, tmp_path / "db.sqlite")
        env["CFNOPS_NOTIFY__CONSOLE"] = "true"  # with -o json its panel goes to stderr
        env.pop("CFNOPS_LOG_FORMAT", None)
        proc = cfnops(env, "--log-format", "json", "-o", "json", "heal", name)
        out, err = proc.communicate(timeout=120)
    finally:
        sandbox_proc.control("cfn-outcomes", {"clear": True})
    assert proc.returncode == 1, err
    run_id = json.loads(out)["runs"][0]["runId"]
    records = [json.loads(line) for line in err.splitlines() if line.strip()]
    assert all(isinstance(r, dict) for r in records)
    assert len(records) == len(err.splitlines()), "a blank line on stderr"
    assert {r.get("run_id") for r in records} == {run_id}, err
    by_logger = {str(r["logger"]) for r in records}
    assert {"cfnops.progress", "cfnops.stderr", "dbos"} <= by_logger, err
    dbos = [r for r in records if r["logger"] == "dbos"]
    assert dbos[0]["message"].startswith("Exception encountered in background workflow")
    assert dbos[0]["level"] == "ERROR" and "ChangeSetFailed" in dbos[0]["error"]
    notice = next(r for r in records if r["logger"] == "cfnops.stderr")
    assert "CHANGE_SET_FAILED" in notice["message"] and notice["workflow"] == "cfnops.heal"
    last = [r for r in records if r["logger"] == "cfnops.progress"][-1]
    assert last["phase"].startswith("FAILED") and last["stack"] == name
