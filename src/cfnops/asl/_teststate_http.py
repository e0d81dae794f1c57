"""TestState on an HTTP Task without a mock: send it, and show the exchange at TRACE.

The API reference (https://docs.aws.amazon.com/step-functions/latest/apireference/API_TestState.html):
``inspectionLevel`` TRACE "shows the HTTP request and response for an HTTP Task";
``revealSecrets`` "for HTTP Tasks, a secret includes the data that an EventBridge connection
adds to modify the HTTP request headers, query parameters, and body. Step Functions doesn't
omit any information included in the state definition or the HTTP response" (default false).
The shapes are ``InspectionDataRequest`` (protocol, method, url, headers, body) and
``InspectionDataResponse`` (protocol, statusCode, statusMessage, headers, body), all strings.

The request is built as "Call HTTPS APIs in Step Functions workflows" describes it
(https://docs.aws.amazon.com/step-functions/latest/dg/call-https-apis.html): ``ApiEndpoint``,
``Method``, ``Headers``, ``QueryParameters``, ``RequestBody`` (JSON, or form-encoded with
``Transform.RequestBodyEncoding`` URL_ENCODED), then the connection's
``InvocationHttpParameters`` and authorization (API key header, Basic) merged in. The result
is ``{"Headers", "ResponseBody", "StatusCode", "StatusText"}``; a non-2xx answer fails the
Task with ``States.Http.StatusCode.<code>``. A connection's OAuth flow is not modelled.
"""

from __future__ import annotations

import base64
import json
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from cfnops.asl.errors import TaskFailure
from cfnops.http import HttpRequest, HttpResponse, HttpTransport

__all__ = ["HTTP_RESOURCE", "ConnectionLookup", "HttpExchange", "send_http_task"]

HTTP_RESOURCE = "arn:aws:states:::http:invoke"
# CreateConnection's AuthParameters for a connection ARN (None: no such connection)
ConnectionLookup = Callable[[str], Mapping[str, Any] | None]


@dataclass
class HttpExchange:
    """What TRACE shows: the request (secrets left out unless revealed) and the response."""

    request: dict[str, str] = field(default_factory=dict)
    response: dict[str, str] = field(default_factory=dict)


def _pairs(params: Mapping[str, Any], name: str) -> dict[str, str]:
    return {str(p.get("Key")): str(p.get("Value")) for p in params.get(name) or []}


def _connection_parts(
    auth: Mapping[str, Any],
) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """Headers, query parameters and body fields a connection adds (its secrets)."""
    invocation = auth.get("InvocationHttpParameters") or {}
    headers = _pairs(invocation, "HeaderParameters")
    query = _pairs(invocation, "QueryStringParameters")
    body = _pairs(invocation, "BodyParameters")
    key = auth.get("ApiKeyAuthParameters") or {}
    if key.get("ApiKeyName"):
        headers[str(key["ApiKeyName"])] = str(key.get("ApiKeyValue", ""))
    basic = auth.get("BasicAuthParameters") or {}
    if basic.get("Username") is not None:
        pair = f"{basic['Username']}:{basic.get('Password', '')}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
    if auth.get("OAuthParameters"):
        raise TaskFailure(
            "States.Http.Socket",
            "the sandbox does not run a connection's OAuth flow: use an API key or Basic "
            "connection, or mock the HTTP Task",
        )
    return headers, query, body


def _build(
    payload: Mapping[str, Any], extra: tuple[dict[str, str], dict[str, str], dict[str, str]]
) -> tuple[str, str, dict[str, str], str | None]:
    method = str(payload.get("Method", "GET")).upper()
    url = str(payload["ApiEndpoint"])
    add_headers, add_query, add_body = extra
    query = {**(payload.get("QueryParameters") or {}), **add_query}
    if query:
        url += ("&" if "?" in url else "?") + urllib.parse.urlencode(query, doseq=True)
    headers = {str(k): str(v) for k, v in (payload.get("Headers") or {}).items()}
    headers.update(add_headers)
    value = payload.get("RequestBody")
    if add_body and (value is None or isinstance(value, Mapping)):
        value = {**(value or {}), **add_body}
    body: str | None = None
    if value is not None:
        encoding = (payload.get("Transform") or {}).get("RequestBodyEncoding", "NONE")
        if encoding == "URL_ENCODED" and isinstance(value, Mapping):
            body = urllib.parse.urlencode(value)
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
        elif isinstance(value, str):
            body = value
        else:
            body = json.dumps(value, ensure_ascii=False)
            headers.setdefault("Content-Type", "application/json; charset=UTF-8")
    return method, url, headers, body


def _headers_text(headers: Mapping[str, str]) -> str:
    return "[" + ", ".join(f"{k}: {v}" for k, v in headers.items()) + "]"


def send_http_task(
    payload: Any,
    transport: HttpTransport,
    connections: ConnectionLookup | None,
    reveal: bool,
    exchange: HttpExchange,
) -> Any:
    """Send the HTTP Task's request and return its result (or raise TaskFailure); fill
    ``exchange`` with what TRACE shows, a failed exchange too."""
    if not isinstance(payload, Mapping) or "ApiEndpoint" not in payload:
        raise TaskFailure("States.Runtime", "http:invoke needs ApiEndpoint and Method")
    arn = str((payload.get("Authentication") or {}).get("ConnectionArn") or "")
    auth = (connections(arn) if connections and arn else None) or {}
    if arn and not auth:
        raise TaskFailure("States.Http.Socket", f"no EventBridge connection {arn} in the sandbox")
    secrets = _connection_parts(auth)
    method, url, headers, body = _build(payload, secrets)
    shown_method, shown_url, shown_headers, shown_body = (
        (method, url, headers, body) if reveal else _build(payload, ({}, {}, {}))
    )
    protocol = urllib.parse.urlsplit(url).scheme or "https"
    exchange.request = {
        "protocol": protocol,
        "method": shown_method,
        "url": shown_url,
        "headers": _headers_text(shown_headers),
        "body": shown_body or "",
    }
    answer: HttpResponse = transport.send(
        HttpRequest(method, url, headers, body.encode() if body is not None else None)
    )
    try:
        text = HTTPStatus(answer.status).phrase
    except ValueError:
        text = ""
    exchange.response = {"protocol": protocol, "statusCode": str(answer.status),
                         "statusMessage": text, "headers": _headers_text(answer.headers),
                         "body": answer.body}  # fmt: skip
    try:
        parsed: Any = json.loads(answer.body) if answer.body else None
    except ValueError:
        parsed = answer.body
    result = {
        "Headers": {k: [v] for k, v in answer.headers.items()},
        "ResponseBody": parsed,
        "StatusCode": answer.status,
        "StatusText": text,
    }
    if not 200 <= answer.status < 300:
        raise TaskFailure(
            f"States.Http.StatusCode.{answer.status}",
            json.dumps(result, separators=(",", ":"), ensure_ascii=False),
        )
    return result
