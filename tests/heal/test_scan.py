"""``cfnops drift scan`` over 3 accounts x 2 regions: nested stacks, a StackSet, 20 % throttling."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from cfnops.aws import AwsClients
from cfnops.cli.main import run
from cfnops.demo.heal_sample import deploy_sample, drift_sample, sample_template, wait_stack
from cfnops.heal._scan import AdaptiveLimit
from cfnops.sandbox import Sandbox
from cfnops.sandbox.extensions import faults

pytestmark = pytest.mark.slow
REGIONS = ("eu-central-1", "ap-southeast-2")  # regions no other heal test uses
ROLE = "OrganizationAccountAccessRole"  # Organizations creates it in each new account


def _accounts(sandbox: Sandbox) -> list[str]:
    org = sandbox.client("organizations")
    with contextlib.suppress(org.exceptions.AlreadyInOrganizationException):
        org.create_organization(FeatureSet="ALL")
    made = []
    for name in ("scan-dev", "scan-prod"):
        status = org.create_account(AccountName=name, Email=f"{name}@example.com")
        made.append(str(status["CreateAccountStatus"]["AccountId"]))
    return made


def _clients(sandbox: Sandbox, account: str, region: str) -> AwsClients:
    base = sandbox.clients
    aws = base.settings.replace(region=region)
    regional = AwsClients(aws, session=base.session)
    if account == "123456789012":
        return regional
    creds = regional.client("sts").assume_role(
        RoleArn=f"arn:aws:iam::{account}:role/{ROLE}", RoleSessionName="test-setup"
    )["Credentials"]
    return regional.assumed(creds, region)


def _nested(clients: AwsClients, name: str) -> None:
    s3 = clients.client("s3")
    s3.create_bucket(
        Bucket=name, CreateBucketConfiguration={"LocationConstraint": clients.settings.region}
    )
    s3.put_object(Bucket=name, Key="child.json", Body=sample_template(f"/{name}/child"))
    parent = {
        "Resources": {
            "Child": {
                "Type": "AWS::CloudFormation::Stack",
                "Properties": {"TemplateURL": f"https://{name}.s3.amazonaws.com/child.json"},
            }
        }
    }
    cfn = clients.client("cloudformation")
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(parent))
    wait_stack(cfn, name)
    drift_sample(clients.client("ssm"), f"/{name}/child")


def _cli(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    for key, value in sandbox.environment().items():
        monkeypatch.setenv(key, value)
    return run(["--endpoint-url", sandbox.endpoint_url, "--region", REGIONS[0], *args])


def test_fleet_scan_across_accounts_regions_nested_and_stack_sets_under_throttling(
    cfnops_sandbox: Sandbox,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    dev, prod = _accounts(cfnops_sandbox)
    tag = uuid.uuid4().hex[:6]
    expected: dict[tuple[str, str, str], str] = {}
    for account in ("123456789012", dev, prod):
        for region in REGIONS:
            clients = _clients(cfnops_sandbox, account, region)
            cfn, ssm = clients.client("cloudformation"), clients.client("ssm")
            for i in range(2):
                name = f"scan-{tag}-{i}"
                deploy_sample(cfn, name, f"/{name}/p")
                if i == 0:
                    drift_sample(ssm, f"/{name}/p")
                expected[(account, region, name)] = "DRIFTED" if i == 0 else "IN_SYNC"
    home = _clients(cfnops_sandbox, "123456789012", REGIONS[0])
    _nested(home, f"scan-{tag}-parent")
    expected[("123456789012", REGIONS[0], f"scan-{tag}-parent")] = "DRIFTED"
    queue = {"Q": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": f"ss-{tag}"}}}
    home.client("cloudformation").create_stack_set(
        StackSetName=f"ss-{tag}", TemplateBody=json.dumps({"Resources": queue})
    )
    home.client("cloudformation").create_stack_instances(
        StackSetName=f"ss-{tag}", Accounts=[dev, prod], Regions=[REGIONS[0]]
    )
    faults.throttle("cloudformation", rate=0.2, seed=5)
    files = {k: tmp_path / f"scan.{k}" for k in ("md", "json", "html")}
    args = ["-o", "json", "drift", "scan", "--organization", "--role-name", ROLE]
    args += ["--regions", ",".join(REGIONS), "--concurrency", "6"]
    args += ["--markdown", str(files["md"]), "--json", str(files["json"])]
    args += ["--html", str(files["html"])]
    code = _cli(cfnops_sandbox, monkeypatch, *args)
    throttled = faults.injected("cloudformation")
    faults.clear()
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert code == 0, out
    assert throttled > 20, "throttling was not injected"
    seen = {(s["account"], s["region"], s["stack"]): s["status"] for s in out["stacks"]}
    mine = {k: v for k, v in seen.items() if k[2].startswith(f"scan-{tag}")}
    assert mine == expected  # 13 stacks, none lost to throttling
    assert all(s["status"] != "ERROR" for s in out["stacks"]), out["stacks"]
    parent = next(s for s in out["stacks"] if s["stack"] == f"scan-{tag}-parent")
    (child,) = parent["report"]["nested"]
    assert child["effectiveStatus"] == "DRIFTED"
    instances = [i for i in out["stackSets"] if i["stackSet"] == f"ss-{tag}"]
    assert sorted(i["account"] for i in instances) == sorted([dev, prod])
    assert {i["drift"] for i in instances} == {"IN_SYNC"}  # detected by this scan
    assert out["throttled"] > 0 and out["stacksPerMinute"] > 0
    assert out["concurrency"]["start"] == 6 and out["concurrency"]["lowest"] < 6
    md = files["md"].read_text()
    assert md.startswith("# Drift scan") and "## StackSet instances" in md
    assert f"| {dev} | {REGIONS[1]} | scan-{tag}-0 | DRIFTED |" in md
    assert json.loads(files["json"].read_text())["counts"] == out["counts"]
    html = files["html"].read_text()
    assert html.startswith("<!doctype html>") and f"<td>scan-{tag}-1</td>" in html


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--accounts", "12345"], "--accounts: 12345: an account id is 12 digits"),
        (
            ["--accounts", "999999999999", "--role-name", "Nope"],
            "account 999999999999: role Nope cannot be assumed (AccessDenied)",
        ),
        (["--accounts", "999999999999"], "--role-name: needed to enter account 999999999999"),
        (["--accounts", "123456789012", "--organization"], "give one of them, not both"),
    ],
    ids=["malformed", "unknown-account", "no-role", "both"],
)
def test_bad_scan_targets_exit_2_and_write_nothing(
    cfnops_sandbox: Sandbox,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    args: list[str],
    message: str,
) -> None:
    report = tmp_path / "scan.md"
    code = _cli(cfnops_sandbox, monkeypatch, "drift", "scan", *args, "--markdown", str(report))
    assert code == 2
    assert message in capsys.readouterr().err
    assert not report.exists()


def test_adaptive_limit_halves_on_throttling_and_grows_back() -> None:
    limit = AdaptiveLimit(8)
    limit.throttle()
    limit.throttle()
    assert limit.limit == 2 and limit.seen_low == 2 and limit.throttled == 2
    for _ in range(2):
        limit.success()
    assert limit.limit == 3
    for _ in range(40):
        limit.success()
    assert limit.limit == 8 and limit.seen_high == 8  # never above the start


def test_a_library_scan_leaves_the_heap_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """gc.freeze is an entry point's decision: the CLI's, never ``scan``'s."""
    import gc

    from cfnops.cli import _heap
    from cfnops.heal import _scan

    frozen: list[int] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(1))
    first = _scan.scan({}, ["us-east-1"])
    assert frozen == [] and first.rows == ()
    monkeypatch.setattr(_heap, "_settled", [])
    _heap.settle_heap()
    _heap.settle_heap()  # a worker's next scheduled scan: its leftovers stay collectable
    assert frozen == [1]


