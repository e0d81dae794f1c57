"""Fault injection: throttling at a rate, added latency, and one-shot failures.

Configured per service and operation (``"*"`` for any), through the Python API
(:func:`throttle`, :func:`add_latency`, :func:`fail_next`, :func:`clear`) or the
control route ``/_cfnops/faults``::

    curl -XPOST $AWS_ENDPOINT_URL/_cfnops/faults \\
      -d '{"add": [{"kind": "throttle", "service": "ssm", "rate": 0.5, "seed": 7}]}'

A fault answers before moto sees the request, with the error body of the
service's protocol so botocore parses the code and its retry handler treats
throttling as throttling (botocore's retry mode "standard"/"adaptive" retries
``Throttling``, ``ThrottlingException``, ``RequestLimitExceeded``, ``SlowDown``):

- query (CloudFormation, RDS, IAM, ...): ``<ErrorResponse><Error><Code>`` and HTTP
  400, code ``Throttling`` - AWS Query API error responses;
- ec2: ``<Response><Errors><Error>`` and HTTP 503, code ``RequestLimitExceeded`` -
  "Request throttling for the Amazon EC2 API" in the EC2 API reference;
- json (SSM, EventBridge, Step Functions, SQS): ``{"__type": ...}`` and HTTP 400,
  code ``ThrottlingException``;
- rest-json (Backup): ``x-amzn-ErrorType`` header and HTTP 429, code
  ``ThrottlingException``;
- rest-xml (S3): ``<Error><Code>SlowDown`` and HTTP 503.

The message is "Rate exceeded" as AWS sends it. Rates draw from a seeded
``random.Random`` so a test sees the same sequence on every run. Every injected
fault is counted (:func:`injected`) so tests can assert that retries happened.
"""

from __future__ import annotations

import json
import random
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from cfnops.sandbox._control import register_control, register_middleware
from cfnops.sandbox._state import current_state
from cfnops.sandbox.extensions._request_info import RequestInfo, identify

__all__ = [
    "FaultRule",
    "add_latency",
    "clear",
    "fail_next",
    "injected",
    "install",
    "rules",
    "throttle",
]

Kind = Literal["throttle", "latency", "fail"]
_KINDS = ("throttle", "latency", "fail")
_THROTTLE_CODES = {"ec2": "RequestLimitExceeded", "query": "Throttling", "rest-xml": "SlowDown"}
_THROTTLE_STATUS = {"ec2": 503, "query": 400, "json": 400, "rest-json": 429, "rest-xml": 503}
_STORE = "faults"  # key in SandboxState.faults owned by this module
_lock = threading.Lock()


@dataclass
class FaultRule:
    """One fault. ``remaining`` counts down for ``fail`` (``None`` = unlimited)."""

    kind: Kind
    service: str = "*"
    operation: str = "*"
    rate: float = 1.0
    seconds: float = 0.0
    remaining: int | None = None
    code: str | None = None
    message: str | None = None
    status: int | None = None
    seed: int | None = None
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:8])
    _random: random.Random = field(default_factory=random.Random, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"fault kind must be one of {_KINDS}, got {self.kind!r}")
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"rate must be between 0 and 1, got {self.rate}")
        if self.seconds < 0:
            raise ValueError("seconds cannot be negative")
        if self.remaining is not None and self.remaining < 0:
            raise ValueError("count cannot be negative")
        self._random = random.Random(self.seed)

    def applies_to(self, info: RequestInfo) -> bool:
        return self.service in ("*", info.service) and self.operation in ("*", info.operation)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("_random", None)
        return data


def _store() -> dict[str, Any]:
    faults = current_state().faults
    store: dict[str, Any] = faults.setdefault(_STORE, {"rules": [], "injected": []})
    return store


def _add(rule: FaultRule) -> FaultRule:
    with current_state().lock:
        _store()["rules"].append(rule)
    return rule


def throttle(
    service: str = "*",
    operation: str = "*",
    *,
    rate: float = 1.0,
    seed: int | None = 0,
    code: str | None = None,
    count: int | None = None,
) -> FaultRule:
    """Answer a share ``rate`` of matching calls with the service's throttling error.

    ``count`` limits how many calls are throttled in total (``None``: no limit).
    """
    return _add(
        FaultRule("throttle", service, operation, rate=rate, seed=seed, code=code, remaining=count)
    )


def add_latency(service: str = "*", operation: str = "*", *, seconds: float) -> FaultRule:
    """Delay every matching call by ``seconds`` before moto answers it."""
    return _add(FaultRule("latency", service, operation, seconds=seconds))


def fail_next(
    service: str = "*",
    operation: str = "*",
    *,
    count: int = 1,
    code: str = "InternalFailure",
    message: str = "We encountered an internal error. Please try again.",
    status: int = 500,
) -> FaultRule:
    """Fail the next ``count`` matching calls with ``code`` (HTTP ``status``).

    The default (``InternalFailure``, 500) is retried by botocore; use a 4xx code such
    as ``ValidationError`` for a failure that surfaces at once.
    """
    return _add(
        FaultRule(
            "fail", service, operation, remaining=count, code=code, message=message, status=status
        )
    )


def clear() -> None:
    """Remove every fault rule and forget the injected counts."""
    with current_state().lock:
        current_state().faults.pop(_STORE, None)


