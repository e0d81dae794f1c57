"""A heal says HEALED only when drift detection afterwards finds the healed resources in sync.

Through the CLI against a sandbox process, with the SSM parameter ``Tags`` map
(``AWS::SSM::Parameter`` takes a JSON object; the list form is refused as
CloudFormation refuses it).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from tests.heal._proc import SandboxProcess, cfnops, env_for

from cfnops.demo.heal_sample import wait_stack

pytestmark = pytest.mark.slow


def _template(name: str, tags: Any) -> str:
    props = {"Name": f"/{name}/p", "Type": "String", "Value": "v1", "Tags": tags}
    return json.dumps(
        {"Resources": {"Param": {"Type": "AWS::SSM::Parameter", "Properties": props}}}
    )


def _create(sp: SandboxProcess, prefix: str, tags: Any) -> tuple[str, str]:
    name = f"{prefix}-{int(time.time() * 1000) % 1000000}"
    cfn = sp.client("cloudformation")
    cfn.create_stack(StackName=name, TemplateBody=_template(name, tags))
    return name, wait_stack(cfn, name)


def _run(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    proc = cfnops(env, *args)
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, err


def _drift_status(env: dict[str, str], name: str) -> str:
    code, out, err = _run(env, "-o", "json", "drift", name)
    assert code in (0, 1), err
    return str(json.loads(out)["stacks"][0]["status"])


def _heal(env: dict[str, str], name: str) -> tuple[int, dict[str, Any], str]:
    code, out, err = _run(env, "-o", "json", "heal", name)
    return code, json.loads(out), err


def test_map_form_tags_deploy_and_list_form_is_refused(sandbox_proc: SandboxProcess) -> None:
    _, status = _create(sandbox_proc, "tags-map", {"team": "web", "env": "prod"})
    assert status == "CREATE_COMPLETE"
    name, status = _create(sandbox_proc, "tags-list", [{"Key": "team", "Value": "web"}])
    assert status == "ROLLBACK_COMPLETE"
    events = sandbox_proc.client("cloudformation").describe_stack_events(StackName=name)
    reasons = [e.get("ResourceStatusReason", "") for e in events["StackEvents"]]
    assert (
        "Properties validation failed for resource Param with message: "
        "#/Tags: expected type: JSONObject, found: JSONArray" in reasons
    )
    assert "The following resource(s) failed to create: [Param]." in " ".join(reasons)


def test_drifted_map_tags_heal_to_in_sync(sandbox_proc: SandboxProcess, tmp_path: Path) -> None:
    name, status = _create(sandbox_proc, "tags-heal", {"team": "web", "env": "prod"})
    assert status == "CREATE_COMPLETE"
    ssm = sandbox_proc.client("ssm")
    ssm.add_tags_to_resource(
        ResourceType="Parameter",
        ResourceId=f"/{name}/p",
        Tags=[{"Key": "team", "Value": "ops"}, {"Key": "extra", "Value": "x"}],
    )
    env = env_for(sandbox_proc, tmp_path / "db.sqlite")
    code, out, err = _run(env, "-o", "json", "drift", name)
    paths = [p["path"] for p in json.loads(out)["stacks"][0]["resources"][0]["properties"]]
    assert sorted(paths) == ["/Tags/extra", "/Tags/team"], out
    code, data, err = _heal(env, name)
    assert code == 0, err
    assert data["runs"][0]["status"] == "HEALED"
    assert _drift_status(env, name) == "IN_SYNC"
    tags = ssm.list_tags_for_resource(ResourceType="Parameter", ResourceId=f"/{name}/p")
    assert {t["Key"]: t["Value"] for t in tags["TagList"]} == {"team": "web", "env": "prod"}


def test_a_heal_that_leaves_drift_ends_not_healed_naming_it(
    sandbox_proc: SandboxProcess, tmp_path: Path
) -> None:
    # The sandbox's revert does not re-create a topic's subscriptions (as
    # CloudFormation, which does not update AWS::SNS::Topic Subscription in place).
    name = f"sub-{int(time.time() * 1000) % 1000000}"
    props = {
        "TopicName": name,
        "Subscription": [{"Endpoint": "ops@example.com", "Protocol": "email"}],
    }
    cfn = sandbox_proc.client("cloudformation")
    body = json.dumps({"Resources": {"Topic": {"Type": "AWS::SNS::Topic", "Properties": props}}})
    cfn.create_stack(StackName=name, TemplateBody=body)
    assert wait_stack(cfn, name) == "CREATE_COMPLETE"
    sns = sandbox_proc.client("sns")
    for sub in sns.list_subscriptions()["Subscriptions"]:
        if sub["TopicArn"].endswith(f":{name}"):
            sns.unsubscribe(SubscriptionArn=sub["SubscriptionArn"])
    env = env_for(sandbox_proc, tmp_path / "db.sqlite")
    code, data, err = _heal(env, name)
    assert code == 1, err
    row = data["runs"][0]
    assert row["status"] == "NOT_HEALED"
    assert "Topic /Subscription/0: not reverted" in row["detail"]
    assert _drift_status(env, name) == "DRIFTED"
    code, out, err = _run(env, "heal", name)
    assert code == 1, err
    assert "NOT_HEALED" in out and "/Subscription/0" in out
    code, out, err = _run(env, "-o", "json", "runs", "list")
    runs = [r for r in json.loads(out) if r["input"]["StackName"] == name]
    assert {r["outcome"] for r in runs} == {"NOT_HEALED"}
    still = runs[0]["output"]["stillDrifted"]
    assert [(s["logicalId"], s["path"]) for s in still] == [("Topic", "/Subscription/0")]
