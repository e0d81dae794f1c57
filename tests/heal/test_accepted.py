"""Accepted drift: stored with an expiry, reported as accepted, never healed, drift again after."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from tests._runtime import database_for
from tests.heal._support import Heal, unique

from cfnops.cli.main import run
from cfnops.config import DEFAULT_PROTECTED_TYPES
from cfnops.demo.heal_sample import DRIFTED_VALUE, deploy_sample, drift_sample
from cfnops.durable import AuditLog
from cfnops.heal import (
    ChangeView,
    GatePolicy,
    PropertyDrift,
    ResourceDrift,
    StackDriftReport,
    _steps,
)
from cfnops.heal import decide as gate
from cfnops.heal._accepted import AcceptedDrift, AcceptedStore, mark
from cfnops.sandbox import Sandbox

NOW = dt.datetime(2026, 11, 24, 12, 0, tzinfo=dt.UTC)


def _entry(path: str = "/Value", days: int = 7, stack: str = "web") -> AcceptedDrift:
    until = NOW + dt.timedelta(days=days)
    return AcceptedDrift("us-east-1", stack, "Param", path, until, "load test", "alice", NOW)


def _report(*props: str, status: str = "MODIFIED") -> StackDriftReport:
    drifts = tuple(PropertyDrift(p, "a", "b", "NOT_EQUAL") for p in props)
    resource = ResourceDrift("Param", "AWS::SSM::Parameter", status, "/p", drifts)
    return StackDriftReport("web", "arn", "DRIFTED", resources=(resource,))


def test_marking_covers_paths_below_and_stops_at_expiry() -> None:
    marked = mark(_report("/Value", "/Tags/0/Value"), [_entry("/Tags")], NOW)
    (res,) = marked.resources
    assert [p.accepted for p in res.properties] == [False, True]
    assert res.effective_status == "MODIFIED" and marked.effective_status == "DRIFTED"
    both = mark(_report("/Value", "/Tags/0/Value"), [_entry("/Tags"), _entry("/Value")], NOW)
    assert both.resources[0].effective_status == "ACCEPTED"
    assert both.effective_status == "IN_SYNC" and both.drifted() == ()
    assert "accepted until 2026-12-01T12:00:00Z by alice: load test" in str(
        both.resources[0].accepted
    )
    later = NOW + dt.timedelta(days=8)
    assert mark(_report("/Value"), [_entry()], later).resources[0].effective_status == "MODIFIED"
    assert mark(_report("/Value"), [_entry(stack="api")], NOW).effective_status == "DRIFTED"
    gone = mark(_report(status="DELETED"), [_entry("")], NOW)
    assert gone.resources[0].effective_status == "ACCEPTED"
    assert mark(_report(status="DELETED"), [_entry()], NOW).resources[0].effective_status == (
        "DELETED"
    )


def test_an_acceptance_covers_its_own_account_only() -> None:
    from dataclasses import replace

    mine = replace(_entry(), account="111111111111")
    status = {
        account: mark(_report("/Value"), [mine], NOW, "us-east-1", account).effective_status
        for account in ("111111111111", "222222222222", None)
    }
    # another account's stack of the same name is drift; None: the caller cannot tell
    assert status == {"111111111111": "IN_SYNC", "222222222222": "DRIFTED", None: "IN_SYNC"}
    legacy = _entry()  # stored before accounts were: every account, as then
    assert mark(_report("/Value"), [legacy], NOW, None, "222222222222").effective_status == (
        "IN_SYNC"
    )
    assert AcceptedDrift.from_json(mine.to_json()) == mine
    assert AcceptedDrift.from_json(legacy.to_json()).account == ""


def test_the_store_moves_acceptances_stored_before_accounts(tmp_path: Path) -> None:
    import sqlalchemy as sa

    from cfnops.config import Settings
    from cfnops.database import Database

    url = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "CREATE TABLE cfnops_accepted_drift (region VARCHAR(32), stack VARCHAR(128), "
                "logical_id VARCHAR(255), path VARCHAR(1000), until FLOAT, reason TEXT, "
                "by VARCHAR(200), at FLOAT, PRIMARY KEY (region, stack, logical_id, path))"
            )
        )
        conn.execute(
            sa.text(
                "INSERT INTO cfnops_accepted_drift VALUES "
                "('us-east-1', 'web', 'Param', '/Value', 4102444800, 'old', 'bob', 1700000000)"
            )
        )
    (moved,) = AcceptedStore(database_for(Settings(database_url=url))).list()
    assert (moved.account, moved.stack, moved.path, moved.reason) == ("", "web", "/Value", "old")
    assert "cfnops_accepted_drift" not in sa.inspect(engine).get_table_names()
    # a later process (another database handle) opening the same database
    assert AcceptedStore(Database.open(url)).list() == [moved]


def test_the_gate_never_reverts_accepted_drift() -> None:
    change = ChangeView(
        "Param", "AWS::SSM::Parameter", "Modify", paths=("/Properties/Value", "/Properties/Tags")
    )
    policy = GatePolicy(DEFAULT_PROTECTED_TYPES, (), "web", (("Param", "/Tags"),))
    held = gate((change,), policy)
    assert held.decision == "HOLD"
    assert held.reasons == (
        "Param (AWS::SSM::Parameter) would also revert accepted drift at /Tags",
    )
    only = GatePolicy(DEFAULT_PROTECTED_TYPES, (), "web", (("Param", "/Tags"), ("Param", "/Value")))
    assert gate((change,), only).decision == "SKIP"
    add = ChangeView("Param", "AWS::SSM::Parameter", "Add")
    assert gate((add,), GatePolicy((), (), "web", (("Param", ""),))).decision == "SKIP"


def _cli(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, db: Path, *args: str) -> int:
    for key, value in sandbox.environment().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("CFNOPS_DATABASE_URL", f"sqlite:///{db}")
    return run(["--endpoint-url", sandbox.endpoint_url, "--region", "us-east-1", *args])


def test_accept_through_the_cli_reported_listed_exported_and_audited(
    cfnops_sandbox: Sandbox,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    db = tmp_path / "runs.sqlite"
    stack = unique("acc")
    deploy_sample(cfnops_sandbox.client("cloudformation"), stack, f"/{stack}/p")
    drift_sample(cfnops_sandbox.client("ssm"), f"/{stack}/p")
    bad = [
        (["SampleParameter", "/Value", "--until", "next week", "--reason", "x"], "is not a date"),
        (["SampleParameter", "/Value", "--until", "2020-01-01", "--reason", "x"], "in the past"),
        (["SampleParameter", "Value", "--until", "2099-01-01", "--reason", "x"], "property path"),
        (["SampleParameter", "--until", "2099-01-01"], "--reason: is required"),
        (["Nope", "--until", "2099-01-01", "--reason", "x"], "Nope"),
    ]
    for args, message in bad:
        assert _cli(cfnops_sandbox, monkeypatch, db, "drift", "accept", stack, *args) == 2
        assert message in capsys.readouterr().err
    assert _cli(cfnops_sandbox, monkeypatch, db, "-o", "json", "drift", "accepted") == 0
    assert json.loads(capsys.readouterr().out) == []  # nothing was written
    accept = ["drift", "accept", stack, "SampleParameter", "/Value", "--until", "2099-12-31"]
    reason = ["--reason", "vendor hotfix until the next release"]
    monkeypatch.setenv("COLUMNS", "200")
    assert _cli(cfnops_sandbox, monkeypatch, db, *accept, *reason) == 0
    echo = capsys.readouterr().out
    assert f"accepted drift of {stack} SampleParameter/Value through 2099-12-31 (UTC) by " in echo
    assert echo.count("accepted") == 1, echo
    assert _cli(cfnops_sandbox, monkeypatch, db, "drift", "accepted") == 0
    listed_text = capsys.readouterr().out
    assert "through 2099-12-31 (UTC)" in listed_text and "2100" not in listed_text
    assert _cli(cfnops_sandbox, monkeypatch, db, "-o", "json", "drift", stack) == 0
    (report,) = json.loads(capsys.readouterr().out)["stacks"]
    (res,) = report["resources"]
    assert res["status"] == "MODIFIED" and res["effectiveStatus"] == "ACCEPTED"
    assert report["effectiveStatus"] == "IN_SYNC"
    assert "vendor hotfix" in res["accepted"] and res["properties"][0]["accepted"] is True
    out_file = tmp_path / "accepted-drift.json"
    args = ("-o", "json", "drift", "accepted", "--export", str(out_file))
    assert _cli(cfnops_sandbox, monkeypatch, db, *args) == 0
    (listed,) = json.loads(capsys.readouterr().out)
    assert listed["stack"] == stack and listed["path"] == "/Value" and listed["active"] is True
    assert listed["until"] == "2100-01-01T00:00:00+00:00"
    assert listed["untilText"] == "through 2099-12-31 (UTC)"
    exported = json.loads(out_file.read_text())["acceptedDrift"]
    assert [e["logicalId"] for e in exported] == ["SampleParameter"]
    monkeypatch.setenv("CFNOPS_DATABASE_URL", f"sqlite:///{db}")
    from cfnops.config import load_settings

    with AuditLog(database_for(load_settings())) as audit:
        (entry,) = audit.list(action="drift-accept")
    assert entry.target == f"us-east-1/{stack}/SampleParameter/Value"
    assert entry.reason == "vendor hotfix until the next release"
    assert entry.detail == {
        "until": "through 2099-12-31 (UTC)",
        "expiresAt": "2100-01-01T00:00:00+00:00",
    }


def test_a_fleet_scan_reports_accepted_drift_as_accepted(
    cfnops_sandbox: Sandbox,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    region = "sa-east-1"  # no other test deploys here: the scan sees these stacks only
    db = tmp_path / "runs.sqlite"
    regional = cfnops_sandbox.clients.in_region(region)
    accepted, drifted = unique("acc-scan"), unique("drift-scan")
    for stack in (accepted, drifted):
        deploy_sample(regional.client("cloudformation"), stack, f"/{stack}/p")
        drift_sample(regional.client("ssm"), f"/{stack}/p")
    accept = ["drift", "accept", accepted, "SampleParameter", "--until", "2099-12-31"]
    assert _cli(cfnops_sandbox, monkeypatch, db, "--region", region, *accept, "--reason", "x") == 0
    capsys.readouterr()
    scan = ("-o", "json", "drift", "scan", "--regions", region)
    assert _cli(cfnops_sandbox, monkeypatch, db, *scan) == 0
    data = json.loads(capsys.readouterr().out)
    rows = {r["stack"]: r for r in data["stacks"]}
    assert rows[accepted]["status"] == "IN_SYNC" and rows[drifted]["status"] == "DRIFTED"
    (res,) = rows[accepted]["report"]["resources"]
    assert res["status"] == "MODIFIED" and res["effectiveStatus"] == "ACCEPTED"
    assert data["counts"] == {"DRIFTED": 1, "IN_SYNC": 1}


def test_an_acceptance_in_one_account_leaves_the_same_stack_of_another_drifted(
    cfnops_sandbox: Sandbox,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    import contextlib

    region, role = "ap-northeast-3", "OrganizationAccountAccessRole"  # a region of its own
    db = tmp_path / "runs.sqlite"
    home = cfnops_sandbox.clients.in_region(region)
    org = home.client("organizations")
    with contextlib.suppress(org.exceptions.AlreadyInOrganizationException):
        org.create_organization(FeatureSet="ALL")
    name = unique("twin")
    other = str(
        org.create_account(AccountName=name, Email=f"{name}@example.com")["CreateAccountStatus"][
            "AccountId"
        ]
    )
    creds = home.client("sts").assume_role(
        RoleArn=f"arn:aws:iam::{other}:role/{role}", RoleSessionName="test-setup"
    )["Credentials"]
    for clients in (home, home.assumed(creds, region)):  # the same stack name in both
        deploy_sample(clients.client("cloudformation"), name, f"/{name}/p")
        drift_sample(clients.client("ssm"), f"/{name}/p")
    accept = ["drift", "accept", name, "SampleParameter", "--until", "2099-12-31"]
    assert _cli(cfnops_sandbox, monkeypatch, db, "--region", region, *accept, "--reason", "x") == 0
    capsys.readouterr()
    caller = home.account_id()
    scan = ["-o", "json", "drift", "scan", "--regions", region, "--role-name", role]
    assert _cli(cfnops_sandbox, monkeypatch, db, *scan, "--accounts", f"{caller},{other}") == 0
    rows = {r["account"]: r for r in json.loads(capsys.readouterr().out)["stacks"]}
    assert rows[caller]["status"] == "IN_SYNC" and rows[other]["status"] == "DRIFTED"
    assert _cli(cfnops_sandbox, monkeypatch, db, "-o", "json", "drift", "accepted") == 0
    (listed,) = json.loads(capsys.readouterr().out)
    assert listed["account"] == caller


def test_accepted_drift_is_never_healed_and_comes_back_after_expiry(heal_env: Heal) -> None:
    stack = unique()
    param = f"/{stack}/p"
    deploy_sample(heal_env.cfn, stack, param)
    drift_sample(heal_env.ssm, param)
    store = AcceptedStore(heal_env.engine.runtime.database)
    now = dt.datetime.now(dt.UTC)
    entry = AcceptedDrift(
        "us-east-1", stack, "SampleParameter", "/Value", now + dt.timedelta(days=1), "ok", "t", now
    )
    store.accept(entry)
    _steps._accepted_cache.clear()  # a run reads acceptances at most every 2 s per process
    out = heal_env.run(stack)
    assert out["outcome"] == "IN_SYNC" and out["acceptedOnly"] is True
    assert out["drifted"][0]["effectiveStatus"] == "ACCEPTED"
    assert heal_env.ssm.get_parameter(Name=param)["Parameter"]["Value"] == DRIFTED_VALUE
    assert heal_env.cfn.list_change_sets(StackName=stack)["Summaries"] == []
    store.accept(AcceptedDrift(**{**entry.__dict__, "until": now - dt.timedelta(seconds=1)}))
    _steps._accepted_cache.clear()
    assert heal_env.run(stack)["outcome"] == "HEALED"