def rules() -> list[FaultRule]:
    with current_state().lock:
        return list(_store()["rules"])


def injected(
    service: str | None = None, operation: str | None = None, kind: str | None = None
) -> int:
    """How many faults were injected (optionally for one service / operation / kind)."""
    with current_state().lock:
        return sum(
            1
            for entry in _store()["injected"]
            if (service is None or entry["service"] == service)
            and (operation is None or entry["operation"] == operation)
            and (kind is None or entry["kind"] == kind)
        )


# -- the middleware ----------------------------------------------------------


def _decide(info: RequestInfo) -> tuple[float, FaultRule | None]:
    """Latency to add and the failing rule (if any) for this request."""
    latency = 0.0
    with current_state().lock:
        store = _store()
        for rule in store["rules"]:
            if not rule.applies_to(info):
                continue
            if rule.kind == "latency":
                latency += rule.seconds
                store["injected"].append(_entry(rule, info))
                continue
            if rule.remaining == 0:
                continue
            if rule.kind == "throttle" and rule._random.random() >= rule.rate:
                continue
            if rule.remaining is not None:
                rule.remaining -= 1
            store["injected"].append(_entry(rule, info))
            return latency, rule
    return latency, None


def _entry(rule: FaultRule, info: RequestInfo) -> dict[str, Any]:
    return {
        "rule": rule.id,
        "kind": rule.kind,
        "service": info.service,
        "operation": info.operation,
        "at": time.time(),
    }


def _middleware(
    environ: dict[str, Any],
    start_response: Callable[..., Any],
    next_app: Callable[..., Iterable[bytes]],
) -> Iterable[bytes]:
    with current_state().lock:
        active = bool(current_state().faults.get(_STORE, {}).get("rules"))
    if not active:
        return next_app(environ, start_response)
    info = identify(environ)
    if info is None:
        return next_app(environ, start_response)
    latency, rule = _decide(info)
    if latency:
        time.sleep(latency)
    if rule is None:
        return next_app(environ, start_response)
    return _error_response(info, rule, start_response)


def _error_response(
    info: RequestInfo, rule: FaultRule, start_response: Callable[..., Any]
) -> list[bytes]:
    if rule.kind == "throttle":
        code = rule.code or _THROTTLE_CODES.get(info.protocol, "ThrottlingException")
        message = rule.message or "Rate exceeded"
        status = rule.status or _THROTTLE_STATUS.get(info.protocol, 400)
    else:
        code = rule.code or "InternalFailure"
        message = rule.message or "We encountered an internal error. Please try again."
        status = rule.status or 500
    request_id = str(uuid.uuid4())
    headers = [("x-amzn-RequestId", request_id)]
    body, content_type = _error_body(info.protocol, code, message, status, request_id)
    if info.protocol == "rest-json":
        headers.append(("x-amzn-ErrorType", code))
    headers += [("Content-Type", content_type), ("Content-Length", str(len(body)))]
    start_response(f"{status} {_REASONS.get(status, 'Error')}", headers)
    return [body]


_REASONS = {
    400: "Bad Request",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


def _error_body(
    protocol: str, code: str, message: str, status: int, request_id: str
) -> tuple[bytes, str]:
    from xml.sax.saxutils import escape

    code_x, message_x = escape(code), escape(message)
    if protocol == "ec2":
        text = (
            '<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error>'
            f"<Code>{code_x}</Code><Message>{message_x}</Message></Error></Errors>"
            f"<RequestID>{request_id}</RequestID></Response>"
        )
        return text.encode(), "text/xml"
    if protocol == "query":
        kind = "Receiver" if status >= 500 else "Sender"
        text = (
            "<ErrorResponse><Error>"
            f"<Type>{kind}</Type><Code>{code_x}</Code><Message>{message_x}</Message>"
            f"</Error><RequestId>{request_id}</RequestId></ErrorResponse>"
        )
        return text.encode(), "text/xml"
    if protocol == "rest-xml":
        text = (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f"<Error><Code>{code_x}</Code><Message>{message_x}</Message>"
            f"<RequestId>{request_id}</RequestId></Error>"
        )
        return text.encode(), "application/xml"
    payload = {"__type": code, "message": message}
    return json.dumps(payload).encode(), "application/x-amz-json-1.1"


# -- control route -----------------------------------------------------------


def _control(request: dict[str, Any]) -> dict[str, Any]:
    """``{"clear": true, "add": [{"kind": "throttle", "service": "ssm", ...}]}``.

    Rule fields: kind (throttle | latency | fail), service, operation, rate, seed,
    seconds, count, code, message, status. Answers the rules and injected counts.
    """
    if request.get("clear"):
        clear()
    for spec in request.get("add", []):
        if not isinstance(spec, dict):
            raise ValueError("each entry of 'add' must be an object")
        spec = dict(spec)
        if "count" in spec:
            spec["remaining"] = spec.pop("count")
        try:
            _add(FaultRule(**spec))
        except TypeError as exc:
            raise ValueError(f"bad fault rule {spec}: {exc}") from exc
    with current_state().lock:
        store = _store()
        return {
            "rules": [rule.as_dict() for rule in store["rules"]],
            "injected": list(store["injected"]),
        }


def install() -> None:
    """Register the fault middleware and the ``faults`` control route (idempotent)."""
    with _lock:
        register_middleware(_middleware)
        register_control("faults", _control)
