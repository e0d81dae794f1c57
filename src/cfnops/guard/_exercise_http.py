"""The local HTTP listener of ``cfnops guard --exercise``.

One server on loopback plays two parts for the handler's child process:

- the **ResponseURL**: ``PUT /response/<token>`` stores the body the handler sends
  (AWS docs, "Custom resource response objects":
  https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/crpg-ref-responses.html);
- the **AWS endpoint** (``AWS_ENDPOINT_URL``): every other request is an AWS API call.
  It is recorded (operation, whether it changes something, the raw request) and
  forwarded to the upstream endpoint (the sandbox), or, while a failure is asked
  for, answered ``403 AccessDenied`` so the handler's call fails at once (no retry).
"""

from __future__ import annotations

import http.client
import json
import re
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlsplit

_READ_ONLY = re.compile(
    r"^(Describe|Get|List|Lookup|Head|BatchGet|Search|Query|Scan|Select|Validate|Estimate|"
    r"Preview|Test|Check|Filter|Detect|Receive)"
)
_MAX_BODY = 8 * 1024 * 1024


@dataclass(frozen=True)
class AwsCall:
    """One AWS API request a handler made."""

    operation: str  # "DeleteParameter", or "DELETE /bucket/key" for REST calls
    changes: bool  # not a read-only operation
    text: str  # method, path, query and body: where an id would appear
    error: str = ""  # the error code the endpoint answered, if it refused the call

    def mentions(self, value: str) -> bool:
        return bool(value) and value in self.text


def _operation(method: str, path: str, headers: Any, body: bytes) -> tuple[str, bool]:
    target = headers.get("X-Amz-Target") or ""
    if target:
        name = target.rpartition(".")[2]
        return name, not _READ_ONLY.match(name)
    if "x-www-form-urlencoded" in (headers.get("Content-Type") or ""):
        action = parse_qs(body.decode("utf-8", "replace")).get("Action", [""])[0]
        if action:
            return action, not _READ_ONLY.match(action)
    return f"{method} {path.partition('?')[0]}", method not in ("GET", "HEAD", "OPTIONS")


_ERROR_CODE = re.compile(rb'<Code>([^<]{1,80})</Code>|"__type"\s*:\s*"(?:[^"#]*#)?([^"]{1,80})"')


def _error_code(status: int, headers: list[tuple[str, str]], body: bytes) -> str:
    if status < 400:
        return ""
    named = dict((k.lower(), v) for k, v in headers).get("x-amzn-errortype", "")
    found = _ERROR_CODE.search(body[:4096])
    code = named.partition(":")[0] or (
        (found.group(1) or found.group(2)).decode("utf-8", "replace") if found else ""
    )
    return code or f"HTTP {status}"


def _denied(headers: Any) -> tuple[str, bytes, str]:
    """An AccessDenied error in the shape the call's protocol expects."""
    message = "denied by cfnops guard --exercise (a failed update)"
    if headers.get("X-Amz-Target"):
        body = {"__type": "AccessDeniedException", "message": message}
        return "application/x-amz-json-1.1", json.dumps(body).encode(), "AccessDeniedException"
    xml = (
        "<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code>"
        f"<Message>{message}</Message></Error><RequestId>0</RequestId></ErrorResponse>"
    )
    return "text/xml", xml.encode(), "AccessDenied"


class Listener:
    """Start with ``with Listener(upstream) as listener:``; ``listener.url`` is the base URL."""

    def __init__(self, upstream: str) -> None:
        self.upstream = urlsplit(upstream)
        self.answers: dict[str, list[dict[str, Any]]] = {}
        self.calls: dict[str, list[AwsCall]] = {}
        self.failing = False
        self.current = ""  # the token of the invocation running now (one at a time)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> Listener:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def store_answer(self, token: str, body: bytes) -> None:
        try:
            answer = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            answer = {"unreadable": body[:200].decode("utf-8", "replace")}
        with self._lock:
            self.answers.setdefault(token, []).append(
                answer if isinstance(answer, dict) else {"unreadable": str(answer)[:200]}
            )

    def record(self, call: AwsCall) -> None:
        with self._lock:
            self.calls.setdefault(self.current, []).append(call)

    def forward(
        self, method: str, path: str, headers: Any, body: bytes
    ) -> tuple[int, list[tuple[str, str]], bytes]:
        host = self.upstream.hostname or "127.0.0.1"
        port = self.upstream.port or (443 if self.upstream.scheme == "https" else 80)
        connection_type = (
            http.client.HTTPSConnection
            if self.upstream.scheme == "https"
            else http.client.HTTPConnection
        )
        connection = connection_type(host, port, timeout=60)
        try:
            sent = {k: v for k, v in headers.items() if k.lower() not in ("host", "connection")}
            sent["Host"] = self.upstream.netloc
            connection.request(method, path, body=body or None, headers=sent)
            answer = connection.getresponse()
            return answer.status, answer.getheaders(), answer.read()
        finally:
            connection.close()


def _handler_for(listener: Listener) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return  # quiet: the exercise reports what matters

        def _body(self) -> bytes:
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(min(length, _MAX_BODY)) if length > 0 else b""

        def _reply(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
            self.send_response(status)
            head = self.command == "HEAD"  # no body, but the upstream's Content-Length
            skip = {"transfer-encoding", "connection", "server", "date"}
            skip |= set() if head else {"content-length"}
            for key, value in headers:
                if key.lower() not in skip:
                    self.send_header(key, value)
            if not head:
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def _any(self) -> None:
            body = self._body()
            if self.path.startswith("/response/"):
                listener.store_answer(self.path[len("/response/") :].partition("?")[0], body)
                self._reply(200, [], b"")
                return
            operation, changes = _operation(self.command, self.path, self.headers, body)
            text = f"{self.command} {self.path}\n" + body.decode("utf-8", "replace")
            if listener.failing:
                content_type, error, code = _denied(self.headers)
                listener.record(AwsCall(operation, changes, text, code))
                headers = [("Content-Type", content_type), ("x-amzn-ErrorType", code)]
                self._reply(403, headers, error)
                return
            try:
                status, headers, answer = listener.forward(
                    self.command, self.path, self.headers, body
                )
            except OSError as exc:
                listener.record(AwsCall(operation, changes, text, "endpoint unreachable"))
                message = f"cfnops guard --exercise: AWS endpoint unreachable ({exc})".encode()
                self._reply(502, [("Content-Type", "text/plain")], message)
                return
            listener.record(AwsCall(operation, changes, text, _error_code(status, headers, answer)))
            self._reply(status, headers, answer)

        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = do_PATCH = _any

    return Handler
