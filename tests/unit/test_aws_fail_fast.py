"""A refused connection or an unknown host fails at once; throttling and 5xx keep retrying."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from typing import Any

import botocore.exceptions
import pytest

from cfnops.aws import AwsClients, translate_error
from cfnops.config import AwsSettings


def _clients(endpoint: str) -> AwsClients:
    import boto3

    session = boto3.session.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1"
    )
    settings = AwsSettings(
        region="us-east-1", endpoint_url=endpoint, max_attempts=4, retry_mode="standard"
    )
    return AwsClients(settings, session=session)


def _count_attempts(client: Any) -> list[int]:
    sent: list[int] = []
    client.meta.events.register("before-send", lambda **_: sent.append(1))
    return sent


@pytest.mark.parametrize(
    "endpoint", ["http://127.0.0.1:9", "http://no-such-host.invalid:5000"], ids=["refused", "dns"]
)
def test_an_unreachable_endpoint_is_tried_once(endpoint: str) -> None:
    cfn = _clients(endpoint).client("cloudformation")
    sent = _count_attempts(cfn)
    with pytest.raises(botocore.exceptions.EndpointConnectionError) as caught:
        cfn.describe_stacks(StackName="web")
    assert len(sent) == 1  # botocore alone makes 4 attempts with backoff here
    err = translate_error(caught.value)
    assert err is not None and "cannot reach" in str(err)


class _Busy(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(503)
        self.send_header("Content-Type", "text/xml")
        body = (
            b"<ErrorResponse><Error><Type>Receiver</Type><Code>ServiceUnavailable</Code>"
            b"<Message>busy</Message></Error></ErrorResponse>"
        )
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: Any) -> None:
        pass


@pytest.fixture
def busy() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Busy)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_5xx_answer_is_still_retried(busy: str) -> None:
    cfn = _clients(busy).client("cloudformation")
    sent = _count_attempts(cfn)
    with pytest.raises(botocore.exceptions.ClientError):
        cfn.describe_stacks(StackName="web")
    assert len(sent) == 4  # every attempt of max_attempts
