"""A worker fires a drift-scan schedule; kill -9 between scan and notify; exactly one message.

Everything is a separate process over real HTTP: the sandbox, two ``cfnops worker``
processes, and the Slack receiver (in this process). The webhook URL is read from SSM
(``notify.slack_webhook_ref``) at the start of the notify step; latency injected on
``ssm:GetParameter`` holds the run there, after the scan and the comparison were
checkpointed and before any message left, while the worker is killed.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import pytest
from tests._runtime import database_for
from tests.heal._proc import SandboxProcess, cfnops, env_for, wait_for
from tests.heal._webhook import WebhookReceiver

from cfnops.config import load_settings
from cfnops.demo.heal_sample import deploy_sample, drift_sample
from cfnops.durable import RunStore, StepRecord
from cfnops.heal import DRIFT_SCAN_WORKFLOW

pytestmark = pytest.mark.slow
HOOK = "/cfnops-test/drift-scan-hook"


def _runs(db: Path) -> list[Any]:
    if not db.exists():
        return []
    with RunStore(database_for(load_settings(database_url=f"sqlite:///{db}"))) as store:
        return store.list_runs(workflow=DRIFT_SCAN_WORKFLOW)


def _steps(db: Path, run_id: str) -> list[StepRecord]:
    with RunStore(database_for(load_settings(database_url=f"sqlite:///{db}"))) as store:
        return store.steps(run_id)


def test_worker_killed_between_scan_and_notify_sends_exactly_one_after_recovery(
    sandbox_proc: SandboxProcess, tmp_path: Path
) -> None:
    sp = sandbox_proc
    receiver = WebhookReceiver()
    sp.client("ssm").put_parameter(Name=HOOK, Value=receiver.url, Type="SecureString")
    stack = f"sched-{int(time.time() * 1000) % 100000}"
    deploy_sample(sp.client("cloudformation"), stack, f"/{stack}/p")
    drift_sample(sp.client("ssm"), f"/{stack}/p")
    db, reports = tmp_path / "db.sqlite", tmp_path / "reports"
    config = tmp_path / "cfnops.toml"
    config.write_text(
        f'[notify]\nslack_webhook_ref = "ssm:{HOOK}"\n'
        "[drift_scan.schedules.fleet]\n"
        f'schedule = "rate(1 minute)"\noutput_dir = "{reports}"\nnotify = ["slack"]\n'
    )
    env = env_for(sp, db, CFNOPS_WORKER__LEASE_SECONDS="2")
    rule = {"kind": "latency", "service": "ssm", "operation": "GetParameter", "seconds": 4}
    sp.control("faults", {"add": [rule]})
    first = cfnops(env, "--config", str(config), "worker")
    try:
        # the next whole minute fires; the run stops inside notify (reading the webhook)
        wait_for(
            lambda: any(s.name == "compare" for r in _runs(db) for s in _steps(db, r.run_id)),
            timeout=90,
            what="the scheduled run's compare step",
        )
        time.sleep(1.0)
        assert first.poll() is None
        first.send_signal(signal.SIGKILL)
        out, _ = first.communicate(timeout=10)
    finally:
        sp.control("faults", {"clear": True})
    assert "drift scan schedule fleet: rate(1 minute) (UTC), next " in out
    (run,) = _runs(db)
    assert run.run_id.startswith("drift-scan-fleet-") and run.run_id.endswith("00Z")
    before = [(s.index, s.name, s.ended) for s in _steps(db, run.run_id)]
    assert [name for _, name, _ in before] == ["scan", "compare"]
    assert receiver.bodies == []  # killed before any message left

    second = cfnops(env, "--config", str(config), "worker")
    try:
        wait_for(
            lambda: next(r for r in _runs(db) if r.run_id == run.run_id).status == "SUCCEEDED",
            timeout=90,
            what="the recovered run",
        )
        time.sleep(1.5)  # a second message would arrive now
    finally:
        second.send_signal(signal.SIGTERM)
        second.communicate(timeout=30)
        receiver.close()
    after = _steps(db, run.run_id)
    assert [(s.index, s.name, s.ended) for s in after[:2]] == before  # the scan kept, not redone
    assert [s.name for s in after].count("scan") == 1
    assert [s.name for s in after].count("notify") == 1
    assert len(receiver.bodies) == 1
    assert "APPEARED" in receiver.texts()[0] and stack in receiver.texts()[0]
    assert (reports / run.run_id / "drift-scan.md").is_file()


def test_two_workers_start_and_run_each_fire_once(
    sandbox_proc: SandboxProcess, tmp_path: Path
) -> None:
    sp = sandbox_proc
    receiver = WebhookReceiver()
    stack = f"twice-{int(time.time() * 1000) % 100000}"
    deploy_sample(sp.client("cloudformation"), stack, f"/{stack}/p")
    drift_sample(sp.client("ssm"), f"/{stack}/p")
    db = tmp_path / "db.sqlite"
    config = tmp_path / "cfnops.toml"
    config.write_text(
        f'[notify]\nslack_webhook_url = "{receiver.url}"\n'
        '[drift_scan.schedules.pair]\nschedule = "rate(1 minute)"\nnotify = ["slack"]\n'
    )
    env = env_for(sp, db)
    workers = [cfnops(env, "--config", str(config), "worker") for _ in range(2)]
    try:
        wait_for(
            lambda: any(r.status == "SUCCEEDED" for r in _runs(db)),
            timeout=90,
            what="the first fire's run",
        )
        time.sleep(2.0)  # a second run or message for the same fire would show by now
        done = [r for r in _runs(db) if r.status == "SUCCEEDED"]
        first = min(done, key=lambda r: r.run_id)
        steps = [s.name for s in _steps(db, first.run_id)]
    finally:
        outs, errs = [], []
        for w in workers:
            w.send_signal(signal.SIGTERM)
            out, err = w.communicate(timeout=30)
            outs.append(out)
            errs.append(err)
        receiver.close()
    banner = "drift scan schedule pair: rate(1 minute) (UTC)"
    assert all(banner in out for out in outs), (outs, errs)
    assert not any("drift scan schedules:" in err for err in errs), errs  # no failed start
    assert steps == ["scan", "compare", "notify"]  # executed by one worker, once
    appeared = [t for t in receiver.texts() if "APPEARED" in t]
    assert len(appeared) == 1 and stack in appeared[0]
