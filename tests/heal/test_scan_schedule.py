"""Scheduled drift scans on the engine against the sandbox: appear, unchanged, clear.

The scheduler is driven with explicit clock values (fire times are a function of the
expression), the scans and the Slack webhook go over real HTTP (sandbox, local receiver).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from tests._runtime import database_for
from tests.heal._webhook import WebhookReceiver

from cfnops.aws import AwsClients
from cfnops.config import Settings, load_settings
from cfnops.demo.heal_sample import INITIAL_VALUE, deploy_sample, drift_sample
from cfnops.durable import Engine, RunFailed, RunStore
from cfnops.heal import (
    DRIFT_SCAN_WORKFLOW,
    DriftScheduler,
    plan_drift_schedules,
    start_drift_scan,
)
from cfnops.heal._scan_schedule import describe
from cfnops.runtime import Runtime
from cfnops.sandbox import Sandbox

REGION = "ca-central-1"  # no other test deploys here: the fleet is this test's alone
T0 = datetime(2031, 3, 1, 0, 0, 30, tzinfo=UTC)


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    got = WebhookReceiver()
    yield got
    got.close()


def _settings(engine: Engine, sandbox: Sandbox, hook: str, name: str, out: Path) -> Settings:
    return load_settings(
        database_url=engine.settings.database_url,
        aws={"region": "us-east-1", "endpoint_url": sandbox.endpoint_url},
        heal={"drift_poll_seconds": 1},
        notify={"console": False, "slack_webhook_url": hook},
        drift_scan={
            "schedules": {
                name: {
                    "schedule": "rate(5 minutes)",
                    "regions": [REGION],
                    "output_dir": str(out),
                    "notify": ["slack"],
                }
            }
        },
    )


def _clients(sandbox: Sandbox) -> Any:
    base = sandbox.clients
    return AwsClients(base.settings.replace(region=REGION), session=base.session)


def test_appear_notifies_unchanged_does_not_clear_notifies(
    engine: Engine, cfnops_sandbox: Sandbox, receiver: WebhookReceiver, tmp_path: Path
) -> None:
    name = f"fleet-{uuid.uuid4().hex[:6]}"
    settings = _settings(engine, cfnops_sandbox, receiver.url, name, tmp_path)
    engine.use(Runtime.from_settings(settings, aws=cfnops_sandbox.clients))
    regional = _clients(cfnops_sandbox)
    cfn, ssm = regional.client("cloudformation"), regional.client("ssm")
    web, api = f"{name}-web", f"{name}-api"
    deploy_sample(cfn, web, f"/{web}/p")
    deploy_sample(cfn, api, f"/{api}/p")
    drift_sample(ssm, f"/{web}/p")

    (plan,) = plan_drift_schedules(settings)
    scheduler = DriftScheduler(engine, [plan], queue=None)  # executed in this process
    assert scheduler.prime(T0) == []  # never ran: nothing to catch up
    assert scheduler.fire_due(T0 + timedelta(minutes=4)) == []  # not due yet

    # 1. first scan: the drifted stack is reported as appeared
    (first,) = scheduler.fire_due(T0 + timedelta(minutes=5))
    assert first == f"drift-scan-{name}-20310301T000500Z"
    out = engine.result(first, timeout=60)
    assert [c["stack"] for c in out["appeared"]] == [f"123456789012/{REGION}/{web}"]
    assert out["appeared"][0]["resources"] == ["SampleParameter"]
    assert out["firstScan"] is True and out["notified"] is True
    assert out["deliveries"] == [{"channel": "slack", "ok": True, "attempts": 1, "error": None}]
    assert len(receiver.bodies) == 1
    assert "APPEARED" in receiver.texts()[0] and web in receiver.texts()[0]
    assert api not in receiver.texts()[0]
    folder = tmp_path / first
    assert json.loads((folder / "drift-scan.json").read_text())["counts"] == {
        "DRIFTED": 1,
        "IN_SYNC": 1,
    }
    assert (folder / "drift-scan.md").read_text().startswith("# Drift scan")
    assert (folder / "drift-scan.html").read_text().startswith("<!doctype html>")

    # 2. the same drift again: no notification
    (second,) = scheduler.fire_due(T0 + timedelta(minutes=10))
    out = engine.result(second, timeout=60)
    assert out["previousRun"] == first
    assert (out["appeared"], out["cleared"], out["notified"]) == ([], [], False)
    assert len(receiver.bodies) == 1
    assert "notify" not in [s.name for s in _steps(settings, second)]

    # 3. drift reverted: one notification listing the stack as cleared
    ssm.put_parameter(Name=f"/{web}/p", Value=INITIAL_VALUE, Overwrite=True)
    (third,) = scheduler.fire_due(T0 + timedelta(minutes=15, seconds=20))
    out = engine.result(third, timeout=60)
    assert out["previousRun"] == second
    assert [c["stack"] for c in out["cleared"]] == [f"123456789012/{REGION}/{web}"]
    assert out["appeared"] == [] and out["notified"] is True
    assert len(receiver.bodies) == 2 and "CLEARED" in receiver.texts()[1]

    # The same fire, looked at again or by a second worker, starts nothing new.
    assert scheduler.fire_due(T0 + timedelta(minutes=15, seconds=50)) == []
    other = DriftScheduler(engine, [plan], queue=None)
    other.prime(T0 + timedelta(minutes=14))  # it looked last just before 00:15
    assert other.fire_due(T0 + timedelta(minutes=15, seconds=40)) == [third]
    engine.result(third, timeout=60)
    assert len(receiver.bodies) == 2
    assert _runs_of(settings, name) == sorted([first, second, third])
    (row,) = describe([plan], database_for(settings), T0 + timedelta(minutes=16))
    assert row["lastRun"] == third and row["lastStatus"] == "SUCCEEDED"
    assert (row["appeared"], row["cleared"], row["drifted"]) == (0, 1, 0)
    assert row["nextFire"] == "2031-03-01T00:20:00+00:00"


def test_a_worker_that_was_down_catches_up_the_latest_missed_fire_only(
    engine: Engine, cfnops_sandbox: Sandbox, receiver: WebhookReceiver, tmp_path: Path
) -> None:
    name = f"catch-{uuid.uuid4().hex[:6]}"
    settings = _settings(engine, cfnops_sandbox, receiver.url, name, tmp_path)
    engine.use(Runtime.from_settings(settings, aws=cfnops_sandbox.clients))
    (plan,) = plan_drift_schedules(settings)
    first = DriftScheduler(engine, [plan], queue=None)
    first.prime(T0)
    (ran,) = first.fire_due(T0 + timedelta(minutes=5))
    engine.result(ran, timeout=60)
    # down from 00:06 to 00:31: fires 00:10 … 00:30 missed; only 00:30 is caught up
    later = DriftScheduler(engine, [plan], queue=None)
    (caught,) = later.prime(T0 + timedelta(minutes=31))
    assert caught == f"drift-scan-{name}-20310301T003000Z"
    engine.result(caught, timeout=60)
    assert later.fire_due(T0 + timedelta(minutes=32)) == []
    assert _runs_of(settings, name) == [ran, caught]


def test_a_manual_run_joins_the_comparison_chain(
    engine: Engine, cfnops_sandbox: Sandbox, receiver: WebhookReceiver, tmp_path: Path
) -> None:
    name = f"manual-{uuid.uuid4().hex[:6]}"
    settings = _settings(engine, cfnops_sandbox, receiver.url, name, tmp_path)
    engine.use(Runtime.from_settings(settings, aws=cfnops_sandbox.clients))
    (plan,) = plan_drift_schedules(settings)
    one = start_drift_scan(engine, plan, T0)
    assert one.endswith("-20310301T000030Z-now")
    engine.result(one, timeout=60)
    two = start_drift_scan(engine, plan, T0 + timedelta(seconds=1))
    out = engine.result(two, timeout=60)
    assert out["previousRun"] == one and out["firstScan"] is False


def test_a_failing_scan_fails_the_run_and_is_notified_once_until_it_works(
    engine: Engine, cfnops_sandbox: Sandbox, receiver: WebhookReceiver, tmp_path: Path
) -> None:
    name = f"broken-{uuid.uuid4().hex[:6]}"
    base = _settings(engine, cfnops_sandbox, receiver.url, name, tmp_path)
    entry = base.drift_scan.schedules[name].replace(accounts=("999999999999",), role_name="Nope")
    settings = base.replace(drift_scan=base.drift_scan.replace(schedules={name: entry}))
    engine.use(Runtime.from_settings(settings, aws=cfnops_sandbox.clients))
    (plan,) = plan_drift_schedules(settings)
    scheduler = DriftScheduler(engine, [plan], queue=None)
    scheduler.prime(T0)
    failed = []
    for minutes in (5, 10):
        (run_id,) = scheduler.fire_due(T0 + timedelta(minutes=minutes))
        with pytest.raises(RunFailed, match="role Nope cannot be assumed"):
            engine.result(run_id, timeout=60)
        failed.append(run_id)
    assert [s.name for s in _steps(settings, failed[0])] == ["scan", "notify-failure"]
    assert len(receiver.bodies) == 1  # the second failure in a row is not told again
    text = receiver.texts()[0]
    assert "SCAN_FAILED" in text and "account 999999999999: role Nope cannot be assumed" in text
    assert not (tmp_path / failed[0]).exists()  # nothing written


def test_accepted_drift_is_quiet_until_it_expires_then_appears(
    engine: Engine, cfnops_sandbox: Sandbox, receiver: WebhookReceiver, tmp_path: Path
) -> None:
    import time

    from cfnops.heal._accepted import AcceptedDrift, AcceptedStore

    name = f"accept-{uuid.uuid4().hex[:6]}"
    settings = _settings(engine, cfnops_sandbox, receiver.url, name, tmp_path)
    engine.use(Runtime.from_settings(settings, aws=cfnops_sandbox.clients))
    regional = _clients(cfnops_sandbox)
    stack = f"{name}-web"
    deploy_sample(regional.client("cloudformation"), stack, f"/{stack}/p")
    drift_sample(regional.client("ssm"), f"/{stack}/p")
    now = datetime.now(UTC)
    until = now + timedelta(seconds=3)
    entry = AcceptedDrift(REGION, stack, "SampleParameter", "", until, "vendor fix", "ops", now)
    AcceptedStore(database_for(settings)).accept(entry)
    (plan,) = plan_drift_schedules(settings)
    scheduler = DriftScheduler(engine, [plan], queue=None)
    scheduler.prime(T0)
    (first,) = scheduler.fire_due(T0 + timedelta(minutes=5))
    out = engine.result(first, timeout=60)
    key = f"123456789012/{REGION}/{stack}"
    assert out["state"][key] == {"status": "IN_SYNC", "drifted": []}  # accepted: not drift
    assert not any(stack in t for t in receiver.texts())
    time.sleep(max(0.0, (until - datetime.now(UTC)).total_seconds()) + 0.2)
    (second,) = scheduler.fire_due(T0 + timedelta(minutes=10))
    out = engine.result(second, timeout=60)
    ssm = regional.client("ssm")
    ssm.put_parameter(Name=f"/{stack}/p", Value=INITIAL_VALUE, Overwrite=True)  # the fleet clean
    assert [c["stack"] for c in out["appeared"]] == [key]  # expired: drift again, told once
    assert sum(stack in t for t in receiver.texts()) == 1


def _steps(settings: Settings, run_id: str) -> list[Any]:
    with RunStore(database_for(settings)) as store:
        return store.steps(run_id)


def _runs_of(settings: Settings, name: str) -> list[str]:
    with RunStore(database_for(settings)) as store:
        runs = store.list_runs(workflow=DRIFT_SCAN_WORKFLOW, limit=1000)
    return sorted(r.run_id for r in runs if (r.input or {}).get("schedule") == name)
