"""The Lambda durable-execution API, served over cfnops's local durable backend.

moto's Lambda has no durable functions. This extension answers the operations a client
of durable functions uses, for the functions registered with
:func:`cfnops.durable.register_function`, executed by the :class:`cfnops.durable.LocalLambda`
a sandbox serves (``Sandbox.serve_lambda``; each sandbox its own, handed to this middleware
in the request's WSGI environ under :data:`ENVIRON_KEY`):

- ``Invoke`` of a registered durable function starts an execution (its name from
  ``X-Amz-Durable-Execution-Name``); ``Event`` answers 202 at once, ``RequestResponse``
  waits for the result (Lambda API reference, "Invoke");
- ``GetDurableExecution``, ``GetDurableExecutionHistory``,
  ``ListDurableExecutionsByFunction``, ``StopDurableExecution``;
- ``SendDurableExecutionCallbackSuccess`` / ``Failure`` / ``Heartbeat``.

Other Lambda requests (Invoke of functions not registered here, and every request to a
sandbox that serves no backend) go on to moto.
See https://docs.aws.amazon.com/lambda/latest/api/API_GetDurableExecutionHistory.html
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote

from cfnops.sandbox._control import register_middleware

if TYPE_CHECKING:
    from cfnops.durable import LocalLambda

__all__ = ["ENVIRON_KEY", "install"]

# The WSGI environ key under which a sandbox's server hands its LocalLambda to this
# middleware (PEP 3333: extension keys are prefixed with the server's name).
ENVIRON_KEY = "cfnops.lambda_backend"
_DURABLE = "/2025-12-01/"
_INVOKE = "/2015-03-31/functions/"
_SYNC_INVOKE_SECONDS = 60.0


class _ApiError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


def install() -> None:
    register_middleware(_middleware)


def _middleware(
    environ: dict[str, Any], start_response: Callable[..., Any], next_app: Any
) -> Iterable[bytes]:
    backend: LocalLambda | None = environ.get(ENVIRON_KEY)
    raw = str(environ.get("RAW_URI") or environ.get("REQUEST_URI") or environ.get("PATH_INFO"))
    path, _, query = raw.partition("?")
    if backend is None or not (path.startswith(_DURABLE) or path.startswith(_INVOKE)):
        return next_app(environ, start_response)  # type: ignore[no-any-return]
    method = str(environ.get("REQUEST_METHOD", "GET"))
    length = int(environ.get("CONTENT_LENGTH") or 0)
    body = environ["wsgi.input"].read(length) if length else b""
    try:
        if path.startswith(_INVOKE):
            answer = _invoke(backend, environ, path, query, body)
            if answer is None:  # not ours: moto's Lambda answers
                environ["wsgi.input"] = _Replay(body)
                return next_app(environ, start_response)  # type: ignore[no-any-return]
            status, headers, payload = answer
        else:
            status, headers, payload = _durable(backend, method, path, query, body)
    except _ApiError as err:
        status = err.status
        headers = {"x-amzn-ErrorType": err.code}
        payload = json.dumps({"Type": "User", "Message": str(err)}).encode()
    headers = {"Content-Type": "application/json", **headers, "Content-Length": str(len(payload))}
    start_response(f"{status} {_REASONS.get(status, 'OK')}", list(headers.items()))
    return [payload]


_REASONS = {200: "OK", 202: "Accepted", 400: "Bad Request", 404: "Not Found", 409: "Conflict"}


class _Replay:
    """The request body again, for moto, after this extension has read it."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def read(self, size: int = -1) -> bytes:
        out, self._data = (self._data, b"") if size < 0 else (self._data[:size], self._data[size:])
        return out


def _invoke(
    backend: LocalLambda, environ: dict[str, Any], path: str, query: str, body: bytes
) -> tuple[int, dict[str, str], bytes] | None:
    from cfnops.durable import UnknownFunction, functions

    rest = path[len(_INVOKE) :]
    if not rest.endswith("/invocations"):
        return None
    name = unquote(rest[: -len("/invocations")])
    short = name.split(":")[6] if name.startswith("arn:") else name.split(":")[0]
    if short not in functions():
        return None
    execution_name = environ.get("HTTP_X_AMZ_DURABLE_EXECUTION_NAME") or None
    try:
        arn = backend.start_execution(
            short, raw_payload=body.decode() if body else "{}", name=execution_name
        )
    except UnknownFunction as exc:  # pragma: no cover - checked above
        raise _ApiError(404, "ResourceNotFoundException", str(exc)) from exc
    headers = {"X-Amz-Durable-Execution-Arn": arn, "X-Amz-Executed-Version": "$LATEST"}
    if environ.get("HTTP_X_AMZ_INVOCATION_TYPE") == "Event":
        return 202, headers, b""
    record = backend.wait(arn, _SYNC_INVOKE_SECONDS)
    if record["status"] == "SUCCEEDED":
        return 200, headers, (record.get("result") or "null").encode()
    headers["X-Amz-Function-Error"] = "Unhandled"
    return 200, headers, json.dumps(record.get("error") or {}).encode()


