from __future__ import annotations

import boto3
import botocore.exceptions as bex
import pytest
from botocore.stub import Stubber

from cfnops._version import __version__
from cfnops.aws import AwsClients, AwsSetupError, check_region, translate_error
from cfnops.config import AwsSettings
from cfnops.errors import ExitCode


def _session() -> boto3.session.Session:
    return boto3.session.Session(
        aws_access_key_id="k", aws_secret_access_key="s", region_name="eu-west-1"
    )


def test_client_has_adaptive_retries_user_agent_and_region() -> None:
    clients = AwsClients(AwsSettings(max_attempts=7), session=_session())
    cfn = clients.client("cloudformation")
    assert cfn.meta.region_name == "eu-west-1"
    assert cfn.meta.config.retries == {"mode": "adaptive", "total_max_attempts": 7}
    assert f"cfnops/{__version__}" in cfn.meta.config.user_agent_extra
    assert clients.client("cloudformation") is cfn  # cached


def test_endpoint_from_settings_and_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    explicit = AwsClients(AwsSettings(endpoint_url="http://127.0.0.1:5999"), session=_session())
    assert explicit.client("ssm").meta.endpoint_url == "http://127.0.0.1:5999"
    monkeypatch.setenv("AWS_ENDPOINT_URL_SSM", "http://127.0.0.1:6111")
    from_env = AwsClients(AwsSettings(), session=_session())
    assert from_env.client("ssm").meta.endpoint_url == "http://127.0.0.1:6111"


def test_account_id_is_asked_once() -> None:
    sts = boto3.session.Session(region_name="us-east-1").client(
        "sts", aws_access_key_id="k", aws_secret_access_key="s"
    )
    clients = AwsClients(AwsSettings(region="us-east-1"), clients={"sts": sts})
    with Stubber(sts) as stub:
        stub.add_response(
            "get_caller_identity",
            {"Account": "123456789012", "Arn": "arn:aws:iam::123456789012:user/x", "UserId": "x"},
        )
        assert clients.account_id() == "123456789012"
        assert clients.account_id() == "123456789012"  # a second call would exhaust the stub


@pytest.mark.parametrize("region", ["us-east-1", "eu-west-3", "ap-northeast-1"])
def test_known_regions_pass(region: str) -> None:
    assert check_region(region) == region


@pytest.mark.parametrize("region", ["us-east-9", "mars-1", "US-EAST-1", ""])
def test_unknown_region_is_a_usage_error(region: str) -> None:
    with pytest.raises(AwsSetupError, match="unknown region") as info:
        AwsClients(AwsSettings(region=region))
    assert info.value.exit_code == ExitCode.USAGE


def _client_error(code: str, op: str = "DescribeStacks") -> bex.ClientError:
    return bex.ClientError({"Error": {"Code": code, "Message": "nope"}}, op)


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (bex.NoCredentialsError(), "no AWS credentials"),
        (
            bex.PartialCredentialsError(provider="env", cred_var="AWS_SECRET_ACCESS_KEY"),
            "no AWS credentials",
        ),
        (bex.ProfileNotFound(profile="ops"), "ops"),
        (bex.NoRegionError(), "no AWS region"),
        (
            bex.EndpointConnectionError(endpoint_url="http://127.0.0.1:1"),
            "cannot reach http://127.0.0.1:1",
        ),
        (bex.ConnectTimeoutError(endpoint_url="http://10.9.9.9"), "cannot reach http://10.9.9.9"),
        (_client_error("AccessDenied"), "access denied calling DescribeStacks"),
        (_client_error("AccessDeniedException", "DetectStackDrift"), "DetectStackDrift"),
        (_client_error("UnauthorizedOperation", "StopInstances"), "StopInstances"),
        (_client_error("ExpiredToken"), "access denied"),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, Exception) else v[:20],
)
def test_setup_errors_translate_to_one_line_usage_errors(exc: Exception, expected: str) -> None:
    err = translate_error(exc)
    assert isinstance(err, AwsSetupError) and expected in err.message
    assert "\n" not in err.message and err.hint


def test_domain_errors_are_left_to_the_caller() -> None:
    assert translate_error(_client_error("ValidationError")) is None
    assert translate_error(_client_error("Throttling")) is None
    assert translate_error(ValueError("x")) is None


