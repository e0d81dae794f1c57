"""SIGKILL during each wait and each step, then resume: exactly one change set, executed once.

The sandbox runs in its own process (it must outlive the killed cfnops); latency
injected on one API call keeps a step in flight long enough to kill it there.
"""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from tests.heal._proc import SandboxProcess, cfnops, env_for, steps, wait_for

from cfnops.demo.heal_sample import INITIAL_VALUE, deploy_sample, drift_sample

pytestmark = pytest.mark.slow


# (killed inside, faults/delays set before the run, kill once this step is recorded)
CASES: list[tuple[str, dict[str, Any], str | None]] = [
    ("step detect-drift at DescribeStacks", {"latency": "DescribeStacks"}, None),
    ("step detect-drift", {"latency": "DetectStackDrift"}, None),
    ("wait drift detection", {"delays": {"drift_detection": 4}}, "wait-drift-detection #1"),
    ("poll reading drift", {"latency": "DescribeStackResourceDrifts"}, "detect-drift"),
    ("step create-change-set", {"latency": "CreateChangeSet"}, "wait-drift-detection #1"),
    ("wait change set", {"delays": {"change_set_create": 4}}, "wait-change-set #1"),
    ("poll running the gate", {"latency": "DescribeChangeSet"}, "create-change-set"),
    ("step execute-change-set", {"latency": "ExecuteChangeSet"}, "wait-change-set #1"),
    ("wait execution", {"delays": {"change_set_execute": 4}}, "wait-execution #1"),
]


def _prepare(sp: SandboxProcess, setup: dict[str, Any]) -> None:
    if "latency" in setup:
        rule = {
            "kind": "latency",
            "service": "cloudformation",
            "operation": setup["latency"],
            "seconds": 3,
        }
        sp.control("faults", {"add": [rule]})
    if "delays" in setup:
        sp.control("config", {"delays": setup["delays"]})


def _restore(sp: SandboxProcess) -> None:
    sp.control("faults", {"clear": True})
    sp.control("config", {"delays": 0})


def _names(db: Path) -> list[str]:
    return [s.name for s in steps(db)[1]]


@pytest.mark.parametrize(("where", "setup", "after"), CASES, ids=[c[0] for c in CASES])
def test_sigkill_then_resume_creates_and_executes_one_change_set(
    sandbox_proc: SandboxProcess,
    tmp_path: Path,
    where: str,
    setup: dict[str, Any],
    after: str | None,
) -> None:
    sp = sandbox_proc
    cfn, ssm = sp.client("cloudformation"), sp.client("ssm")
    stack = f"crash-{where.split()[-1].replace('#', '')}-{int(time.time() * 1000) % 100000}"
    param = f"/{stack}/sample"
    deploy_sample(cfn, stack, param)
    drift_sample(ssm, param)
    db = tmp_path / "db.sqlite"
    env = env_for(sp, db)
    _prepare(sp, setup)
    try:
        first = cfnops(env, "-o", "json", "heal", stack)
        if after is None:
            wait_for(lambda: steps(db)[0] is not None, what="the run to start")
        else:
            wait_for(lambda: after in _names(db), what=f"step {after}")
        time.sleep(1.0)  # inside the 3 s latency / the 4 s operation
        assert first.poll() is None, first.communicate()
        first.send_signal(signal.SIGKILL)
        first.communicate(timeout=10)
    finally:
        _restore(sp)
    run_id, before = steps(db)
    assert run_id is not None
    done_before = [(s.index, s.name, s.ended) for s in before]
    worker = cfnops(env, "worker", "--concurrency", "2")
    try:
        wait_for(lambda: "notify-healed" in _names(db), timeout=90, what="the resumed run")
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.communicate(timeout=30)
    _, after_steps = steps(db, run_id)
    names = [s.name for s in after_steps]
    # Finished steps were kept as they were, not run again.
    assert [(s.index, s.name, s.ended) for s in after_steps[: len(before)]] == done_before
    assert names.count("create-change-set") == 1 and names.count("execute-change-set") == 1
    summaries = cfn.list_change_sets(StackName=stack)["Summaries"]
    assert len(summaries) == 1, summaries
    assert summaries[0]["ExecutionStatus"] == "EXECUTE_COMPLETE"
    events = cfn.describe_stack_events(StackName=stack)["StackEvents"]
    updates = [
        e
        for e in events
        if e["LogicalResourceId"] == stack and e["ResourceStatus"] == "UPDATE_COMPLETE"
    ]
    assert len(updates) == 1, json.dumps(events, default=str)
    assert ssm.get_parameter(Name=param)["Parameter"]["Value"] == INITIAL_VALUE
