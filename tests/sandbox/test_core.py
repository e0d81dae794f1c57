"""The sandbox core: server lifecycle, control API, middleware, timers, CLI."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any

import boto3
import pytest

from cfnops.sandbox import (
    Delays,
    Sandbox,
    SandboxError,
    SandboxState,
    current_state,
    register_control,
    register_middleware,
)
from cfnops.sandbox.extensions import EXTENSIONS, installed
from cfnops.sandbox.shapecheck import assert_matches_output_shape


def _post(url: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
    data = json.dumps(body).encode() if body is not None else None
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data)) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_plain_boto3_works_with_the_exported_environment(cfnops_sandbox: Sandbox) -> None:
    env = cfnops_sandbox.environment()
    assert env["AWS_ENDPOINT_URL"] == cfnops_sandbox.endpoint_url
    session = boto3.session.Session(
        aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
        region_name=env["AWS_REGION"],
    )
    ssm = session.client("ssm", endpoint_url=env["AWS_ENDPOINT_URL"])
    ssm.put_parameter(Name="/core/plain", Value="v1", Type="String", Overwrite=True)
    got = cfnops_sandbox.client("ssm").get_parameter(Name="/core/plain")
    assert got["Parameter"]["Value"] == "v1"
    assert_matches_output_shape(ssm, "GetParameter", got)
    assert set(installed()) >= {"cfn_drift", "cfn_changesets", "cfn_fixes"}
    assert set(installed()) <= set(EXTENSIONS)


def test_config_route_reads_and_sets_delays(cfnops_sandbox: Sandbox) -> None:
    url = cfnops_sandbox.endpoint_url + "/_cfnops/config"
    status, body = _post(url, {"delays": {"drift_detection": 1.5}})
    assert status == 200
    assert body["delays"]["drift_detection"] == 1.5
    assert current_state().delays.drift_detection == 1.5
    status, body = _post(url, {"delays": 0})
    assert set(body["delays"].values()) == {0.0}
    status, body = _post(url, {"delays": {"no_such_delay": 1}})
    assert status == 400
    assert "no_such_delay" in body["error"]
    status, body = _post(cfnops_sandbox.endpoint_url + "/_cfnops/nope", {})
    assert status == 404
    assert "config" in body["routes"]


def test_custom_control_route_and_middleware(cfnops_sandbox: Sandbox) -> None:
    register_control("echo", lambda req: {"got": req})
    assert _post(cfnops_sandbox.endpoint_url + "/_cfnops/echo", {"a": 1}) == (
        200,
        {"got": {"a": 1}},
    )

    seen: list[str] = []

    def spy(environ: dict[str, Any], start_response: Any, next_app: Any) -> Any:
        seen.append(environ["PATH_INFO"])
        return next_app(environ, start_response)

    register_middleware(spy)
    register_middleware(spy)  # idempotent
    cfnops_sandbox.client("sqs").list_queues()
    assert seen == ["/"]


def test_timers_run_before_the_next_request(cfnops_sandbox: Sandbox) -> None:
    fired: list[int] = []
    cfnops_sandbox.state.schedule(0, lambda: fired.append(1))
    cfnops_sandbox.client("sqs").list_queues()
    assert fired == [1]


def test_state_reset_forgets_timers_events_and_stores() -> None:
    # A private state: resetting the process-wide one would disturb other tests.
    state = SandboxState()
    cleared: list[bool] = []
    state.on_reset(lambda: cleared.append(True))
    state.schedule(3600, lambda: None)
    state.record_event({"source": "x", "detail-type": "y"})
    state.extras["mine"] = 1
    state.reset()
    assert (state.pending_timers(), state.events, state.extras, cleared) == (0, [], {}, [True])


def test_delays_validate_names_and_signs() -> None:
    assert Delays.zero().drift_detection == 0
    assert 1 <= Delays().drift_detection <= 3
    with pytest.raises(ValueError, match="unknown delay"):
        Delays().with_values(bogus=1)
    with pytest.raises(ValueError, match="negative"):
        Delays.uniform(-1)


def test_port_in_use_is_a_clear_error(cfnops_sandbox: Sandbox) -> None:
    with pytest.raises(SandboxError, match="cannot listen"), Sandbox(port=cfnops_sandbox.port):
        pass


_RUN_CLI = "import sys; from cfnops.cli.main import run; sys.exit(run(sys.argv[1:]))"


@pytest.mark.slow  # a separate process: imports, server start and shutdown (~5-10 s)
def test_cli_up_prints_exports_and_stops_on_sigterm() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "CFNOPS_"))}
    env["CFNOPS_SANDBOX__DELAY_SECONDS"] = "0.25"  # settings apply when the flag is absent
    proc = subprocess.Popen(
        [sys.executable, "-c", _RUN_CLI, "sandbox", "up", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline().strip() for _ in range(5)]
        exports = dict(line.removeprefix("export ").split("=", 1) for line in lines)
        assert exports["AWS_ENDPOINT_URL"].startswith("http://127.0.0.1:")
        assert exports["AWS_REGION"] == exports["AWS_DEFAULT_REGION"] == "us-east-1"
        ssm = boto3.session.Session(
            aws_access_key_id=exports["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=exports["AWS_SECRET_ACCESS_KEY"],
            region_name=exports["AWS_REGION"],
        ).client("ssm", endpoint_url=exports["AWS_ENDPOINT_URL"])
        status, config = _post(exports["AWS_ENDPOINT_URL"] + "/_cfnops/config")
        assert status == 200
        assert set(config["delays"].values()) == {0.25}
        ssm.put_parameter(Name="/cli/p", Value="1", Type="String")
        assert ssm.get_parameter(Name="/cli/p")["Parameter"]["Value"] == "1"
        # Reset in this separate process: in the test process it would wipe the
        # session-wide sandbox other tests share.
        assert _post(exports["AWS_ENDPOINT_URL"] + "/_cfnops/reset", {}) == (200, {"reset": True})
        assert ssm.describe_parameters()["Parameters"] == []
    finally:
        proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 10
        while proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        if proc.poll() is None:
            proc.kill()
        _out, err = proc.communicate(timeout=5)
    assert proc.returncode == 0, err
    assert "stopped" in err


def test_a_failing_timer_does_not_fail_requests(cfnops_sandbox: Sandbox) -> None:
    def broken() -> None:
        raise RuntimeError("boom")

    fired: list[int] = []
    cfnops_sandbox.state.schedule(0, broken)
    cfnops_sandbox.state.schedule(0, lambda: fired.append(1))
    assert "QueueUrls" not in cfnops_sandbox.client("sqs").list_queues(QueueNamePrefix="none-")
    assert fired == [1]
