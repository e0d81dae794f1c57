"""Fleet heals: selection by tag/name, bounded concurrency, 20% injected throttling."""

from __future__ import annotations

import uuid

import pytest
from tests.heal._support import Heal

from cfnops.aws import AwsClients
from cfnops.demo.heal_sample import INITIAL_VALUE, deploy_sample, drift_sample
from cfnops.heal._fleet import FleetTarget, heal_fleet, select_stacks
from cfnops.runtime import Runtime
from cfnops.sandbox.extensions import faults

pytestmark = pytest.mark.slow


def test_fifty_stacks_with_twenty_percent_throttling_all_heal(heal_env: Heal) -> None:
    fleet = uuid.uuid4().hex[:6]
    names = [f"fleet-{fleet}-{i:02d}" for i in range(50)]
    for name in names:
        deploy_sample(heal_env.cfn, name, f"/{name}/p", tags={"fleet": fleet})
        drift_sample(heal_env.ssm, f"/{name}/p")
    deploy_sample(heal_env.cfn, f"other-{fleet}", f"/other-{fleet}/p", tags={"fleet": fleet})
    targets = select_stacks(
        heal_env.engine.runtime, [None], tags={"fleet": fleet}, names=["fleet-*"]
    )
    assert sorted(t.stack for t in targets) == names
    # botocore's standard retry mode: adaptive mode's client-side rate limiter would
    # (rightly) slow the whole fleet down for minutes under constant throttling.
    aws = heal_env.sandbox.clients.settings.replace(retry_mode="standard", max_attempts=4)
    clients = AwsClients(aws, session=heal_env.sandbox.clients.session)
    heal_env.engine.use(
        Runtime.from_settings(
            heal_env.settings,
            aws=clients,
            database=heal_env.engine.runtime.database,
            notify_hook=heal_env.notes.append,
        )
    )
    faults.throttle("cloudformation", "*", rate=0.2, seed=11)
    seen: list[int] = []

    def watch(rows: tuple[object, ...]) -> None:
        seen.append(sum(1 for r in rows if getattr(r, "status", "") == "RUNNING"))

    summary = heal_fleet(
        heal_env.engine,
        heal_env.settings,
        targets,
        concurrency=8,
        on_update=watch,
        poll_seconds=0.2,
    )
    injected = faults.injected("cloudformation")
    faults.clear()
    assert injected > 50, "throttling was not injected"
    assert [r.status for r in summary.rows] == ["HEALED"] * 50, [
        (r.target.stack, r.status, r.detail) for r in summary.rows if r.status != "HEALED"
    ]
    assert summary.counts["healed"] == 50 and summary.exit_code == 0
    assert summary.coverage.to_json() == {
        "checked": 50,
        "notChecked": 0,
        "unsupported": 0,
        "total": 50,
        "percent": 100.0,
        "stacksNotCheckable": 0,
    }
    assert max(seen) <= 8
    for name in names:
        value = heal_env.ssm.get_parameter(Name=f"/{name}/p")["Parameter"]["Value"]
        assert value == INITIAL_VALUE
        (cs,) = heal_env.cfn.list_change_sets(StackName=name)["Summaries"]
        assert cs["ExecutionStatus"] == "EXECUTE_COMPLETE"


def test_second_run_for_a_stack_is_refused(heal_env: Heal) -> None:
    name = f"twice-{uuid.uuid4().hex[:6]}"
    deploy_sample(heal_env.cfn, name, f"/{name}/p")
    drift_sample(heal_env.ssm, f"/{name}/p")
    heal_env.sandbox.state.set_delays(drift_detection=3)
    summary = heal_fleet(
        heal_env.engine, heal_env.settings, [FleetTarget(name), FleetTarget(name)], concurrency=2
    )
    first, second = summary.rows
    assert first.status == "HEALED"
    assert second.status == "FAILED"
    assert f"stack {name} is already being healed by run {first.run_id}" in second.detail


def test_a_stack_in_another_region(heal_env: Heal) -> None:
    name = f"eu-{uuid.uuid4().hex[:6]}"
    clients = heal_env.sandbox.clients
    eu = heal_env.engine.runtime.aws.in_region("eu-west-1")
    assert eu is not clients and eu.region == "eu-west-1"
    deploy_sample(eu.client("cloudformation"), name, f"/{name}/p")
    drift_sample(eu.client("ssm"), f"/{name}/p")
    summary = heal_fleet(heal_env.engine, heal_env.settings, [FleetTarget(name, "eu-west-1")])
    (row,) = summary.rows
    assert row.status == "HEALED", row.detail
    value = eu.client("ssm").get_parameter(Name=f"/{name}/p")["Parameter"]["Value"]
    assert value == INITIAL_VALUE
    stack_id = eu.client("cloudformation").describe_stacks(StackName=name)["Stacks"][0]["StackId"]
    assert ":eu-west-1:" in stack_id
