"""The runtime value: settings, one AWS client cache, one database handle, notifiers."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import boto3
from botocore.stub import Stubber

from cfnops.aws import AwsClients
from cfnops.config import load_settings
from cfnops.notify import Notification
from cfnops.runtime import Runtime


def _session() -> boto3.session.Session:
    return boto3.session.Session(
        aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="x", region_name="us-east-1"
    )


def _settings(tmp_path: Path, **extra: Any) -> Any:
    return load_settings(
        database_url=f"sqlite:///{tmp_path / 'runs.db'}", aws={"region": "us-east-1"}, **extra
    )


def test_built_from_settings_with_an_injected_session(tmp_path: Path) -> None:
    session = _session()
    runtime = Runtime.from_settings(_settings(tmp_path), session=session)
    assert runtime.aws.session is session
    assert runtime.database.url == runtime.settings.database_url
    assert runtime.database.engine is runtime.database.engine
    assert runtime.with_settings(runtime.settings).database is runtime.database


def test_other_settings_keep_an_injected_session_unless_the_profile_changes(
    tmp_path: Path,
) -> None:
    session = _session()
    runtime = Runtime.from_settings(_settings(tmp_path), session=session)
    aimed = runtime.with_settings(
        runtime.settings.replace(
            aws=runtime.settings.aws.replace(endpoint_url="http://127.0.0.1:1")
        )
    )
    assert aimed.aws is not runtime.aws and aimed.aws.session is session
    assert aimed.aws.settings.endpoint_url == "http://127.0.0.1:1"
    other = runtime.with_settings(
        runtime.settings.replace(aws=runtime.settings.aws.replace(profile="other"))
    )
    assert other.aws.settings.profile == "other" and other.aws._session is None


def test_other_regions_share_one_cache(tmp_path: Path) -> None:
    runtime = Runtime.from_settings(_settings(tmp_path), session=_session())
    west = runtime.aws.in_region("eu-west-1")
    assert west is runtime.aws.in_region("eu-west-1")
    assert west.settings.region == "eu-west-1" and west.session is runtime.aws.session
    assert west.in_region("us-east-1") is runtime.aws
    assert west.in_region("ap-south-1") is runtime.aws.in_region("ap-south-1")
    assert runtime.aws.in_region(None) is runtime.aws


def _stubbed(account: str, assumed: list[str]) -> AwsClients:
    clients = AwsClients(load_settings(aws={"region": "us-east-1"}).aws, session=_session())
    sts = clients.client("sts")
    stub = Stubber(sts)
    stub.add_response(
        "get_caller_identity",
        {"Account": account, "Arn": f"arn:aws:iam::{account}:user/me", "UserId": "AIDEXAMPLE1"},
    )
    expires = dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)
    for target in assumed:
        stub.add_response(
            "assume_role",
            {
                "Credentials": {
                    "AccessKeyId": "ASIAEXAMPLEASSUMED01",
                    "SecretAccessKey": "s",
                    "SessionToken": "t",
                    "Expiration": expires,
                }
            },
            {"RoleArn": f"arn:aws:iam::{target}:role/ops", "RoleSessionName": "cfnops-test"},
        )
    stub.activate()
    return clients


def test_an_assumed_account_is_asked_of_sts_once() -> None:
    clients = _stubbed("111111111111", ["222222222222"])
    other = clients.assume("222222222222", "ops", session_name="cfnops-test")
    assert other.account_id() == "222222222222"
    assert clients.assume("222222222222", "ops", session_name="cfnops-test") is other
    # from another region of the caller's account: the same credentials, that region
    west = clients.in_region("eu-west-1").assume("222222222222", "ops", session_name="cfnops-test")
    assert west.settings.region == "eu-west-1" and west is other.in_region("eu-west-1")
    assert clients.assume("111111111111", "ops") is clients  # the caller's own account


def test_notify_calls_the_hook_and_the_enabled_channels(tmp_path: Path) -> None:
    seen: list[Notification] = []
    runtime = Runtime.from_settings(
        _settings(tmp_path, notify={"console": False}), session=_session(), notify_hook=seen.append
    )
    note = Notification(subject="s", message="m", outcome="HEALED", stack="web")
    assert runtime.notify(note) == []
    assert seen == [note]


def test_a_runs_own_aws_settings_get_their_own_cached_clients(tmp_path: Path) -> None:
    runtime = Runtime.from_settings(_settings(tmp_path), session=_session())
    assert runtime.aws.configured(region="us-east-1", endpoint_url=None) is runtime.aws
    assert runtime.aws.configured(region="eu-west-1") is runtime.aws.in_region("eu-west-1")
    local = runtime.aws.configured(endpoint_url="http://127.0.0.1:9")
    assert local.settings.endpoint_url == "http://127.0.0.1:9"
    assert runtime.aws.configured(endpoint_url="http://127.0.0.1:9") is local
    west = runtime.aws.in_region("eu-west-1").configured(endpoint_url="http://127.0.0.1:9")
    assert (
        west.settings.region == "eu-west-1"
        and west.settings.endpoint_url == local.settings.endpoint_url
    )


def test_other_settings_keep_the_injected_credentials(tmp_path: Path) -> None:
    session = _session()
    runtime = Runtime.from_settings(_settings(tmp_path), session=session)
    assert runtime.aws.configured(max_attempts=7).session is session
    assert runtime.aws.configured(profile="other").settings.profile == "other"
