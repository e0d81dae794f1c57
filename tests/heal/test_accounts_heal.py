"""``cfnops heal --accounts … --role-name …``: one durable run per stack in each account
(STS AssumeRole), against the sandbox in its own process, over HTTP."""

from __future__ import annotations

import contextlib
import json
import uuid
from pathlib import Path
from typing import Any

import boto3
import pytest
from tests._runtime import database_for
from tests.heal._proc import SandboxProcess, cfnops, env_for

from cfnops.config import load_settings
from cfnops.demo.heal_sample import INITIAL_VALUE, deploy_sample, drift_sample
from cfnops.durable import RunStore

pytestmark = pytest.mark.slow
OWN = "123456789012"
ROLE = "OrganizationAccountAccessRole"  # Organizations creates it in each new account


def _accounts(sp: SandboxProcess) -> list[str]:
    org = sp.client("organizations")
    with contextlib.suppress(org.exceptions.AlreadyInOrganizationException):
        org.create_organization(FeatureSet="ALL")
    made = []
    for name in ("heal-dev", "heal-prod"):
        status = org.create_account(AccountName=name, Email=f"{name}-{uuid.uuid4().hex}@x.org")
        made.append(str(status["CreateAccountStatus"]["AccountId"]))
    return made


def _in(sp: SandboxProcess, account: str, service: str) -> Any:
    if account == OWN:
        return sp.client(service)
    creds = sp.client("sts").assume_role(
        RoleArn=f"arn:aws:iam::{account}:role/{ROLE}", RoleSessionName="test-setup"
    )["Credentials"]
    return boto3.client(
        service,
        endpoint_url=sp.url,
        region_name="us-east-1",
        aws_access_key_id=creds["AccessKeyId"],
        aws_secret_access_key=creds["SecretAccessKey"],
        aws_session_token=creds["SessionToken"],
    )


def _run(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    proc = cfnops(env, *args)
    out, err = proc.communicate(timeout=180)
    return proc.returncode, out, err


def test_heal_all_across_three_accounts(sandbox_proc: SandboxProcess, tmp_path: Path) -> None:
    dev, prod = _accounts(sandbox_proc)
    tag = uuid.uuid4().hex[:6]
    names: dict[str, str] = {}
    for account in (OWN, dev, prod):
        name = f"acct-{tag}-{account[-4:]}"
        deploy_sample(_in(sandbox_proc, account, "cloudformation"), name, f"/{name}/p")
        drift_sample(_in(sandbox_proc, account, "ssm"), f"/{name}/p")
        names[account] = name
    env = env_for(sandbox_proc, tmp_path / "db.sqlite")
    args = ["-o", "json", "heal", "--all", "--name", f"acct-{tag}-*"]
    code, out, err = _run(env, *args, "--accounts", f"{OWN},{dev},{prod}", "--role-name", ROLE)
    assert code == 0, err
    data = json.loads(out)
    seen = {(r["account"], r["stack"]): r["status"] for r in data["runs"]}
    assert seen == {
        (None, names[OWN]): "HEALED",  # the caller's own account: no role assumed
        (dev, names[dev]): "HEALED",
        (prod, names[prod]): "HEALED",
    }
    for account, name in names.items():
        # Each account's own parameter was reverted, by a change set in that account.
        ssm = _in(sandbox_proc, account, "ssm")
        assert ssm.get_parameter(Name=f"/{name}/p")["Parameter"]["Value"] == INITIAL_VALUE
        cfn = _in(sandbox_proc, account, "cloudformation")
        (cs,) = cfn.list_change_sets(StackName=name)["Summaries"]
        assert cs["ExecutionStatus"] == "EXECUTE_COMPLETE"
    settings = load_settings(database_url=f"sqlite:///{tmp_path / 'db.sqlite'}")
    with RunStore(database_for(settings)) as store:
        inputs = [r.input for r in store.list_runs(workflow="cfnops.heal")]
    # The run records name the account and role, never credentials.
    assert sorted((i.get("Account") or "", i.get("RoleName") or "") for i in inputs) == sorted(
        [("", ""), (dev, ROLE), (prod, ROLE)]
    )
    assert "SecretAccessKey" not in json.dumps(inputs)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--accounts", f"{OWN},999999999999", "--role-name", "Nope"],
            "heal: account 999999999999: role Nope cannot be assumed (AccessDenied)",
        ),
        (["--accounts", "12345", "--role-name", ROLE], "heal: --accounts: 12345: an account id"),
        (["--accounts", "999999999999"], "heal: --role-name: needed to enter account 999999999999"),
        (["--role-name", ROLE], "--role-name goes with --accounts"),
    ],
    ids=["role-not-assumable", "malformed", "no-role", "role-without-accounts"],
)
def test_bad_accounts_exit_2_and_start_nothing(
    sandbox_proc: SandboxProcess, tmp_path: Path, extra: list[str], message: str
) -> None:
    name = f"acct-bad-{uuid.uuid4().hex[:6]}"
    deploy_sample(sandbox_proc.client("cloudformation"), name, f"/{name}/p")
    drift_sample(sandbox_proc.client("ssm"), f"/{name}/p")
    env = env_for(sandbox_proc, tmp_path / "db.sqlite")
    code, out, err = _run(env, "heal", name, *extra)
    assert code == 2, (out, err)
    assert message in err
    assert "Traceback" not in err
    cfn = sandbox_proc.client("cloudformation")
    assert cfn.list_change_sets(StackName=name)["Summaries"] == []
    db = tmp_path / "db.sqlite"
    if db.exists():
        with RunStore(database_for(load_settings(database_url=f"sqlite:///{db}"))) as store:
            assert store.list_runs(workflow="cfnops.heal") == []