def _durable(
    backend: LocalLambda, method: str, path: str, query: str, body: bytes
) -> tuple[int, dict[str, str], bytes]:
    from cfnops.durable import CallbackClosed, UnknownExecution

    parts = path[len(_DURABLE) :].split("/")
    multi = parse_qs(query)
    params = {k: v[-1] for k, v in multi.items()}
    params["Statuses"] = ",".join(multi.get("Statuses", []))
    try:
        if parts[0] == "durable-execution-callbacks" and len(parts) == 3 and method == "POST":
            return 200, {}, _callback(backend, unquote(parts[1]), parts[2], body)
        if parts[0] == "durable-executions" and len(parts) >= 2:
            arn = unquote(parts[1])
            action = parts[2] if len(parts) > 2 else ""
            if action == "" and method == "GET":
                return 200, {}, _dump(_execution(backend.record(arn), params))
            if action == "history" and method == "GET":
                return 200, {}, _dump(_history(backend.record(arn), params))
            if action == "stop" and method == "POST":
                error = json.loads(body) if body.strip() else None
                return 200, {}, _dump({"StopTimestamp": backend.stop(arn, error) / 1000})
        if parts[0] == "functions" and len(parts) == 3 and parts[2] == "durable-executions":
            return 200, {}, _dump(_list(backend, unquote(parts[1]), params))
    except UnknownExecution as exc:
        raise _ApiError(404, "ResourceNotFoundException", str(exc)) from exc
    except CallbackClosed as exc:
        raise _ApiError(409, "CallbackTimeoutException", str(exc)) from exc
    raise _ApiError(400, "InvalidParameterValueException", f"unsupported {method} {path}")


def _callback(backend: LocalLambda, callback_id: str, verb: str, body: bytes) -> bytes:
    if verb == "succeed":
        backend.send_callback(callback_id, "success", result=body.decode() if body else None)
    elif verb == "fail":
        error = json.loads(body) if body.strip() else {}
        backend.send_callback(callback_id, "failure", error=error)
    elif verb == "heartbeat":
        backend.send_callback(callback_id, "heartbeat")
    else:
        raise _ApiError(400, "InvalidParameterValueException", f"unknown callback action {verb}")
    return b"{}"


def _dump(value: dict[str, Any]) -> bytes:
    return json.dumps(value).encode()


def _seconds(ms: int | None) -> float | None:
    return None if ms is None else ms / 1000


def _api_times(value: Any) -> Any:
    """Epoch milliseconds (as stored) → the API's epoch seconds, in every ``*Timestamp``."""
    if isinstance(value, dict):
        return {
            k: _seconds(v) if k.endswith("Timestamp") and isinstance(v, int) else _api_times(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_api_times(v) for v in value]
    return value


def _execution(record: dict[str, Any], params: dict[str, str]) -> dict[str, Any]:
    arn = record["arn"]
    out: dict[str, Any] = {
        "DurableExecutionArn": arn,
        "DurableExecutionName": record["name"],
        "FunctionArn": arn.split("/durable-execution/")[0],
        "Status": record["status"],
        "StartTimestamp": _seconds(record["start"]),
        "Version": "$LATEST",
    }
    if record["end"] is not None:
        out["EndTimestamp"] = _seconds(record["end"])
    if params.get("IncludeExecutionData", "true") != "false":
        out["InputPayload"] = record["input"]
        if record.get("result") is not None:
            out["Result"] = record["result"]
        if record.get("error"):
            out["Error"] = record["error"]
    return out


def _history(record: dict[str, Any], params: dict[str, str]) -> dict[str, Any]:
    events = [_api_times(e) for e in record["events"]]
    if params.get("ReverseOrder") == "true":
        events.reverse()
    start = int(params.get("Marker") or 0)
    size = int(params.get("MaxItems") or 1000)
    out: dict[str, Any] = {"Events": events[start : start + size]}
    if start + size < len(events):
        out["NextMarker"] = str(start + size)
    return out


def _list(backend: LocalLambda, function: str, params: dict[str, str]) -> dict[str, Any]:
    short = function.split(":")[6] if function.startswith("arn:") else function.split(":")[0]
    statuses = [s for s in params.get("Statuses", "").split(",") if s] or None
    start = int(params.get("Marker") or 0)
    size = int(params.get("MaxItems") or 50)
    rows = backend.store.list(
        function=short,
        name=params.get("DurableExecutionName"),
        statuses=statuses,
        newest_first=params.get("ReverseOrder") != "true",
        offset=start,
        limit=size + 1,
    )
    out: dict[str, Any] = {
        "DurableExecutions": [
            {
                "DurableExecutionArn": r.arn,
                "DurableExecutionName": r.name,
                "FunctionArn": r.arn.split("/durable-execution/")[0],
                "Status": r.status,
                "StartTimestamp": _seconds(r.started),
                **({"EndTimestamp": _seconds(r.ended)} if r.ended is not None else {}),
            }
            for r in rows[:size]
        ]
    }
    if len(rows) > size:
        out["NextMarker"] = str(start + size)
    return out
