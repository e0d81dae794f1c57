"""Each phantom the sandbox can inject into a REVERT_DRIFT change set is held with its reason.

The change set is real (the sandbox computed it from the drifted stack); the
phantom switch rewrites what DescribeChangeSet answers, as AWS's trackers show
drift-aware change sets doing. The gate matches every change to the run's drift
detection; a genuine heal still runs unattended.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
import requests
from tests.heal._support import Heal, unique

from cfnops.demo.heal_sample import wait_stack
from cfnops.durable import RunStore
from cfnops.heal._runs import answer_approval, gate_decision, held_info
from cfnops.sandbox.extensions import cfn_phantoms


def _two_parameters(env: Heal) -> tuple[str, str]:
    """A stack of two SSM parameters; ``Drifted`` is changed out of band, ``Quiet`` is not."""
    stack = unique("phantom")
    resources = {
        lid: {
            "Type": "AWS::SSM::Parameter",
            "Properties": {"Name": f"/{stack}/{lid}", "Type": "String", "Value": "initial"},
        }
        for lid in ("Drifted", "Quiet")
    }
    env.cfn.create_stack(StackName=stack, TemplateBody=json.dumps({"Resources": resources}))
    wait_stack(env.cfn, stack)
    name = f"/{stack}/Drifted"
    env.ssm.put_parameter(Name=name, Value="changed", Type="String", Overwrite=True)
    return stack, name


def _held_gate(env: Heal, run_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    with RunStore(env.engine.runtime.database) as store:
        while held_info(store.get(run_id), store.steps(run_id)) is None:
            assert time.monotonic() < deadline, "the run was never held"
            time.sleep(0.1)
        gate = gate_decision(store.steps(run_id))
    assert gate is not None
    answer_approval(env.engine.runtime.database, run_id, "reject", reason="phantom", by="test")
    assert env.engine.result(run_id, timeout=60)["outcome"] == "REJECTED"
    return gate


V = "/Properties/Value"
CASES = [
    ("known_after_apply", {}, f"Drifted (AWS::SSM::Parameter) unexplained change at {V}: "
     "value known only after apply"),
    ("undrifted_path", {}, "Drifted (AWS::SSM::Parameter) unexplained change at "
     "/Properties/Description: path did not drift (drifted: /Value)"),
    ("in_sync_change", {"logical_id": "Quiet"}, "Quiet (AWS::SSM::Parameter) unexplained "
     "change: changed but detection found it IN_SYNC"),
    ("replacement", {}, f"Drifted (AWS::SSM::Parameter) unexplained change at {V}: "
     "RequiresRecreation=Always but the schema says Value updates in place"),
    ("drift_unsupported", {}, "Drifted (AWS::SSM::Parameter) unexplained change: "
     "ResourceDriftStatus UNSUPPORTED: its actual state cannot be compared"),
    ("drift_unknown", {}, "Drifted (AWS::SSM::Parameter) unexplained change: "
     "ResourceDriftStatus UNKNOWN: its actual state cannot be compared"),
    ("sync_with_actual", {"logical_id": "Quiet"}, "Quiet (AWS::SSM::Parameter) unexplained "
     "change: SyncWithActual mixed with real changes"),
    ("ignored_attribute", {}, f"Drifted (AWS::SSM::Parameter) unexplained change at {V}: "
     f"CloudFormation ignored drift at {V} (WRITE_ONLY_PROPERTY) yet writes it"),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "spec", "reason"), CASES, ids=[c[0] for c in CASES])
def test_each_phantom_holds_the_run_with_its_reason(
    heal_env: Heal, kind: str, spec: dict[str, str], reason: str
) -> None:
    stack, _ = _two_parameters(heal_env)
    cfn_phantoms.inject(kind, stack=stack, **spec)
    gate = _held_gate(heal_env, heal_env.start(stack))
    assert gate["decision"] == "HOLD"
    assert reason in gate["reasons"], gate["reasons"]
    explained = {(m["logicalId"], m["path"]): m["explained"] for m in gate["matches"]}
    if kind not in ("in_sync_change", "sync_with_actual", "drift_unsupported", "drift_unknown"):
        assert explained[("Drifted", V)] is (kind in ("undrifted_path",))
    assert not all(explained.values())


def test_a_genuine_heal_runs_unattended_next_to_phantom_switches(heal_env: Heal) -> None:
    stack, name = _two_parameters(heal_env)
    cfn_phantoms.inject("undrifted_path", stack="someone-else-*")
    out = heal_env.run(stack)
    assert out["outcome"] == "HEALED"
    assert out["gate"]["matches"] == [
        {
            "logicalId": "Drifted",
            "path": V,
            "explained": True,
            "driftPath": "/Value",
            "reason": "drifted",
        }
    ]
    assert heal_env.ssm.get_parameter(Name=name)["Parameter"]["Value"] == "initial"


def test_phantoms_are_switched_over_http_and_keep_botocore_shapes(heal_env: Heal) -> None:
    from cfnops.sandbox.shapecheck import assert_matches_output_shape

    stack, _ = _two_parameters(heal_env)
    url = f"{heal_env.sandbox.endpoint_url}/_cfnops/phantoms"
    bad = requests.post(url, json={"add": [{"kind": "nonsense"}]}, timeout=10)
    assert bad.status_code == 400 and "phantom kind must be one of" in bad.text
    body = {"add": [{"kind": k, "stack": stack, "logical_id": "Quiet"} for k, _ in (
        ("in_sync_change", 0), ("sync_with_actual", 0))] + [
        {"kind": k, "stack": stack} for k in ("replacement", "ignored_attribute",
                                             "known_after_apply", "undrifted_path")]}  # fmt: skip
    answer = requests.post(url, json=body, timeout=10).json()
    assert len(answer["phantoms"]) == 6
    cfn = heal_env.cfn
    cfn.create_change_set(
        StackName=stack, ChangeSetName="p", UsePreviousTemplate=True, DeploymentMode="REVERT_DRIFT"
    )
    time.sleep(0.05)
    described = cfn.describe_change_set(StackName=stack, ChangeSetName="p")
    assert_matches_output_shape(cfn, "DescribeChangeSet", described)
    changes = [c["ResourceChange"] for c in described["Changes"]]
    assert [(c["LogicalResourceId"], c["Action"]) for c in changes] == [
        ("Drifted", "Modify"),
        ("Quiet", "Modify"),
        ("Quiet", "SyncWithActual"),
    ]
    drifted = changes[0]
    assert drifted["Replacement"] == "True" and drifted["PolicyAction"] == "ReplaceAndDelete"
    assert drifted["ResourceDriftIgnoredAttributes"] == [
        {"Path": V, "Reason": "WRITE_ONLY_PROPERTY"}
    ]
    assert drifted["Details"][0]["Target"]["AfterValue"] == "{{changeSet:KNOWN_AFTER_APPLY}}"
    assert drifted["Details"][1]["Target"]["Path"] == "/Properties/Description"
    assert "Drift" not in drifted["Details"][1]["Target"]
    assert changes[1]["ResourceDriftStatus"] == "IN_SYNC"
    requests.post(url, json={"clear": True}, timeout=10)
    plain = cfn.describe_change_set(StackName=stack, ChangeSetName="p")
    assert [c["ResourceChange"]["LogicalResourceId"] for c in plain["Changes"]] == ["Drifted"]