def test_clients_keep_a_connection_per_concurrent_call() -> None:
    from cfnops.config import AwsSettings

    default = AwsClients(AwsSettings(region="us-east-1", endpoint_url="http://127.0.0.1:9"))
    assert default.client("cloudformation").meta.config.max_pool_connections == 64
    small = AwsClients(
        AwsSettings(region="us-east-1", endpoint_url="http://127.0.0.1:9", max_pool_connections=4)
    )
    assert small.client("cloudformation").meta.config.max_pool_connections == 4


def test_plan_and_run_scan_are_what_the_command_calls(
    cfnops_sandbox: Sandbox, tmp_path: Path
) -> None:
    """The command parses and renders; the capability checks, enters and scans, here from
    Python on a runtime built without the CLI."""
    from cfnops.config import load_settings
    from cfnops.heal import AcceptedDrift, AcceptedStore, plan_scan, run_scan
    from cfnops.heal.errors import BadScanTarget
    from cfnops.runtime import Runtime

    region = REGIONS[1]
    settings = load_settings(
        database_url=f"sqlite:///{tmp_path / 'runs.db'}",
        aws={"region": region, "endpoint_url": cfnops_sandbox.endpoint_url},
    )
    runtime = Runtime.from_settings(settings, aws=cfnops_sandbox.clients.in_region(region))
    tag = uuid.uuid4().hex[:6]
    cfn = runtime.aws.client("cloudformation")
    now = dt.datetime.now(dt.UTC)
    for i in range(2):
        deploy_sample(cfn, f"plan-{tag}-{i}", f"/plan-{tag}-{i}/p")
        drift_sample(runtime.aws.client("ssm"), f"/plan-{tag}-{i}/p")
    accepted = AcceptedDrift(  # stack 1's drift accepted: run_scan marks it
        region=region,
        stack=f"plan-{tag}-1",
        logical_id="SampleParameter",
        path="",
        until=now + dt.timedelta(days=1),
        reason="known",
        by="test",
        at=now,
    )
    AcceptedStore(runtime.database).accept(accepted)
    for bad in ({"accounts": "12345"}, {"accounts": "123456789012", "organization": True}):
        with pytest.raises(BadScanTarget):
            plan_scan(runtime, **bad)
    plan = plan_scan(runtime, accounts=["123456789012"])
    assert list(plan.accounts) == ["123456789012"] and plan.regions == (region,)
    result = run_scan(runtime, plan, concurrency=2)
    mine = {r.stack: r.status for r in result.rows if r.stack.startswith(f"plan-{tag}")}
    assert mine == {f"plan-{tag}-0": "DRIFTED", f"plan-{tag}-1": "IN_SYNC"}
    runtime.close()
