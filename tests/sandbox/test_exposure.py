"""The sandbox stays on this machine unless asked: a non-loopback --host needs
--allow-remote, bad addresses and ports are usage errors, and control routes answer
loopback clients only."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from cfnops.cli.main import run
from cfnops.sandbox import _control


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--host", "0.0.0.0"], "would expose the sandbox"),
        (["--host", "192.0.2.10"], "would expose the sandbox"),
        (["--host", "not-an-address"], "is not an IP address"),
        (["--port", "70000"], "65535"),
    ],
)
def test_refused_before_listening(
    args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["sandbox", "up", *args]) == 2
    captured = capsys.readouterr()
    assert needle in captured.err
    assert "Traceback" not in captured.err + captured.out
    assert "export AWS_ENDPOINT_URL" not in captured.out  # never started


def call(client: str) -> tuple[str, dict[str, Any]]:
    status: list[str] = []
    environ = {
        "PATH_INFO": "/_cfnops/config",
        "REMOTE_ADDR": client,
        "CONTENT_LENGTH": "2",
        "wsgi.input": io.BytesIO(b"{}"),
    }
    _control.register_control("config", lambda request: {"ok": True})
    body = b"".join(_control._control(environ, lambda s, headers: status.append(s)))
    return status[0], json.loads(body)


@pytest.mark.parametrize("client", ["127.0.0.1", "127.0.0.2", "::1"])
def test_control_routes_answer_loopback_clients(client: str) -> None:
    status, body = call(client)
    assert status.startswith("200"), body


def test_control_routes_refuse_other_clients_unless_allowed() -> None:
    status, body = call("192.0.2.7")
    assert status.startswith("403")
    assert "--allow-remote" in body["error"]
    _control.allow_remote_control(True)
    try:
        assert call("192.0.2.7")[0].startswith("200")
    finally:
        _control.allow_remote_control(False)
