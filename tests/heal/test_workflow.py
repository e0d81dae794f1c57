"""The heal workflow end to end on the sandbox (delays 0), one engine for the session."""

from __future__ import annotations

import json

import pytest
from tests.heal._support import Heal, unique

from cfnops.demo.heal_sample import (
    DRIFTED_VALUE,
    INITIAL_VALUE,
    deploy_sample,
    drift_sample,
    wait_stack,
)
from cfnops.durable import RunFailed
from cfnops.heal._messages import SUBJECT


def _sample(env: Heal, drift: bool = True) -> tuple[str, str]:
    stack = unique()
    param = f"/{stack}/sample"
    deploy_sample(env.cfn, stack, param)
    if drift:
        drift_sample(env.ssm, param)
    return stack, param


def _value(env: Heal, param: str) -> str:
    return str(env.ssm.get_parameter(Name=param)["Parameter"]["Value"])


def test_in_sync_stack_finishes_without_a_change_set(heal_env: Heal) -> None:
    stack, _ = _sample(heal_env, drift=False)
    out = heal_env.run(stack)
    assert out["outcome"] == "IN_SYNC"
    assert out["changeSetId"] is None
    assert out["coverage"]["checked"] == 1 and out["coverage"]["percent"] == 100.0
    assert heal_env.cfn.list_change_sets(StackName=stack)["Summaries"] == []
    assert heal_env.notes == []


def test_drifted_parameter_is_healed(heal_env: Heal) -> None:
    stack, param = _sample(heal_env)
    assert _value(heal_env, param) == DRIFTED_VALUE
    out = heal_env.run(stack)
    assert out["outcome"] == "HEALED"
    assert _value(heal_env, param) == INITIAL_VALUE
    summaries = heal_env.cfn.list_change_sets(StackName=stack)["Summaries"]
    assert len(summaries) == 1
    assert summaries[0]["ChangeSetName"].startswith(f"healing-changeset-{stack}-")
    described = heal_env.cfn.describe_change_set(StackName=stack, ChangeSetName=out["changeSetId"])
    assert described["Description"] == "Change set for configuration healing"
    assert described["ExecutionStatus"] == "EXECUTE_COMPLETE"
    assert [d["logicalId"] for d in out["drifted"]] == ["SampleParameter"]
    (note,) = heal_env.notes
    assert note.subject == SUBJECT
    assert note.message.startswith("Stack drift has been healed")
    assert out["stackId"] in note.message and out["changeSetId"] in note.message


def test_an_in_sync_stack_states_what_it_did_not_check(heal_env: Heal) -> None:
    stack = unique()
    template = {
        "Resources": {
            "Queue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": stack}},
            "Log": {"Type": "AWS::Logs::LogGroup", "Properties": {"LogGroupName": f"/{stack}"}},
        }
    }
    heal_env.cfn.create_stack(StackName=stack, TemplateBody=json.dumps(template))
    wait_stack(heal_env.cfn, stack)
    out = heal_env.run(stack)
    assert out["outcome"] == "IN_SYNC"
    assert out["coverage"] == {
        "checked": 1,
        "notChecked": 0,
        "unsupported": 1,
        "total": 2,
        "percent": 50.0,
        "stacksNotCheckable": 0,
    }


def test_review_mode_creates_the_change_set_only(heal_env: Heal) -> None:
    stack, param = _sample(heal_env)
    out = heal_env.run(stack, only=True)
    assert out["outcome"] == "CHANGE_SET_CREATED"
    assert _value(heal_env, param) == DRIFTED_VALUE
    url = out["consoleUrl"]
    assert url.startswith(
        "https://us-east-1.console.aws.amazon.com/cloudformation/home?region=us-east-1"
        "#/stacks/changesets/changes?stackId=arn%3Aaws%3Acloudformation%3Aus-east-1%3A"
    )
    assert "&changeSetId=arn%3Aaws%3Acloudformation" in url
    (note,) = heal_env.notes
    assert "please review and execute it manually if needed" in note.message
    assert url in note.message


def test_bad_input_fails_with_a_clear_error(heal_env: Heal) -> None:
    run_id = unique("bad")
    heal_env.engine.start("cfnops.heal", {"StackName": 42}, run_id=run_id)
    with pytest.raises(RunFailed, match="invalid heal input: StackName"):
        heal_env.engine.result(run_id, timeout=30)
