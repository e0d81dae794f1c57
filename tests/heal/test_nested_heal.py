"""Nested stacks are healed through their root: detection on every nested stack, one
REVERT_DRIFT change set with IncludeNestedStacks, each nested change gated against the
nested stack's own drift (sandbox over HTTP)."""

from __future__ import annotations

import uuid

import pytest
from tests.heal._support import Heal
from tests.sandbox.test_cfn_nested_changesets import nested_stack

from cfnops.cli.main import run
from cfnops.demo.heal_sample import INITIAL_VALUE, drift_sample
from cfnops.sandbox import Sandbox
from cfnops.sandbox.extensions import cfn_phantoms

pytestmark = pytest.mark.slow


def test_drift_in_a_nested_stack_is_healed_through_the_root(heal_env: Heal) -> None:
    name = f"nroot-{uuid.uuid4().hex[:8]}"
    _, child_id = nested_stack(heal_env.sandbox, name)
    drift_sample(heal_env.ssm, f"/{name}/child")

    out = heal_env.run(name)

    assert out["outcome"] == "HEALED", out
    (drifted,) = out["drifted"]
    assert drifted["logicalId"] == "Child/SampleParameter"
    assert drifted["stack"].startswith(f"{name}-Child-")
    gate = out["gate"]
    assert gate["decision"] == "EXECUTE"
    # The match is made against the nested stack's detection, path by path.
    assert gate["matches"] == [
        {
            "logicalId": "Child/SampleParameter",
            "path": "/Properties/Value",
            "explained": True,
            "driftPath": "/Value",
            "reason": "drifted",
        }
    ]
    assert out["coverage"]["checked"] == 2  # the root's topic and the nested parameter
    value = heal_env.ssm.get_parameter(Name=f"/{name}/child")["Parameter"]["Value"]
    assert value == INITIAL_VALUE
    root_cs = heal_env.cfn.describe_change_set(ChangeSetName=out["changeSetId"])
    assert root_cs["IncludeNestedStacks"] is True
    assert root_cs["ExecutionStatus"] == "EXECUTE_COMPLETE"
    (container,) = [c["ResourceChange"] for c in root_cs["Changes"]]
    nested_cs = heal_env.cfn.describe_change_set(ChangeSetName=container["ChangeSetId"])
    assert nested_cs["StackId"] == child_id
    assert nested_cs["ExecutionStatus"] == "EXECUTE_COMPLETE"


def test_a_phantom_in_the_nested_change_set_holds_the_root(heal_env: Heal) -> None:
    name = f"nroot-{uuid.uuid4().hex[:8]}"
    nested_stack(heal_env.sandbox, name)
    drift_sample(heal_env.ssm, f"/{name}/child")
    cfn_phantoms.inject("undrifted_path", stack=f"{name}-Child-*", path="/Properties/Tier")
    try:
        run_id = heal_env.start(name)
        held = _wait_held(heal_env, run_id)
    finally:
        cfn_phantoms.clear()
    assert any(
        r.startswith(
            "nested stack Child: SampleParameter (AWS::SSM::Parameter) unexplained "
            "change at /Properties/Tier: path did not drift"
        )
        for r in held
    ), held
    from cfnops.heal import reject

    reject(heal_env.engine.runtime.database, run_id, reason="test")
    assert heal_env.engine.result(run_id, timeout=60)["outcome"] == "REJECTED"


def _wait_held(heal_env: Heal, run_id: str) -> list[str]:
    import time

    from cfnops.durable import RunStore
    from cfnops.heal._runs import held_info

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with RunStore(heal_env.engine.runtime.database) as store:
            info = held_info(store.get(run_id), store.steps(run_id))
        if info is not None:
            return list(info.reasons)
        time.sleep(0.2)
    raise AssertionError(f"{run_id} was not held")


def test_heal_of_a_nested_stack_named_directly_points_at_its_root(
    cfnops_sandbox: Sandbox,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    name = f"nroot-{uuid.uuid4().hex[:8]}"
    _, child_id = nested_stack(cfnops_sandbox, name)
    child = cfnops_sandbox.client("cloudformation").describe_stacks(StackName=child_id)
    child_name = child["Stacks"][0]["StackName"]
    for key, value in cfnops_sandbox.environment().items():
        monkeypatch.setenv(key, value)
    code = run(["--endpoint-url", cfnops_sandbox.endpoint_url, "heal", child_name])
    err = capsys.readouterr().err
    assert code == 2
    assert f"stack {child_name} is a nested stack of {name}" in err
    assert f"cfnops heal {name}" in err
