"""Which AWS service and operation a raw WSGI request is for (used by middleware).

The service comes from the SigV4 credential scope (``Credential=AKID/date/region/
service/aws4_request``), the operation from the protocol: ``Action=`` for the query
protocols, ``X-Amz-Target`` for JSON, method + URI (botocore's HTTP bindings, via
moto's router) for REST. The request body is buffered and put back so moto can
still read it.
"""

from __future__ import annotations

import functools
import io
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

__all__ = ["RequestInfo", "identify", "protocol_of"]

# SigV4 signing names that differ from botocore's service names.
_SIGNING_ALIASES = {
    "states": "stepfunctions",
    "monitoring": "cloudwatch",
    "email": "ses",
    "execute-api": "apigateway",
}
_SCOPE = re.compile(r"Credential=[^/]+/\d{8}/([^/]+)/([^/]+)/aws4_request")


@dataclass(frozen=True)
class RequestInfo:
    """What a request asks for; ``operation`` is ``""`` when it cannot be told."""

    service: str
    operation: str
    protocol: str
    region: str


@functools.cache
def protocol_of(service: str) -> str:
    """botocore's protocol for ``service`` (``query``, ``ec2``, ``json``, ...)."""
    from moto.core.utils import get_service_model

    try:
        return str(get_service_model(service).protocol)
    except Exception:  # unknown to botocore: treat as JSON, the most common protocol
        return "json"


def _buffer_body(environ: dict[str, Any]) -> bytes:
    length = int(environ.get("CONTENT_LENGTH") or 0)
    body: bytes = environ["wsgi.input"].read(length) if length else b""
    environ["wsgi.input"] = io.BytesIO(body)
    return body


def identify(environ: dict[str, Any]) -> RequestInfo | None:
    """Tell the service and operation of ``environ``; ``None`` if it is not signed."""
    match = _SCOPE.search(str(environ.get("HTTP_AUTHORIZATION", "")))
    if match is None:
        return None
    region, signing_name = match.group(1), match.group(2)
    service = _SIGNING_ALIASES.get(signing_name, signing_name)
    protocol = protocol_of(service)
    target = str(environ.get("HTTP_X_AMZ_TARGET", ""))
    operation = ""
    if target:
        operation = target.rsplit(".", 1)[-1]
    elif protocol in ("query", "ec2"):
        query = parse_qs(str(environ.get("QUERY_STRING", "")))
        if "Action" not in query:
            query = parse_qs(_buffer_body(environ).decode("utf-8", "replace"))
        operation = (query.get("Action") or [""])[0]
    else:
        operation = _rest_operation(service, environ)
    return RequestInfo(service=service, operation=operation, protocol=protocol, region=region)


def _rest_operation(service: str, environ: dict[str, Any]) -> str:
    from moto.core.request import Request
    from moto.core.routing import get_service_router

    _buffer_body(environ)
    try:
        operation, _ = get_service_router(service).match(Request(dict(environ)))
    except Exception:  # not routable: faults configured for "*" still apply
        return ""
    finally:
        environ["wsgi.input"].seek(0)
    return str(operation.name)
