"""The sandbox listens before moto is loaded; requests wait for the load, over real HTTP."""

from __future__ import annotations

import gc
import http.client
import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from cfnops.sandbox import Sandbox, SandboxError
from cfnops.sandbox import extensions as extensions_module


def _get(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


@contextmanager
def _load_held() -> Iterator[None]:
    """Keep every new sandbox's loader waiting at ``install_all`` until the block ends."""
    with extensions_module._lock:
        yield


def test_health_answers_while_loading_and_a_request_waits_for_the_load(
    cfnops_sandbox: Sandbox,
) -> None:
    sandbox = Sandbox(delays=0)
    answers: list[Any] = []
    try:
        with _load_held():
            sandbox.start(wait=False)
            assert _get(sandbox.endpoint_url + "/_cfnops/health") == (
                200,
                {"listening": True, "loaded": False},
            )
            assert not sandbox.loaded

            def call() -> None:
                answers.append(sandbox.client("ssm").describe_parameters(MaxResults=1))

            caller = threading.Thread(target=call)
            caller.start()
            caller.join(0.3)
            assert caller.is_alive(), "a request was answered before moto was loaded"
        caller.join(30)
        assert [type(a) for a in answers] == [dict]
        assert answers[0]["ResponseMetadata"]["HTTPStatusCode"] == 200
        assert sandbox.wait_loaded(5) >= 0
        assert sandbox.loaded
        assert _get(sandbox.endpoint_url + "/_cfnops/health")[1]["loaded"] is True
    finally:
        sandbox.stop()


def test_a_connection_opened_before_the_load_gets_moto_request_handling(
    cfnops_sandbox: Sandbox,
) -> None:
    # moto's request handler keeps underscored header names (S3 user metadata);
    # werkzeug's, which serves the connection until moto is loaded, drops them.
    sandbox = Sandbox(delays=0)
    conn: http.client.HTTPConnection | None = None
    try:
        with _load_held():
            sandbox.start(wait=False)
            conn = http.client.HTTPConnection("127.0.0.1", sandbox.port, timeout=30)
            conn.request("GET", "/_cfnops/health")
            assert json.loads(conn.getresponse().read())["loaded"] is False
        conn.request("PUT", "/early-conn-bucket")
        created = conn.getresponse()
        created.read()
        assert created.status == 200
        conn.request(
            "PUT", "/early-conn-bucket/k", body=b"v", headers={"x-amz-meta-my_key": "kept"}
        )
        put = conn.getresponse()
        put.read()
        assert put.status == 200
        head = sandbox.client("s3").head_object(Bucket="early-conn-bucket", Key="k")
        assert head["Metadata"] == {"my_key": "kept"}
    finally:
        if conn is not None:
            conn.close()
        sandbox.stop()


def test_a_failed_load_is_a_clear_error_and_requests_get_503(
    cfnops_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        extensions_module, "EXTENSIONS", (*extensions_module.EXTENSIONS, "no_such_extension")
    )
    with pytest.raises(SandboxError, match=r"extension module .*no_such_extension"):
        Sandbox(delays=0).start()
    sandbox = Sandbox(delays=0).start(wait=False)
    try:
        status, body = _get(sandbox.endpoint_url + "/_cfnops/config")
        assert status == 503
        assert "no_such_extension" in body["error"]
        health = _get(sandbox.endpoint_url + "/_cfnops/health")[1]
        assert health["loaded"] is False
        assert "no_such_extension" in health["error"]
        with pytest.raises(SandboxError, match="no_such_extension"):
            sandbox.wait_loaded(5)
        assert gc.isenabled(), "a failed load left the garbage collector off"
    finally:
        sandbox.stop()


def test_the_load_pauses_the_collector_then_freezes_what_it_loaded(
    cfnops_sandbox: Sandbox,
) -> None:
    assert gc.isenabled()
    before = gc.get_freeze_count()
    sandbox = Sandbox(delays=0)
    try:
        with _load_held():
            sandbox.start(wait=False)
            # the loader pauses the collector, then waits at install_all
            deadline = time.monotonic() + 10
            while gc.isenabled() and time.monotonic() < deadline:
                time.sleep(0.01)
            assert not gc.isenabled()
        sandbox.wait_loaded(30)
        assert gc.isenabled()
        assert gc.get_freeze_count() > before
    finally:
        sandbox.stop()