def test_unreachable_endpoint_through_a_real_client_is_translated() -> None:
    clients = AwsClients(
        AwsSettings(
            region="us-east-1", endpoint_url="http://127.0.0.1:9", max_attempts=1, connect_timeout=1
        ),
        session=_session(),
    )
    with pytest.raises(bex.EndpointConnectionError) as info:
        clients.client("cloudformation").describe_stacks()
    err = translate_error(info.value)
    assert err is not None and "127.0.0.1:9" in err.message


def test_error_code_and_message_read_client_errors_only() -> None:
    from botocore.exceptions import ClientError

    from cfnops.aws import error_code, error_message

    err = ClientError(
        {"Error": {"Code": "ValidationError", "Message": "Stack x does not exist"}},
        "DescribeStacks",
    )
    assert error_code(err) == "ValidationError"
    assert error_message(err) == "Stack x does not exist"
    bare = ClientError({}, "DescribeStacks")
    assert (error_code(bare), error_code(bare, "Unknown"), error_message(bare, "m")) == (
        "",
        "Unknown",
        "m",
    )
    assert error_code(ValueError("ValidationError")) == ""


def test_no_module_reads_the_error_shape_itself() -> None:
    """Error codes are read in one place (cfnops.aws.error_code / error_message)."""
    import re
    from pathlib import Path

    src = Path(__file__).resolve().parents[2] / "src" / "cfnops"
    pattern = re.compile(r"""\.response(\.get\(|\[)["']Error["']""")
    found = [
        f"{p.relative_to(src)}:{n}"
        for p in src.rglob("*.py")
        if "sandbox" not in p.parts  # the sandbox builds AWS's error responses
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == [], f"use cfnops.aws.error_code/error_message in {found}"


def _no_aws_configuration(monkeypatch: pytest.MonkeyPatch, home: object) -> None:
    for name in (
        "AWS_REGION",
        "AWS_DEFAULT_REGION",
        "AWS_PROFILE",
        "AWS_DEFAULT_PROFILE",
        "AWS_CONFIG_FILE",
        "AWS_SHARED_CREDENTIALS_FILE",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))


def test_no_region_anywhere_is_told_without_botocore(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    """With no region, profile or AWS file, botocore would find nothing: cfnops says so
    without importing it (a job-net calling no AWS service starts without boto3)."""
    import json
    import os
    import subprocess
    import sys

    _no_aws_configuration(monkeypatch, tmp_path)
    probe = (
        "import json, sys\n"
        "from cfnops.aws import AwsClients, AwsSetupError\n"
        "clients = AwsClients()\n"
        "try:\n"
        "    clients.region\n"
        "    said = None\n"
        "except AwsSetupError as exc:\n"
        "    said = exc.message\n"
        "print(json.dumps({'said': said, 'botocore': 'botocore' in sys.modules}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], env=dict(os.environ), capture_output=True, text=True
    )
    assert json.loads(done.stdout) == {"said": "no AWS region configured", "botocore": False}
    with pytest.raises(AwsSetupError):  # botocore, asked, agrees
        _ = AwsClients(session=boto3.session.Session()).region


@pytest.mark.parametrize(
    ("where", "body"),
    [
        ("config", "[default]\nregion = eu-north-1\n"),
        ("credentials", "[default]\naws_access_key_id = k\naws_secret_access_key = s\n"),
    ],
)
def test_any_aws_file_goes_to_botocore(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object, where: str, body: str
) -> None:
    from pathlib import Path

    home = Path(str(tmp_path))
    _no_aws_configuration(monkeypatch, home)
    (home / ".aws").mkdir()
    (home / ".aws" / where).write_text(body)
    if where == "config":
        assert AwsClients().region == "eu-north-1"
    else:
        with pytest.raises(AwsSetupError, match="no AWS region"):
            _ = AwsClients().region
    monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-south-1")
    assert AwsClients().region == "ap-south-1"  # botocore: the variable before the file
    monkeypatch.delenv("AWS_DEFAULT_REGION")
    monkeypatch.setenv("AWS_REGION", "sa-east-1")
    assert AwsClients().region == "sa-east-1"
