"""The Lambda handler under the SDK's own runner, and the SAM template."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aws_durable_execution_sdk_python_testing.runner import DurableFunctionTestRunner
from tests.heal._support import Heal, unique

from cfnops.demo.heal_sample import INITIAL_VALUE, deploy_sample, drift_sample
from cfnops.heal._names import change_set_name
from cfnops.lambda_handlers.heal import handler_for
from cfnops.runtime import Runtime

TEMPLATE = Path(__file__).resolve().parents[2] / "deploy" / "heal-function.yaml"


def _run(event: dict[str, Any], runtime: Runtime) -> Any:
    # The Lambda handler's body, on the test's runtime (the sandbox's clients and a
    # notification hook) instead of one built from the function's environment.
    with DurableFunctionTestRunner(handler=handler_for(lambda: runtime)) as runner:
        return runner.run(input=json.dumps(event), execution_timeout=120)


def test_reference_event_heals_under_the_sdk_runner(heal_env: Heal) -> None:
    stack = unique("lambda")
    deploy_sample(heal_env.cfn, stack, f"/{stack}/p")
    drift_sample(heal_env.ssm, f"/{stack}/p")
    result = _run({"StackName": stack, "CreateChangeSetOnly": False}, heal_env.engine.runtime)
    assert result.status.name == "SUCCEEDED", result.error
    out = json.loads(result.result)
    assert out["outcome"] == "HEALED"
    # On Lambda the run identity is the durable execution ARN; names derive from it.
    assert out["runId"] and out["runId"] != "local"
    described = heal_env.cfn.describe_change_set(StackName=stack, ChangeSetName=out["changeSetId"])
    assert described["ChangeSetName"] == change_set_name(stack, out["runId"])
    names = [op.name for op in result.operations]
    assert names == [
        "detect-drift",
        "wait-drift-detection",
        "create-change-set",
        "wait-change-set",
        "execute-change-set",
        "wait-execution",
        "recheck-drift",
        "wait-recheck-drift",
        "notify-healed",
    ]
    value = heal_env.ssm.get_parameter(Name=f"/{stack}/p")["Parameter"]["Value"]
    assert value == INITIAL_VALUE
    assert heal_env.outcomes() == ["HEALED"]


def test_in_sync_and_bad_input_under_the_sdk_runner(heal_env: Heal) -> None:
    stack = unique("lambda")
    deploy_sample(heal_env.cfn, stack, f"/{stack}/p")
    result = _run({"StackName": stack, "CreateChangeSetOnly": False}, heal_env.engine.runtime)
    assert json.loads(result.result)["outcome"] == "IN_SYNC"
    bad = _run({"StackName": stack, "CreateChangeSetOnly": "yes"}, heal_env.engine.runtime)
    assert bad.status.name == "FAILED"
    assert "invalid heal input: CreateChangeSetOnly" in str(bad.error)


def test_sam_template_passes_cfn_lint() -> None:
    from cfnlint.api import lint_all

    matches = [m for m in lint_all(TEMPLATE.read_text()) if m.rule.id[0] in "EW"]
    assert [str(m) for m in matches] == []


@pytest.mark.slow
def test_translated_template_has_the_schedule_alias_and_least_privilege(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from cfnlint.api import lint_all
    from cfnlint.decode import decode_str
    from samtranslator.translator.transform import transform

    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    template, errors = decode_str(TEMPLATE.read_text())
    assert not errors
    plain = json.loads(json.dumps(template))
    plain["Globals"]["Function"]["CodeUri"] = "s3://bucket/cfnops.zip"

    class _NoManagedPolicies:
        def load(self) -> dict[str, str]:
            return {}

    out = transform(plain, {"TargetStackName": "web"}, _NoManagedPolicies())
    assert [str(m) for m in lint_all(json.dumps(out)) if m.rule.id[0] in "EW"] == []
    types = {name: r["Type"] for name, r in out["Resources"].items()}
    (schedule,) = [out["Resources"][n] for n, t in types.items() if t == "AWS::Scheduler::Schedule"]
    target = schedule["Properties"]["Target"]
    assert types[target["Arn"]["Ref"]] == "AWS::Lambda::Alias"
    assert "CreateChangeSetOnly" in target["Input"]["Fn::Sub"]
    (function,) = [out["Resources"][n] for n, t in types.items() if t == "AWS::Lambda::Function"]
    assert function["Properties"]["DurableConfig"]["ExecutionTimeout"] > 72 * 3600
    assert function["Properties"]["Handler"] == "cfnops.lambda_handlers.heal.handler"
    (role,) = [
        out["Resources"][n]
        for n, t in types.items()
        if t == "AWS::IAM::Role" and "lambda.amazonaws.com" in json.dumps(out["Resources"][n])
    ]
    actions = sorted(
        {
            a
            for policy in role["Properties"]["Policies"]
            for statement in policy["PolicyDocument"]["Statement"]
            for a in (
                [statement["Action"]]
                if isinstance(statement["Action"], str)
                else statement["Action"]
            )
        }
    )
    # Exactly the APIs the workflow calls (plus the durable-execution checkpoint API).
    assert actions == [
        "cloudformation:CreateChangeSet",
        "cloudformation:DeleteChangeSet",
        "cloudformation:DescribeChangeSet",
        "cloudformation:DescribeStackDriftDetectionStatus",
        "cloudformation:DescribeStackResourceDrifts",
        "cloudformation:DescribeStacks",
        "cloudformation:DetectStackDrift",
        "cloudformation:ExecuteChangeSet",
        "cloudformation:ListStackResources",
        "lambda:CheckpointDurableExecution",
        "lambda:GetDurableExecutionState",
        "sns:Publish",
    ]
