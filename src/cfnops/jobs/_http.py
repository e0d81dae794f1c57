"""``arn:aws:states:::http:invoke``: HTTPS calls (Slack webhooks) through the runtime's transport.

Fields as in "Call HTTPS APIs in Step Functions workflows"
(https://docs.aws.amazon.com/step-functions/latest/dg/call-https-apis.html): ``ApiEndpoint``,
``Method``, ``Headers``, ``QueryParameters``, ``RequestBody``, ``Authentication``; the result
is ``{"Headers", "ResponseBody", "StatusCode", "StatusText"}``; a non-2xx answer fails with
``States.Http.StatusCode.<code>``. Requests go through ``Runtime.http`` (a
:class:`cfnops.http.HttpTransport`; none: :class:`UrllibTransport`), handed to the task's
invoker by the run's runtime: a test or a demo builds its runtime with a
:class:`CapturingTransport`.

Secrets never go into definitions: ``ApiEndpoint`` may be ``cfnops:slack`` (the webhook in
settings ``notify.slack_webhook_url``, or the secret ``notify.slack_webhook_ref`` names in
Secrets Manager or SSM), which ``validate --strict`` reports as cfnops-only.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from http import HTTPStatus
from typing import Any

from cfnops.asl.errors import TaskFailure
from cfnops.http import HttpRequest, HttpResponse, HttpTransport

__all__ = [
    "CapturingTransport",
    "HttpRequest",
    "HttpResponse",
    "HttpTransport",
    "UrllibTransport",
    "call_http",
]

SLACK_ALIAS = "cfnops:slack"


class UrllibTransport:
    """Plain HTTPS through the standard library (timeouts, no retries)."""

    def __init__(self, timeout: float = 30.0) -> None:
        self.timeout = timeout

    def send(self, request: HttpRequest) -> HttpResponse:
        req = urllib.request.Request(
            request.url, data=request.body, headers=dict(request.headers), method=request.method
        )
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return HttpResponse(resp.status, dict(resp.headers), resp.read().decode())
        except urllib.error.HTTPError as exc:
            return HttpResponse(exc.code, dict(exc.headers), exc.read().decode(errors="replace"))
        except (urllib.error.URLError, TimeoutError) as exc:
            raise TaskFailure("States.Http.Socket", f"{type(exc).__name__}: {exc}") from None


class CapturingTransport:
    """Records every request and answers ``status`` (for tests and offline demos)."""

    def __init__(self, status: int = 200, body: str = "ok") -> None:
        self.status = status
        self.body = body
        self.requests: list[HttpRequest] = []
        self._lock = threading.Lock()

    def send(self, request: HttpRequest) -> HttpResponse:
        with self._lock:
            self.requests.append(request)
        return HttpResponse(self.status, {"content-type": "text/plain"}, self.body)

    def json_bodies(self) -> list[Any]:
        return [json.loads(r.body or b"null") for r in self.requests]


def call_http(payload: Any, resolve_alias: Callable[[str], str], transport: HttpTransport) -> Any:
    """Send the task's request through ``transport``; its result, or a TaskFailure."""
    if not isinstance(payload, Mapping) or "ApiEndpoint" not in payload:
        raise TaskFailure("States.Runtime", "http:invoke needs ApiEndpoint and Method")
    endpoint = str(payload["ApiEndpoint"])
    if endpoint.startswith("cfnops:"):
        endpoint = resolve_alias(endpoint)
    method = str(payload.get("Method", "GET")).upper()
    query = payload.get("QueryParameters") or {}
    if query:
        endpoint += ("&" if "?" in endpoint else "?") + urllib.parse.urlencode(query, doseq=True)
    headers = {str(k): str(v) for k, v in (payload.get("Headers") or {}).items()}
    body_value = payload.get("RequestBody")
    body: bytes | None = None
    if body_value is not None:
        encoding = (payload.get("Transform") or {}).get("RequestBodyEncoding", "NONE")
        if encoding == "URL_ENCODED" and isinstance(body_value, Mapping):
            body = urllib.parse.urlencode(body_value).encode()
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
        elif isinstance(body_value, str):
            body = body_value.encode()
        else:
            body = json.dumps(body_value, ensure_ascii=False).encode()
            headers.setdefault("Content-Type", "application/json; charset=UTF-8")
    response = transport.send(HttpRequest(method, endpoint, headers, body))
    try:
        parsed: Any = json.loads(response.body) if response.body else None
    except ValueError:
        parsed = response.body
    try:
        text = HTTPStatus(response.status).phrase
    except ValueError:
        text = ""
    result = {
        "Headers": {k: [v] for k, v in response.headers.items()},
        "ResponseBody": parsed,
        "StatusCode": response.status,
        "StatusText": text,
    }
    if not 200 <= response.status < 300:
        raise TaskFailure(
            f"States.Http.StatusCode.{response.status}",
            json.dumps(result, separators=(",", ":"), ensure_ascii=False),
        )
    return result
