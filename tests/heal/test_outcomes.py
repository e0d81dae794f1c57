"""Every way a heal run can end, on the sandbox (delays 0 unless a test needs time)."""

from __future__ import annotations

import json
import time

import pytest
from tests.heal._support import Heal, unique

from cfnops.demo.heal_sample import DRIFTED_VALUE, INITIAL_VALUE, deploy_sample, drift_sample
from cfnops.durable import AuditLog, RunFailed, RunStore
from cfnops.heal import held_changes, polled_drift
from cfnops.heal._runs import answer_approval, gate_decision, held_info, run_outcome
from cfnops.heal.errors import NotHeld
from cfnops.sandbox.extensions import cfn_outcomes

PROTECT_SSM = {"protected_types": ["AWS::SSM::Parameter"]}


def _sample(env: Heal, drift: bool = True) -> tuple[str, str]:
    stack = unique()
    param = f"/{stack}/sample"
    deploy_sample(env.cfn, stack, param)
    if drift:
        drift_sample(env.ssm, param)
    return stack, param


def _value(env: Heal, param: str) -> str:
    return str(env.ssm.get_parameter(Name=param)["Parameter"]["Value"])


def _wait_held(env: Heal, run_id: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    with RunStore(env.engine.runtime.database) as store:
        while held_info(store.get(run_id), store.steps(run_id)) is None:
            assert time.monotonic() < deadline, "the run never became held"
            time.sleep(0.1)


def _fails(env: Heal, stack: str, match: str, **heal: object) -> None:
    run_id = env.start(stack, **heal)
    with pytest.raises(RunFailed, match=match):
        env.engine.result(run_id, timeout=60)


def test_held_by_the_gate_then_approved(heal_env: Heal) -> None:
    stack, param = _sample(heal_env)
    run_id = heal_env.start(stack, **PROTECT_SSM)
    _wait_held(heal_env, run_id)
    with RunStore(heal_env.engine.runtime.database) as store:
        rec, steps = store.get(run_id), store.steps(run_id)
        assert run_outcome(rec, steps) == "HELD"
        gate = gate_decision(steps)
    assert gate is not None and gate["decision"] == "HOLD"
    # The held-change view every front shows: the parameter's value goes back.
    [change] = held_changes(steps)
    assert change["logicalId"] == "SampleParameter" and change["scope"] == ["Properties"]
    assert {"path": "/Properties/Value", "before": DRIFTED_VALUE, "after": INITIAL_VALUE} in (
        change["values"]
    )
    assert [(d["logicalId"], d["path"]) for d in polled_drift(steps)] == [
        ("SampleParameter", "/Value")
    ]
    assert gate["reasons"] == ["SampleParameter (AWS::SSM::Parameter) is a protected type"]
    assert _value(heal_env, param) == DRIFTED_VALUE
    held = [n for n in heal_env.notes if n.outcome == "HELD"]
    assert len(held) == 1 and "is a protected type" in held[0].message
    assert f"cfnops approve {run_id}" in held[0].message
    answer = answer_approval(
        heal_env.engine.runtime.database, run_id, "approve", reason="checked", by="alice"
    )
    out = heal_env.engine.result(run_id, timeout=60)
    assert out["outcome"] == "HEALED"
    assert out["approval"]["by"] == "alice" and out["approval"]["reason"] == "checked"
    assert out["approval"]["at"] == answer["at"]
    with AuditLog(heal_env.engine.runtime.database) as audit:  # every front gets this row
        [row] = audit.list(target=run_id)
    assert (row.actor, row.action, row.reason) == ("alice", "approve", "checked")
    assert row.detail == {"at": answer["at"]}
    assert _value(heal_env, param) == INITIAL_VALUE
    assert heal_env.outcomes() == ["HELD", "HEALED"]
    with pytest.raises(NotHeld):
        answer_approval(heal_env.engine.runtime.database, run_id, "approve")


def test_held_then_rejected_deletes_the_change_set(heal_env: Heal) -> None:
    stack, param = _sample(heal_env)
    run_id = heal_env.start(stack, **PROTECT_SSM)
    _wait_held(heal_env, run_id)
    answer_approval(heal_env.engine.runtime.database, run_id, "reject", reason="not now", by="bob")
    out = heal_env.engine.result(run_id, timeout=60)
    assert out["outcome"] == "REJECTED"
    assert out["approval"]["decision"] == "reject" and out["approval"]["by"] == "bob"
    assert _value(heal_env, param) == DRIFTED_VALUE
    assert heal_env.cfn.list_change_sets(StackName=stack)["Summaries"] == []
    assert heal_env.outcomes() == ["HELD", "REJECTED"]
    assert "rejected by bob: not now" in heal_env.notes[-1].message


def test_held_then_expired(heal_env: Heal) -> None:
    stack, param = _sample(heal_env)
    out = heal_env.run(stack, approval_expiry_hours=2 / 3600, **PROTECT_SSM)
    assert out["outcome"] == "EXPIRED"
    assert heal_env.cfn.list_change_sets(StackName=stack)["Summaries"] == []
    assert _value(heal_env, param) == DRIFTED_VALUE
    assert heal_env.outcomes() == ["HELD", "EXPIRED"]


@pytest.mark.parametrize("forced", ["DETECTION_FAILED", "UNKNOWN"])
def test_detection_failed_or_unknown_notifies_and_fails(heal_env: Heal, forced: str) -> None:
    stack, _ = _sample(heal_env)
    cfn_outcomes.force(stack, detection=forced, reason="resource read denied")
    _fails(heal_env, stack, f"drift detection for stack {stack} ended {forced}")
    (note,) = heal_env.notes
    assert note.outcome == "DETECTION_FAILED" and note.severity == "error"
    assert (
        "resource read denied" in note.message and note.stack_id and note.stack_id in note.message
    )


def test_change_set_failed_notifies_and_fails(heal_env: Heal) -> None:
    stack, _ = _sample(heal_env)
    cfn_outcomes.force(stack, change_set="FAILED", reason="Template error: boom")
    _fails(heal_env, stack, "FAILED: Template error: boom")
    assert heal_env.outcomes() == ["CHANGE_SET_FAILED"]
    assert heal_env.notes[0].change_set_id in heal_env.notes[0].message


def test_nothing_revertable_is_reported_not_crashed(heal_env: Heal) -> None:
    stack, _ = _sample(heal_env)
    cfn_outcomes.force(stack, change_set="NO_CHANGES")
    out = heal_env.run(stack)
    assert out["outcome"] == "NOT_REVERTABLE"
    (line,) = out["unrevertable"]
    assert line.startswith("SampleParameter (AWS::SSM::Parameter) /Value: expected ")
    assert "'initial-value'" in line and "'updated-value'" in line
    assert heal_env.outcomes() == ["NOT_REVERTABLE"]


def test_execution_failed_notifies_and_fails(heal_env: Heal) -> None:
    stack, _ = _sample(heal_env)
    cfn_outcomes.force(stack, execution="EXECUTE_FAILED", reason="Access denied to ssm")
    _fails(heal_env, stack, "ended EXECUTE_FAILED: Resource update failed: Access denied to ssm")
    assert heal_env.outcomes() == ["EXECUTE_FAILED"]


def test_obsolete_change_set_notifies_a_warning_with_the_url(heal_env: Heal) -> None:
    stack, _ = _sample(heal_env)
    cfn_outcomes.force(stack, execution="OBSOLETE")
    out = heal_env.run(stack)
    assert out["outcome"] == "OBSOLETE"
    (note,) = heal_env.notes
    assert note.severity == "warning" and "re-run healing if needed" in note.message
    assert out["consoleUrl"] in note.message


def test_wait_timeout_names_operation_attempts_and_last_state(heal_env: Heal) -> None:
    stack, _ = _sample(heal_env)
    heal_env.sandbox.state.set_delays(drift_detection=60)
    _fails(
        heal_env,
        stack,
        r"timed out polling DescribeStackDriftDetectionStatus for stack .* after 2 attempts; "
        r"last state: .*DETECTION_IN_PROGRESS",
        drift_max_attempts=2,
    )


def test_ignore_rule_keeps_the_drift_and_finishes_in_sync(heal_env: Heal) -> None:
    stack, param = _sample(heal_env)
    rule = {"resource_type": "AWS::SSM::Parameter", "property_path": "/Value", "stack": stack}
    out = heal_env.run(stack, ignore=[rule])
    assert out["outcome"] == "IN_SYNC" and out["ignoredOnly"] is True
    assert out["drifted"][0]["properties"][0]["ignored"] is True
    assert heal_env.cfn.list_change_sets(StackName=stack)["Summaries"] == []
    assert _value(heal_env, param) == DRIFTED_VALUE


def test_busy_stack_is_waited_for_then_healed(heal_env: Heal) -> None:
    stack, param = _sample(heal_env)
    cfn = heal_env.cfn
    body = cfn.get_template(StackName=stack)["TemplateBody"]
    template = dict(body) if not isinstance(body, str) else json.loads(body)
    template["Resources"]["Extra"] = {
        "Type": "AWS::SNS::Topic",
        "Properties": {"TopicName": f"{stack}-extra"},
    }
    cfn.create_change_set(StackName=stack, ChangeSetName="busy", TemplateBody=json.dumps(template))
    time.sleep(0.1)
    cfn.describe_change_set(StackName=stack, ChangeSetName="busy")
    heal_env.sandbox.state.set_delays(change_set_execute=2)
    cfn.execute_change_set(StackName=stack, ChangeSetName="busy")
    assert cfn.describe_stacks(StackName=stack)["Stacks"][0]["StackStatus"] == "UPDATE_IN_PROGRESS"
    run_id = heal_env.start(stack)
    heal_env.sandbox.state.set_delays(change_set_execute=0)
    out = heal_env.engine.result(run_id, timeout=60)
    assert out["outcome"] == "HEALED"
    with RunStore(heal_env.engine.runtime.database) as store:
        names = [s.name for s in store.steps(run_id)]
    assert "wait-stack-idle #1" in names
    assert _value(heal_env, param) == INITIAL_VALUE


def test_deleted_stack_status_forbids_detection(heal_env: Heal) -> None:
    stack, _ = _sample(heal_env, drift=False)
    stack_id = heal_env.cfn.describe_stacks(StackName=stack)["Stacks"][0]["StackId"]
    heal_env.cfn.delete_stack(StackName=stack)
    _fails(heal_env, stack_id.replace(":", ":", 1), "is DELETE_COMPLETE; drift detection is only")


def test_missing_stack_is_a_clear_error(heal_env: Heal) -> None:
    _fails(heal_env, unique("missing"), "does not exist")
